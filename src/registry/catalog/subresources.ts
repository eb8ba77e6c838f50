/**
 * The subresources the catalog serves, shaped as the original's discovery
 * lists them: status/approval read and replace part of the parent, scale is
 * autoscaling/v1 Scale, namespaces/finalize accepts only update.
 */
import { SUBRESOURCE_VERBS, type SubresourceType, type Verb } from '../resource-type.ts';
import { apiGroup } from '../../naming/index.ts';

export function status(kind: string): SubresourceType {
  return { name: 'status', kind, verbs: SUBRESOURCE_VERBS };
}

export const scale: SubresourceType = { name: 'scale', kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: SUBRESOURCE_VERBS };

export const finalize: SubresourceType = { name: 'finalize', kind: 'Namespace', verbs: ['update'] };

/** pods/binding: the scheduler's POST of a core/v1 Binding (create only, as the original). */
export const binding: SubresourceType = { name: 'binding', kind: 'Binding', verbs: ['create'] };

/** pods/eviction: a policy/v1 Eviction, honouring PodDisruptionBudgets. */
export const eviction: SubresourceType = { name: 'eviction', kind: 'Eviction', group: 'policy', version: 'v1', verbs: ['create'] };

/** pods/ephemeralcontainers: the pod, of which only spec.ephemeralContainers may change. */
export const ephemeralContainers: SubresourceType = { name: 'ephemeralcontainers', kind: 'Pod', verbs: SUBRESOURCE_VERBS };

/** serviceaccounts/token: an authentication/v1 TokenRequest (create only, as the original). */
export const tokenRequest: SubresourceType = { name: 'token', kind: 'TokenRequest', group: apiGroup('authentication'), version: 'v1', verbs: ['create'] };

export const approval: SubresourceType = { name: 'approval', kind: 'CertificateSigningRequest', verbs: SUBRESOURCE_VERBS };

/** Every verb but deletecollection, which namespaces do not serve. */
export const VERBS_WITHOUT_DELETECOLLECTION: Verb[] = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];

/** The category `kubectl get all` expands. */
export const ALL = ['all'];
export const API_EXTENSIONS = ['api-extensions'];
