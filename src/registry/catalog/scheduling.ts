/** scheduling.orch.io/v1: PriorityClasses. */
import type { ResourceTypeDef } from '../resource-type.ts';
import { priorityClassStrategy } from '../strategies/priorityclasses.ts';

export const schedulingTypes: ResourceTypeDef[] = [
  {
    group: 'scheduling.orch.io', version: 'v1', resource: 'priorityclasses', kind: 'PriorityClass', singularName: 'priorityclass',
    namespaced: false, shortNames: ['pc'], strategy: priorityClassStrategy,
  },
];
