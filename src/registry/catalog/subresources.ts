/**
 * The subresources the catalog serves, shaped as the original's discovery
 * lists them: status/approval read and replace part of the parent, scale is
 * autoscaling/v1 Scale, namespaces/finalize accepts only update.
 */
import { SUBRESOURCE_VERBS, type SubresourceType, type Verb } from '../resource-type.ts';

export function status(kind: string): SubresourceType {
  return { name: 'status', kind, verbs: SUBRESOURCE_VERBS };
}

export const scale: SubresourceType = { name: 'scale', kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: SUBRESOURCE_VERBS };

export const finalize: SubresourceType = { name: 'finalize', kind: 'Namespace', verbs: ['update'] };

export const approval: SubresourceType = { name: 'approval', kind: 'CertificateSigningRequest', verbs: SUBRESOURCE_VERBS };

/** Every verb but deletecollection, which namespaces do not serve. */
export const VERBS_WITHOUT_DELETECOLLECTION: Verb[] = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];

/** The category `kubectl get all` expands. */
export const ALL = ['all'];
export const API_EXTENSIONS = ['api-extensions'];
