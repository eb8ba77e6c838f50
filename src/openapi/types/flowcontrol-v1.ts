/**
 * flowcontrol.apiserver.<suffix>/v1: API priority and fairness (shallow).
 * Field names, types, markers and proto numbers follow the original API; descriptions are ours.
 */
import { f, OPAQUE, type StructDecl } from '../schema-dsl.ts';
import { flowcontrol } from './namespaces.ts';

export const flowcontrolTypes: readonly StructDecl[] = [
  flowcontrol.kind('FlowSchema', 'Sorts requests into flows and priority levels.', {
    spec: f(OPAQUE, 'Matching rules and the priority level.', { proto: 2 }),
    status: f(OPAQUE, 'Current conditions.', { proto: 3 }),
  }),
  flowcontrol.kind('PriorityLevelConfiguration', 'A priority level: its share of concurrency and queuing.', {
    spec: f(OPAQUE, 'Limits and queuing.', { proto: 2 }),
    status: f(OPAQUE, 'Current conditions.', { proto: 3 }),
  }),
];
