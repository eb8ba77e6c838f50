/** batch/v1 as the original serves it in v1.32. */
import type { ResourceTypeDef } from '../resource-type.ts';
import { cronJobStrategy } from '../strategies/cronjobs.ts';
import { jobStrategy } from '../strategies/jobs.ts';
import { ALL, status } from './subresources.ts';

const batchV1 = { group: 'batch', version: 'v1' } as const;

export const batchTypes: ResourceTypeDef[] = [
  {
    ...batchV1, resource: 'cronjobs', kind: 'CronJob', singularName: 'cronjob', namespaced: true, shortNames: ['cj'], categories: ALL,
    subresources: [status('CronJob')], tracksGeneration: true, strategy: cronJobStrategy,
  },
  {
    ...batchV1, resource: 'jobs', kind: 'Job', singularName: 'job', namespaced: true, categories: ALL,
    subresources: [status('Job')], tracksGeneration: true, strategy: jobStrategy,
  },
];
