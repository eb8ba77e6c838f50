/**
 * autoscaling/v2 HorizontalPodAutoscaler (shallow).
 * Field names, types, markers and proto numbers follow the original API; descriptions are ours.
 */
import { f, OPAQUE, type StructDecl } from '../schema-dsl.ts';
import { autoscalingV2 } from './namespaces.ts';

export const autoscalingV2Types: readonly StructDecl[] = [
  autoscalingV2.kind('HorizontalPodAutoscaler', 'Scales a workload by observed metrics.', {
    spec: f(OPAQUE, 'Target, bounds, metrics and behaviour.', { proto: 2 }),
    status: f(OPAQUE, 'Current state.', { proto: 3 }),
  }),
];
