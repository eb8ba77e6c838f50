/** scheduling.<suffix>/v1: PriorityClasses. */
import type { ResourceTypeDef } from '../resource-type.ts';
import { priorityClassStrategy } from '../strategies/priorityclasses.ts';
import { apiGroup } from '../../naming/index.ts';

export const schedulingTypes: ResourceTypeDef[] = [
  {
    group: apiGroup('scheduling'), version: 'v1', resource: 'priorityclasses', kind: 'PriorityClass', singularName: 'priorityclass',
    namespaced: false, shortNames: ['pc'], strategy: priorityClassStrategy,
  },
];
