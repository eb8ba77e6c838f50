/**
 * The fields each resource type can be filtered on with a field selector, as
 * the original's per-type GetAttrs/field label conversion functions allow.
 * Every type supports metadata.name and metadata.namespace; anything not
 * listed is answered with 400 "field label not supported".
 */
import { parseFieldSelector } from '../selectors/index.ts';
import { errors } from '../api/status.ts';
import { apiGroup } from '../naming/index.ts';

const COMMON = ['metadata.name', 'metadata.namespace'];

const BY_RESOURCE: Record<string, readonly string[]> = {
  '/pods': ['spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName', 'spec.hostNetwork', 'status.phase', 'status.podIP', 'status.podIPs', 'status.nominatedNodeName'],
  '/secrets': ['type'],
  '/events': [
    'involvedObject.kind', 'involvedObject.namespace', 'involvedObject.name', 'involvedObject.uid', 'involvedObject.apiVersion',
    'involvedObject.resourceVersion', 'involvedObject.fieldPath', 'reason', 'reportingComponent', 'source', 'type',
  ],
  [`${apiGroup('events')}/events`]: [
    'regarding.kind', 'regarding.namespace', 'regarding.name', 'regarding.uid', 'regarding.apiVersion', 'regarding.resourceVersion',
    'regarding.fieldPath', 'reason', 'reportingController', 'type',
  ],
  '/namespaces': ['status.phase'],
  '/nodes': ['spec.unschedulable'],
  '/replicationcontrollers': ['status.replicas'],
  'apps/replicasets': ['status.replicas'],
  'batch/jobs': ['status.successful'],
  '/services': ['spec.clusterIP', 'spec.type'],
  '/persistentvolumeclaims': ['spec.volumeName'],
  [`${apiGroup('certificates')}/certificatesigningrequests`]: ['spec.signerName'],
};

/** Field selectors name only fields the type supports; otherwise 400 as the original. */
export function checkFieldSelector(group: string, resource: string, selector: string | undefined): void {
  if (selector === undefined || selector === '') return;
  const supported = BY_RESOURCE[`${group}/${resource}`] ?? [];
  for (const req of parseFieldSelector(selector).requirements) {
    if (!COMMON.includes(req.field) && !supported.includes(req.field)) {
      throw errors.badRequest(`field label not supported: ${req.field}`);
    }
  }
}

/** Core events store `involvedObject`, so an events.<suffix> selector is translated to the stored names. */
export const EVENTS_V1_FIELD_TO_CORE: Readonly<Record<string, string>> = {
  'regarding.kind': 'involvedObject.kind',
  'regarding.namespace': 'involvedObject.namespace',
  'regarding.name': 'involvedObject.name',
  'regarding.uid': 'involvedObject.uid',
  'regarding.apiVersion': 'involvedObject.apiVersion',
  'regarding.resourceVersion': 'involvedObject.resourceVersion',
  'regarding.fieldPath': 'involvedObject.fieldPath',
  reportingController: 'reportingComponent',
};
