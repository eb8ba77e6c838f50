/** coordination.<suffix>/v1: leases, which a PUT may create (leader election relies on it). */
import type { ResourceTypeDef } from '../resource-type.ts';
import { leaseStrategy } from '../strategies/leases.ts';
import { apiGroup } from '../../naming/index.ts';

export const coordinationTypes: ResourceTypeDef[] = [
  {
    group: apiGroup('coordination'), version: 'v1', resource: 'leases', kind: 'Lease', singularName: 'lease', namespaced: true,
    allowCreateOnUpdate: true, strategy: leaseStrategy,
  },
];
