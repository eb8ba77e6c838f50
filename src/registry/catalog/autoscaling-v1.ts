/**
 * autoscaling/v1 HorizontalPodAutoscalers: served from the v2 storage, with
 * what v1 cannot say kept in the original's annotations (conversions/).
 */
import type { ResourceTypeDef } from '../resource-type.ts';
import { hpaV1 } from '../conversions/index.ts';
import { autoscalingTypes } from './autoscaling.ts';

const v2 = autoscalingTypes.find((d) => d.resource === 'horizontalpodautoscalers')!;

export const autoscalingV1Types: ResourceTypeDef[] = [
  {
    ...v2,
    version: 'v1',
    storageOf: { group: v2.group, resource: v2.resource },
    conversion: hpaV1('autoscaling/v1', 'autoscaling/v2'),
  },
];
