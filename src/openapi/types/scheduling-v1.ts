/**
 * scheduling.<suffix>/v1 PriorityClass.
 * Field names, types, markers and proto numbers follow the original API; descriptions are ours.
 */
import { f, S, I32, B, type StructDecl } from '../schema-dsl.ts';
import { scheduling } from './namespaces.ts';

export const schedulingClassTypes: readonly StructDecl[] = [
  scheduling.kind('PriorityClass', 'Maps a class name to a pod priority value.', {
    value: f(I32, 'Priority of pods using this class; higher is more important.', { required: true, proto: 2 }),
    globalDefault: f(B, 'Use this class for pods without a class; at most one class may set it.', { proto: 3 }),
    description: f(S, 'What the class is for.', { proto: 4 }),
    preemptionPolicy: f(S, 'PreemptLowerPriority or Never; default PreemptLowerPriority.', { enum: ['PreemptLowerPriority', 'Never'], proto: 5 }),
  }),
];
