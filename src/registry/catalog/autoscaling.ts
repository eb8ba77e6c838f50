/**
 * autoscaling/v2: HorizontalPodAutoscalers. The v1.32 original does not
 * keep their generation (that came later, behind a feature gate).
 * desiredReplicas has no omitempty, so a reset status shows it.
 */
import type { ResourceTypeDef } from '../resource-type.ts';
import { statusResetOnCreate } from '../strategies/util.ts';
import { ALL, status } from './subresources.ts';

export const autoscalingTypes: ResourceTypeDef[] = [
  {
    group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers', kind: 'HorizontalPodAutoscaler',
    singularName: 'horizontalpodautoscaler', namespaced: true, shortNames: ['hpa'], categories: ALL,
    subresources: [status('HorizontalPodAutoscaler')], strategy: statusResetOnCreate(() => ({ desiredReplicas: 0 })),
  },
];
