/** coordination.orch.io/v1: leases, which a PUT may create (leader election relies on it). */
import type { ResourceTypeDef } from '../resource-type.ts';
import { leaseStrategy } from '../strategies/leases.ts';

export const coordinationTypes: ResourceTypeDef[] = [
  {
    group: 'coordination.orch.io', version: 'v1', resource: 'leases', kind: 'Lease', singularName: 'lease', namespaced: true,
    allowCreateOnUpdate: true, strategy: leaseStrategy,
  },
];
