/**
 * events.<suffix>/v1 Event.
 * Field names, types, markers and proto numbers follow the original API; descriptions are ours.
 */
import { f, S, I32, TIME, MTIME, type StructDecl } from '../schema-dsl.ts';
import { core, events } from './namespaces.ts';
import { names } from '../../naming/index.ts';

export const eventsTypes: readonly StructDecl[] = [
  events.kind('Event', 'A report of something that happened in the cluster, in the events group\'s shape.', {
    eventTime: f(MTIME, 'When the event was first observed; required.', { required: true, proto: 2 }),
    series: f(events.ref('EventSeries'), 'Data on a series of repeated events.', { proto: 3 }),
    reportingController: f(S, `Controller that emitted the event, such as ${names.domain}/scheduler; required.`, { proto: 4 }),
    reportingInstance: f(S, 'Instance of that controller; required.', { proto: 5 }),
    action: f(S, 'What was done, or failed, about the regarding object; required.', { proto: 6 }),
    reason: f(S, 'Short, machine-readable reason; required.', { proto: 7 }),
    regarding: f(core.ref('ObjectReference'), 'Object the event is about.', { proto: 8 }),
    related: f(core.ref('ObjectReference'), 'A second object involved.', { proto: 9 }),
    note: f(S, 'Human-readable description.', { proto: 10 }),
    type: f(S, 'Normal or Warning.', { proto: 11 }),
    deprecatedSource: f(core.ref('EventSource'), 'Deprecated; read-only copy of the core event source.', { proto: 12 }),
    deprecatedFirstTimestamp: f(TIME, 'Deprecated; read-only copy of the core firstTimestamp.', { proto: 13 }),
    deprecatedLastTimestamp: f(TIME, 'Deprecated; read-only copy of the core lastTimestamp.', { proto: 14 }),
    deprecatedCount: f(I32, 'Deprecated; read-only copy of the core count.', { proto: 15 }),
  }),
  events.struct('EventSeries', 'A series of repeated events.', {
    count: f(I32, 'Occurrences so far.', { required: true, proto: 1 }),
    lastObservedTime: f(MTIME, 'Time of the last occurrence.', { required: true, proto: 2 }),
  }),
];
