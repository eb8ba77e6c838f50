/**
 * NodeRestriction: what a node (`system:node:<name>` in `system:nodes`) may
 * write, as the original's plugin (plugin/pkg/admission/noderestriction,
 * v1.32), with its messages:
 *
 * - pods: create mirror pods bound to itself (owned by its Node, no service
 *   account, secrets, config maps, claims or trust bundles), delete pods
 *   bound to itself, update the status of its pods (not their labels),
 *   evict its pods; any other pod subresource is refused;
 * - its own Node only: no configSource, no taint changes, no labels under
 *   `node-restriction.<domain>` nor unknown labels under the product's
 *   domains (the node agent's own are allowed);
 * - PVCs: status updates touching only capacity, conditions and allocation;
 * - service account tokens only bound to one of its pods (uid checked);
 * - its own Lease in the node-lease namespace, its own CSINode;
 * - node CSRs (serving and client signers) only with CN=system:node:<name>.
 *
 * Existing pods and nodes are read from the watch cache.
 */
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';
import type { AdmissionPluginFactory } from '../plugin-table.ts';
import type { KObject } from '../../registry/object.ts';
import { jsonEqual } from '../../registry/object.ts';
import { errors, type StatusError } from '../../api/status.ts';
import { apiGroup, names } from '../../naming/index.ts';
import { nodeIdentity, NODE_USER_PREFIX } from '../../authz/node/authorizer.ts';
import { podRefs } from '../../authz/node/refs.ts';
import { admissionForbidden, list, record, str } from './admission-errors.ts';
import { parseCsrSubject } from './csr-subject.ts';

export interface NodeRestrictionObjects {
  pod(namespace: string, name: string): Promise<KObject | null>;
  node(name: string): Promise<KObject | null>;
}

type Kind = 'pods' | 'nodes' | 'pvcs' | 'serviceaccounts' | 'leases' | 'csinodes' | 'csrs';

function kindOf(group: string, resource: string): Kind | undefined {
  if (group === '') {
    if (resource === 'pods') return 'pods';
    if (resource === 'nodes') return 'nodes';
    if (resource === 'persistentvolumeclaims') return 'pvcs';
    if (resource === 'serviceaccounts') return 'serviceaccounts';
    return undefined;
  }
  if (group === apiGroup('coordination') && resource === 'leases') return 'leases';
  if (group === apiGroup('storage') && resource === 'csinodes') return 'csinodes';
  if (group === apiGroup('certificates') && resource === 'certificatesigningrequests') return 'csrs';
  return undefined;
}

function labelNamespace(key: string): string {
  const i = key.indexOf('/');
  return i < 0 ? '' : key.slice(0, i);
}

function inDomain(namespace: string, domain: string): boolean {
  return namespace === domain || namespace.endsWith(`.${domain}`);
}

/** Label keys added, removed or changed between the two maps. */
export function modifiedLabels(a: Record<string, string> | undefined, b: Record<string, string> | undefined): Set<string> {
  const out = new Set<string>();
  const x = a ?? {};
  const y = b ?? {};
  for (const [k, v] of Object.entries(x)) if (!(k in y) || y[k] !== v) out.add(k);
  for (const [k, v] of Object.entries(y)) if (!(k in x) || x[k] !== v) out.add(k);
  return out;
}

/** getForbiddenLabels: node-restriction labels, and product labels that are not the node agent's. Sorted, as sets.String.List(). */
export function forbiddenNodeLabels(modified: Iterable<string>): string[] {
  const n = names.admissionNames;
  const agentLabels = new Set(n.nodeAgentLabels);
  const out: string[] = [];
  for (const label of modified) {
    const ns = labelNamespace(label);
    const restricted = n.nodeRestrictionLabelDomains.some((d) => inDomain(ns, d));
    const reserved = n.reservedLabelDomains.some((d) => inDomain(ns, d));
    const agent = agentLabels.has(label) || n.nodeAgentLabelDomains.some((d) => inDomain(ns, d));
    if (restricted || (reserved && !agent)) out.push(label);
  }
  return out.sort();
}

function labelsOf(o: KObject): Record<string, string> | undefined {
  const l = o.metadata.labels;
  return typeof l === 'object' && l !== null ? l : undefined;
}

function notFound(rt: { group: string; resource: string }, name: string): StatusError {
  return errors.notFound(rt.group, rt.resource, name);
}

export function nodeRestriction(objects: NodeRestrictionObjects): AdmissionPlugin {
  const podsRt = { group: '', resource: 'pods' };
  const nodesRt = { group: '', resource: 'nodes' };

  async function admitPodCreate(node: string, a: AdmissionAttributes): Promise<void> {
    const pod = a.object;
    if (pod === null) throw admissionForbidden(a, 'unexpected type <nil>');
    const ann = pod.metadata.annotations ?? {};
    const mirror = names.annotations.mirrorPod;
    if (!(mirror in ann)) throw admissionForbidden(a, `pod does not have ${JSON.stringify(mirror)} annotation, node ${JSON.stringify(node)} can only create mirror pods`);
    const spec = record(pod['spec']);
    if ((str(spec['nodeName']) ?? '') !== node) throw admissionForbidden(a, `node ${JSON.stringify(node)} can only create pods with spec.nodeName set to itself`);
    const owners = list(pod.metadata.ownerReferences);
    if (owners.length > 1) throw admissionForbidden(a, `node ${JSON.stringify(node)} can only create pods with a single owner reference set to itself`);
    if (owners.length === 0) throw admissionForbidden(a, `node ${JSON.stringify(node)} can only create pods with an owner reference set to itself`);
    const owner = record(owners[0]);
    if (owner['apiVersion'] !== 'v1' || owner['kind'] !== 'Node' || owner['name'] !== node) {
      throw admissionForbidden(a, `node ${JSON.stringify(node)} can only create pods with an owner reference set to itself`);
    }
    if (owner['controller'] !== true) throw admissionForbidden(a, `node ${JSON.stringify(node)} can only create pods with a controller owner reference set to itself`);
    if (owner['blockOwnerDeletion'] === true) throw admissionForbidden(a, `node ${JSON.stringify(node)} must not set blockOwnerDeletion on an owner reference`);
    const nodeObj = await objects.node(node);
    if (nodeObj === null) throw notFound(nodesRt, node);
    const ownerUid = str(owner['uid']) ?? '';
    if (ownerUid !== (nodeObj.metadata.uid ?? '')) throw admissionForbidden(a, `node ${node} UID mismatch: expected ${ownerUid} got ${nodeObj.metadata.uid ?? ''}`);

    if ((str(spec['serviceAccountName']) ?? '') !== '') throw admissionForbidden(a, `node ${JSON.stringify(node)} can not create pods that reference a service account`);
    const refs = podRefs(pod);
    if (refs.secrets.size > 0) throw admissionForbidden(a, `node ${JSON.stringify(node)} can not create pods that reference secrets`);
    if (refs.configMaps.size > 0) throw admissionForbidden(a, `node ${JSON.stringify(node)} can not create pods that reference configmaps`);
    const volumes = list(spec['volumes']).map(record);
    for (const v of volumes) {
      for (const src of list(record(v['projected'])['sources']).map(record)) {
        if (src['clusterTrustBundle'] !== undefined && src['clusterTrustBundle'] !== null) {
          throw admissionForbidden(a, `node ${JSON.stringify(node)} can not create pods that reference clustertrustbundles`);
        }
      }
    }
    for (const v of volumes) {
      if (v['persistentVolumeClaim'] !== undefined && v['persistentVolumeClaim'] !== null) {
        throw admissionForbidden(a, `node ${JSON.stringify(node)} can not create pods that reference persistentvolumeclaims`);
      }
    }
  }

  async function existingPodOn(node: string, a: AdmissionAttributes, podName: string, wrong: string): Promise<void> {
    const pod = await objects.pod(a.namespace, podName);
    if (pod === null) throw notFound(podsRt, podName);
    if ((str(record(pod['spec'])['nodeName']) ?? '') !== node) throw admissionForbidden(a, wrong);
  }

  async function admitPod(node: string, a: AdmissionAttributes): Promise<void> {
    switch (a.subresource) {
      case '':
        if (a.operation === 'CREATE') return admitPodCreate(node, a);
        if (a.operation === 'DELETE') return existingPodOn(node, a, a.name, `node ${JSON.stringify(node)} can only delete pods with spec.nodeName set to itself`);
        throw admissionForbidden(a, `unexpected operation ${JSON.stringify(a.operation)}, node ${JSON.stringify(node)} can only create and delete mirror pods`);
      case 'status': {
        if (a.operation !== 'UPDATE') throw admissionForbidden(a, `unexpected operation ${JSON.stringify(a.operation)}`);
        const old = a.oldObject;
        if (old === null) throw admissionForbidden(a, 'unexpected type <nil>');
        if ((str(record(old['spec'])['nodeName']) ?? '') !== node) {
          throw admissionForbidden(a, `node ${JSON.stringify(node)} can only update pod status for pods with spec.nodeName set to itself`);
        }
        const pod = a.object;
        if (pod === null) throw admissionForbidden(a, 'unexpected type <nil>');
        if (modifiedLabels(labelsOf(old), labelsOf(pod)).size > 0) throw admissionForbidden(a, `node ${JSON.stringify(node)} cannot update labels through pod status`);
        if (!claimStatusesEqual(record(old['status'])['resourceClaimStatuses'], record(pod['status'])['resourceClaimStatuses'])) {
          throw admissionForbidden(a, `node ${JSON.stringify(node)} cannot update resource claim statues`);
        }
        return;
      }
      case 'eviction': {
        if (a.operation !== 'CREATE') throw admissionForbidden(a, `unexpected operation ${a.operation}`);
        // The request's pod name, else the Eviction's own name.
        const podName = a.name !== '' ? a.name : (a.object?.metadata.name ?? '');
        if (podName === '') throw admissionForbidden(a, 'could not determine pod from request data');
        return existingPodOn(node, a, podName, `node ${node} can only evict pods with spec.nodeName set to itself`);
      }
      default:
        throw admissionForbidden(a, `unexpected pod subresource ${JSON.stringify(a.subresource)}, only 'status' and 'eviction' are allowed`);
    }
  }

  function admitNode(node: string, a: AdmissionAttributes): void {
    if (a.name !== node) throw admissionForbidden(a, `node ${JSON.stringify(node)} is not allowed to modify node ${JSON.stringify(a.name)}`);
    if (a.operation === 'CREATE') {
      const obj = a.object;
      if (obj === null) throw admissionForbidden(a, 'unexpected type <nil>');
      if (present(record(obj['spec'])['configSource'])) {
        throw admissionForbidden(a, `node ${JSON.stringify(node)} is not allowed to create pods with a non-nil configSource`);
      }
      const forbidden = forbiddenNodeLabels(modifiedLabels(labelsOf(obj), undefined));
      if (forbidden.length > 0) throw admissionForbidden(a, `node ${JSON.stringify(node)} is not allowed to set the following labels: ${forbidden.join(', ')}`);
    }
    if (a.operation === 'UPDATE') {
      const obj = a.object;
      const old = a.oldObject;
      if (obj === null || old === null) throw admissionForbidden(a, 'unexpected type <nil>');
      const spec = record(obj['spec']);
      const oldSpec = record(old['spec']);
      if (present(spec['configSource']) && !jsonEqual(spec['configSource'], oldSpec['configSource'] ?? null)) {
        throw admissionForbidden(a, `node ${JSON.stringify(node)} is not allowed to update configSource to a new non-nil configSource`);
      }
      if (!jsonEqual(nonEmpty(spec['taints']), nonEmpty(oldSpec['taints']))) throw admissionForbidden(a, `node ${JSON.stringify(node)} is not allowed to modify taints`);
      const forbidden = forbiddenNodeLabels(modifiedLabels(labelsOf(obj), labelsOf(old)));
      if (forbidden.length > 0) throw admissionForbidden(a, `is not allowed to modify labels: ${forbidden.join(', ')}`);
    }
  }

  function admitPvcStatus(node: string, a: AdmissionAttributes): void {
    if (a.subresource !== 'status') throw admissionForbidden(a, 'may only update PVC status');
    if (a.operation !== 'UPDATE') throw admissionForbidden(a, `unexpected operation ${JSON.stringify(a.operation)}`);
    if (a.oldObject === null || a.object === null) throw admissionForbidden(a, 'unexpected type <nil>');
    const before = comparablePvc(a.oldObject);
    const after = comparablePvc(a.object);
    const diff = differingPaths(before, after);
    if (diff.length > 0) {
      throw admissionForbidden(a, `node ${JSON.stringify(node)} is not allowed to update fields other than status.quantity and status.conditions: ${diff.join(', ')}`);
    }
  }

  async function admitServiceAccount(a: AdmissionAttributes, node: string): Promise<void> {
    if (a.operation !== 'CREATE' || a.subresource !== 'token') return;
    const tr = a.object;
    if (tr === null) throw admissionForbidden(a, 'unexpected type <nil>');
    const ref = record(record(tr['spec'])['boundObjectRef']);
    const refName = str(ref['name']) ?? '';
    if (ref['apiVersion'] !== 'v1' || ref['kind'] !== 'Pod' || refName === '') throw admissionForbidden(a, 'node requested token not bound to a pod');
    const refUid = str(ref['uid']) ?? '';
    if (refUid === '') throw admissionForbidden(a, 'node requested token with a pod binding without a uid');
    const pod = await objects.pod(a.namespace, refName);
    if (pod === null) throw notFound(podsRt, refName);
    if (refUid !== pod.metadata.uid) {
      throw admissionForbidden(a, `the UID in the bound object reference (${refUid}) does not match the UID in record. The object might have been deleted and then recreated`);
    }
    if ((str(record(pod['spec'])['nodeName']) ?? '') !== node) throw admissionForbidden(a, 'node requested token bound to a pod scheduled on a different node');
  }

  function admitLease(node: string, a: AdmissionAttributes): void {
    const leaseNs = names.nodeLeaseNamespace;
    if (a.namespace !== leaseNs) throw admissionForbidden(a, `can only access leases in the ${JSON.stringify(leaseNs)} system namespace`);
    const name = a.operation === 'CREATE' ? (a.object?.metadata.name ?? '') : a.name;
    if (name !== node) throw admissionForbidden(a, 'can only access node lease with the same name as the requesting node');
  }

  function admitCsiNode(node: string, a: AdmissionAttributes): void {
    const name = a.operation === 'CREATE' ? (a.object?.metadata.name ?? '') : a.name;
    if (name !== node) throw admissionForbidden(a, 'can only access CSINode with the same name as the requesting node');
  }

  function admitCsr(node: string, a: AdmissionAttributes): void {
    if (a.operation !== 'CREATE' || a.subresource !== '') return;
    const csr = a.object;
    if (csr === null) throw admissionForbidden(a, 'unexpected type <nil>');
    const spec = record(csr['spec']);
    const signer = spec['signerName'];
    if (signer !== names.signers.nodeAgentServing && signer !== names.signers.apiServerClientNodeAgent) return;
    const subject = parseCsrSubject(spec['request']);
    if ('error' in subject) throw admissionForbidden(a, `unable to parse csr: ${subject.error}`);
    if (subject.commonName !== `${NODE_USER_PREFIX}${node}`) throw admissionForbidden(a, `can only create a node CSR with CN=${NODE_USER_PREFIX}${node}`);
  }

  return {
    name: 'NodeRestriction',
    handles: (rt, _sub, op) => op !== 'CONNECT' && kindOf(rt.group, rt.resource) !== undefined,
    // Synchronous for everyone but nodes: a pod write by anyone else costs no promise.
    admit(a: AdmissionAttributes): Promise<void> | void {
      if (a.user === undefined) return;
      const id = nodeIdentity(a.user);
      if (id === undefined) return; // only nodes are restricted
      const node = id.nodeName;
      if (node === '') throw admissionForbidden(a, `could not determine node from user ${JSON.stringify(a.user.name)}`);
      switch (kindOf(a.resourceType.group, a.resourceType.resource)) {
        case 'pods':
          return admitPod(node, a);
        case 'nodes':
          return admitNode(node, a);
        case 'pvcs':
          return admitPvcStatus(node, a);
        case 'serviceaccounts':
          return admitServiceAccount(a, node);
        case 'leases':
          return admitLease(node, a);
        case 'csinodes':
          return admitCsiNode(node, a);
        case 'csrs':
          return admitCsr(node, a);
        default:
          return;
      }
    },
  };
}

function present(v: unknown): boolean {
  return v !== undefined && v !== null;
}

/** Absent, null and empty lists compare equal (Semantic.DeepEqual of nil and empty slices in these fields). */
function nonEmpty(v: unknown): unknown {
  return Array.isArray(v) && v.length > 0 ? v : null;
}

function claimStatusesEqual(a: unknown, b: unknown): boolean {
  const x = list(a).map(record);
  const y = list(b).map(record);
  if (x.length !== y.length) return false;
  return x.every((s, i) => s['name'] === y[i]!['name'] && (s['resourceClaimName'] ?? null) === (y[i]!['resourceClaimName'] ?? null));
}

/** A PVC without what a node may change: resourceVersion, managedFields, status capacity, conditions and allocation. */
function comparablePvc(pvc: KObject): Record<string, unknown> {
  const { resourceVersion: _rv, managedFields: _mf, ...metadata } = pvc.metadata;
  const { capacity: _c, conditions: _cond, allocatedResources: _ar, allocatedResourceStatuses: _ars, ...status } = record(pvc['status']);
  return { ...pvc, metadata, status };
}

/** Dotted paths at which two JSON values differ (a short stand-in for the original's cmp.Diff). */
function differingPaths(a: unknown, b: unknown, path = '', out: string[] = []): string[] {
  if (out.length >= 10) return out;
  const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (isObj(a) && isObj(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) differingPaths(a[k], b[k], path === '' ? k : `${path}.${k}`, out);
    return out;
  }
  if (!jsonEqual(a ?? null, b ?? null)) out.push(path);
  return out;
}

export const nodeRestrictionFactory: AdmissionPluginFactory = {
  name: 'NodeRestriction',
  create(deps) {
    const pods = deps.lookup.type('', 'v1', 'pods')!;
    const nodes = deps.lookup.type('', 'v1', 'nodes')!;
    return nodeRestriction({
      pod: (namespace, name) => deps.lookup.get(pods, namespace, name),
      node: (name) => deps.lookup.get(nodes, '', name),
    });
  },
};
