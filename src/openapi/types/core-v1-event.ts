/**
 * Core events (v1 Event).
 * Field names, types, markers and proto numbers follow the original API; descriptions are ours.
 */
import { f, S, I32, TIME, MTIME, type StructDecl } from '../schema-dsl.ts';
import { core } from './namespaces.ts';

export const coreEventTypes: readonly StructDecl[] = [
  core.kind('Event', 'A report of something that happened to an object.', {
    involvedObject: f(core.ref('ObjectReference'), 'Object the event is about.', { required: true, proto: 2 }),
    reason: f(S, 'Short, machine-readable reason.', { proto: 3 }),
    message: f(S, 'Human-readable description.', { proto: 4 }),
    source: f(core.ref('EventSource'), 'Component reporting the event.', { proto: 5 }),
    firstTimestamp: f(TIME, 'When the event was first seen.', { proto: 6 }),
    lastTimestamp: f(TIME, 'When the event was last seen.', { proto: 7 }),
    count: f(I32, 'Times the event occurred.', { proto: 8 }),
    type: f(S, 'Normal or Warning.', { proto: 9 }),
    eventTime: f(MTIME, 'When the event was first observed, with microseconds.', { proto: 10 }),
    series: f(core.ref('EventSeries'), 'Data on a series of repeated events.', { proto: 11 }),
    action: f(S, 'What was done, or failed, about the object.', { proto: 12 }),
    related: f(core.ref('ObjectReference'), 'A second object involved.', { proto: 13 }),
    reportingComponent: f(S, 'Controller that emitted the event.', { proto: 14 }),
    reportingInstance: f(S, 'Instance of that controller.', { proto: 15 }),
  }),
  core.struct('EventSource', 'Where an event came from.', {
    component: f(S, 'Component name.', { proto: 1 }),
    host: f(S, 'Node name.', { proto: 2 }),
  }),
  core.struct('EventSeries', 'A series of repeated events.', {
    count: f(I32, 'Occurrences so far.', { proto: 1 }),
    lastObservedTime: f(MTIME, 'Time of the last occurrence.', { proto: 2 }),
  }),
];
