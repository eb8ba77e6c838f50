/** policy/v1: PodDisruptionBudgets; their status counters have no omitempty, so a reset status shows zeros. */
import type { ResourceTypeDef } from '../resource-type.ts';
import { statusResetOnCreate } from '../strategies/util.ts';
import { status } from './subresources.ts';

export const policyTypes: ResourceTypeDef[] = [
  {
    group: 'policy', version: 'v1', resource: 'poddisruptionbudgets', kind: 'PodDisruptionBudget', singularName: 'poddisruptionbudget',
    namespaced: true, shortNames: ['pdb'], subresources: [status('PodDisruptionBudget')], tracksGeneration: true,
    strategy: statusResetOnCreate(() => ({ disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 })),
  },
];
