/**
 * node.<suffix>/v1 RuntimeClass (shallow).
 * Field names, types, markers and proto numbers follow the original API; descriptions are ours.
 */
import { f, S, OPAQUE, type StructDecl } from '../schema-dsl.ts';
import { node } from './namespaces.ts';

export const nodeClassTypes: readonly StructDecl[] = [
  node.kind('RuntimeClass', 'A container runtime configuration that pods can select.', {
    handler: f(S, 'Runtime handler on the node that runs the pods; immutable.', { required: true, proto: 2 }),
    overhead: f(OPAQUE, 'Resources the runtime uses per pod.', { proto: 3 }),
    scheduling: f(OPAQUE, 'Constraints that place pods on nodes supporting the runtime.', { proto: 4 }),
  }),
];
