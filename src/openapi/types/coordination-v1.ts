/**
 * coordination.<suffix>/v1 Lease.
 * Field names, types, markers and proto numbers follow the original API; descriptions are ours.
 */
import { f, S, I32, MTIME, type StructDecl } from '../schema-dsl.ts';
import { coordination } from './namespaces.ts';

export const coordinationTypes: readonly StructDecl[] = [
  coordination.kind('Lease', 'A lease, used for leader election and node heartbeats.', {
    spec: f(coordination.ref('LeaseSpec'), 'The lease\'s holder and timing.', { proto: 2 }),
  }),
  coordination.struct('LeaseSpec', 'Holder and timing of a lease.', {
    holderIdentity: f(S, 'Identity of the current holder.', { proto: 1 }),
    leaseDurationSeconds: f(I32, 'Seconds candidates wait after renewTime before taking the lease over.', { proto: 2 }),
    acquireTime: f(MTIME, 'When the current holder took the lease.', { proto: 3 }),
    renewTime: f(MTIME, 'When the holder last renewed the lease.', { proto: 4 }),
    leaseTransitions: f(I32, 'Times the lease changed holder.', { proto: 5 }),
    strategy: f(S, 'Strategy for choosing the next holder, for coordinated election.', { proto: 6 }),
    preferredHolder: f(S, 'Holder that should take the lease next, for coordinated election.', { proto: 7 }),
  }),
];
