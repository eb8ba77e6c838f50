/**
 * NodeRestriction with rows of the original's test table
 * (plugin/pkg/admission/noderestriction/admission_test.go): mirror pods,
 * pod deletion, status and eviction, the node's own Node object and its
 * labels and taints, PVC status, bound service account tokens, leases,
 * CSINodes and node CSRs. Non-node users pass untouched.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiGroup, names } from '../../src/naming/index.ts';
import type { KObject } from '../../src/registry/object.ts';
import type { Operation } from '../../src/admission/types.ts';
import type { ResourceType } from '../../src/registry/resource-type.ts';
import { nodeRestriction, forbiddenNodeLabels } from '../../src/admission/plugins/node-restriction.ts';
import { attrs, b64, csrPem, obj, rt, run } from './misc-support.ts';

const MYNODE = { name: 'system:node:mynode', groups: ['system:nodes', 'system:authenticated'] };
const NONAME = { name: 'system:node:', groups: ['system:nodes'] };
const BOB = { name: 'bob', groups: ['system:authenticated'] };
const D = names.domain;

const pods = rt('', 'v1', 'pods');
const nodes = rt('', 'v1', 'nodes');
const pvcs = rt('', 'v1', 'persistentvolumeclaims');
const sas = rt('', 'v1', 'serviceaccounts');
const leases = rt(apiGroup('coordination'), 'v1', 'leases');
const csinodes = rt(apiGroup('storage'), 'v1', 'csinodes');
const csrs = rt(apiGroup('certificates'), 'v1', 'certificatesigningrequests');
const configmaps = rt('', 'v1', 'configmaps');

const mynodeObj = obj('Node', { name: 'mynode', uid: 'mynode-uid' });
const pod = (name: string, nodeName: string, extra: { spec?: Record<string, unknown>; meta?: KObject['metadata'] } = {}): KObject =>
  obj('Pod', { name, namespace: 'ns', uid: `${name}-uid`, ...(extra.meta ?? {}) }, { spec: { nodeName, containers: [{ name: 'c', image: 'i' }], ...(extra.spec ?? {}) } });
const existing = [pod('mynodepod', 'mynode'), pod('othernodepod', 'othernode'), pod('unboundpod', '')];

const plugin = nodeRestriction({
  pod: async (ns, name) => existing.find((p) => p.metadata.namespace === ns && p.metadata.name === name) ?? null,
  node: async (name) => (name === 'mynode' ? mynodeObj : null),
});

const ownerSelf = { apiVersion: 'v1', kind: 'Node', name: 'mynode', uid: 'mynode-uid', controller: true };
const mirror = { annotations: { [names.annotations.mirrorPod]: '' }, ownerReferences: [ownerSelf] };
const mirrorPod = (spec: Record<string, unknown> = {}, meta: KObject['metadata'] = {}, nodeName = 'mynode'): KObject =>
  pod('mirror', nodeName, { spec, meta: { ...mirror, ...meta } });

interface Row {
  name: string;
  rt: ResourceType;
  op: Operation;
  sub?: string;
  ns?: string;
  objName?: string;
  obj?: KObject | null;
  old?: KObject | null;
  user?: typeof MYNODE;
  err?: string | RegExp;
}

const forbidden = (qr: string, name: string, why: string): string => `${qr} "${name}" is forbidden: ${why}`;

const rows: Row[] = [
  // Mirror pods.
  { name: 'allow creating a mirror pod bound to self', rt: pods, op: 'CREATE', ns: 'ns', objName: 'mirror', obj: mirrorPod() },
  { name: 'forbid creating a mirror pod bound to another', rt: pods, op: 'CREATE', ns: 'ns', objName: 'mirror', obj: mirrorPod({}, {}, 'othernode'), err: forbidden('pods', 'mirror', 'node "mynode" can only create pods with spec.nodeName set to itself') },
  { name: 'forbid creating a non-mirror pod', rt: pods, op: 'CREATE', ns: 'ns', objName: 'p', obj: pod('p', 'mynode'), err: forbidden('pods', 'p', `pod does not have "${names.annotations.mirrorPod}" annotation, node "mynode" can only create mirror pods`) },
  { name: 'forbid a mirror pod without an owner', rt: pods, op: 'CREATE', ns: 'ns', objName: 'mirror', obj: mirrorPod({}, { ownerReferences: [] }), err: /can only create pods with an owner reference set to itself/ },
  { name: 'forbid a mirror pod with two owners', rt: pods, op: 'CREATE', ns: 'ns', objName: 'mirror', obj: mirrorPod({}, { ownerReferences: [ownerSelf, ownerSelf] }), err: /with a single owner reference set to itself/ },
  { name: 'forbid a mirror pod owned by another node', rt: pods, op: 'CREATE', ns: 'ns', objName: 'mirror', obj: mirrorPod({}, { ownerReferences: [{ ...ownerSelf, name: 'othernode' }] }), err: /with an owner reference set to itself/ },
  { name: 'forbid a non-controller owner reference', rt: pods, op: 'CREATE', ns: 'ns', objName: 'mirror', obj: mirrorPod({}, { ownerReferences: [{ ...ownerSelf, controller: false }] }), err: /with a controller owner reference set to itself/ },
  { name: 'forbid blockOwnerDeletion', rt: pods, op: 'CREATE', ns: 'ns', objName: 'mirror', obj: mirrorPod({}, { ownerReferences: [{ ...ownerSelf, blockOwnerDeletion: true }] }), err: /must not set blockOwnerDeletion on an owner reference/ },
  { name: 'forbid a wrong node uid', rt: pods, op: 'CREATE', ns: 'ns', objName: 'mirror', obj: mirrorPod({}, { ownerReferences: [{ ...ownerSelf, uid: 'other' }] }), err: /node mynode UID mismatch: expected other got mynode-uid/ },
  { name: 'forbid a service account', rt: pods, op: 'CREATE', ns: 'ns', objName: 'mirror', obj: mirrorPod({ serviceAccountName: 'foo' }), err: /can not create pods that reference a service account/ },
  { name: 'forbid a secret volume', rt: pods, op: 'CREATE', ns: 'ns', objName: 'mirror', obj: mirrorPod({ volumes: [{ name: 'v', secret: { secretName: 'foo' } }] }), err: /can not create pods that reference secrets/ },
  { name: 'forbid a secret env', rt: pods, op: 'CREATE', ns: 'ns', objName: 'mirror', obj: mirrorPod({ containers: [{ name: 'c', image: 'i', env: [{ name: 'x', valueFrom: { secretKeyRef: { name: 'foo', key: 'k' } } }] }] }), err: /reference secrets/ },
  { name: 'forbid a configmap volume', rt: pods, op: 'CREATE', ns: 'ns', objName: 'mirror', obj: mirrorPod({ volumes: [{ name: 'v', configMap: { name: 'foo' } }] }), err: /can not create pods that reference configmaps/ },
  { name: 'forbid a configmap in an init container env', rt: pods, op: 'CREATE', ns: 'ns', objName: 'mirror', obj: mirrorPod({ initContainers: [{ name: 'i', image: 'i', envFrom: [{ configMapRef: { name: 'foo' } }] }] }), err: /reference configmaps/ },
  { name: 'forbid a persistentvolumeclaim', rt: pods, op: 'CREATE', ns: 'ns', objName: 'mirror', obj: mirrorPod({ volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'foo' } }] }), err: /can not create pods that reference persistentvolumeclaims/ },
  { name: 'forbid a clustertrustbundle', rt: pods, op: 'CREATE', ns: 'ns', objName: 'mirror', obj: mirrorPod({ volumes: [{ name: 'v', projected: { sources: [{ clusterTrustBundle: { name: 'b', path: 'p' } }] } }] }), err: /reference clustertrustbundles/ },
  // Pod delete, update, status, eviction, other subresources.
  { name: 'allow delete of pod bound to self', rt: pods, op: 'DELETE', ns: 'ns', objName: 'mynodepod', old: existing[0] },
  { name: 'forbid delete of pod bound to another', rt: pods, op: 'DELETE', ns: 'ns', objName: 'othernodepod', old: existing[1], err: forbidden('pods', 'othernodepod', 'node "mynode" can only delete pods with spec.nodeName set to itself') },
  { name: 'forbid delete of unbound pod', rt: pods, op: 'DELETE', ns: 'ns', objName: 'unboundpod', old: existing[2], err: /can only delete pods with spec.nodeName set to itself/ },
  { name: 'delete of a missing pod is NotFound', rt: pods, op: 'DELETE', ns: 'ns', objName: 'gone', old: pod('gone', 'mynode'), err: 'pods "gone" not found' },
  { name: 'forbid pod update', rt: pods, op: 'UPDATE', ns: 'ns', objName: 'mynodepod', obj: existing[0], old: existing[0], err: /unexpected operation "UPDATE", node "mynode" can only create and delete mirror pods/ },
  { name: 'allow pod status update of own pod', rt: pods, op: 'UPDATE', sub: 'status', ns: 'ns', objName: 'mynodepod', obj: existing[0], old: existing[0] },
  { name: 'forbid pod status update of other pod', rt: pods, op: 'UPDATE', sub: 'status', ns: 'ns', objName: 'othernodepod', obj: existing[1], old: existing[1], err: /can only update pod status for pods with spec.nodeName set to itself/ },
  {
    name: 'forbid pod status label changes',
    rt: pods, op: 'UPDATE', sub: 'status', ns: 'ns', objName: 'mynodepod',
    obj: pod('mynodepod', 'mynode', { meta: { labels: { a: 'b' } } }), old: existing[0],
    err: /cannot update labels through pod status/,
  },
  { name: 'allow eviction of own pod', rt: pods, op: 'CREATE', sub: 'eviction', ns: 'ns', objName: 'mynodepod', obj: obj('Eviction', { name: 'mynodepod', namespace: 'ns' }) },
  { name: 'forbid eviction of other pod', rt: pods, op: 'CREATE', sub: 'eviction', ns: 'ns', objName: 'othernodepod', obj: obj('Eviction', { name: 'othernodepod', namespace: 'ns' }), err: /node mynode can only evict pods with spec.nodeName set to itself/ },
  { name: 'eviction of a missing pod is NotFound', rt: pods, op: 'CREATE', sub: 'eviction', ns: 'ns', objName: 'gone', obj: obj('Eviction', { name: 'gone', namespace: 'ns' }), err: 'pods "gone" not found' },
  { name: 'forbid other pod subresources', rt: pods, op: 'CREATE', sub: 'binding', ns: 'ns', objName: 'mynodepod', obj: obj('Binding', { name: 'mynodepod' }), err: /unexpected pod subresource "binding", only 'status' and 'eviction' are allowed/ },
  // Nodes.
  { name: 'allow create of my node', rt: nodes, op: 'CREATE', objName: 'mynode', obj: obj('Node', { name: 'mynode', labels: { [`${D}/hostname`]: 'mynode', 'foo.bar/x': 'y', [`kubelet.${D}/x`]: 'y' } }) },
  { name: 'forbid create of other node', rt: nodes, op: 'CREATE', objName: 'othernode', obj: obj('Node', { name: 'othernode' }), err: forbidden('nodes', 'othernode', 'node "mynode" is not allowed to modify node "othernode"') },
  {
    name: 'forbid create of my node with forbidden labels',
    rt: nodes, op: 'CREATE', objName: 'mynode',
    obj: obj('Node', { name: 'mynode', labels: { [`node-restriction.${D}/foo`]: 'x', [`foo.node-restriction.${D}/foo`]: 'x', [`other.${D}/foo`]: 'x', [`node-role.${D}/master`]: '' } }),
    err: `nodes "mynode" is forbidden: node "mynode" is not allowed to set the following labels: foo.node-restriction.${D}/foo, node-restriction.${D}/foo, node-role.${D}/master, other.${D}/foo`,
  },
  { name: 'forbid create of my node with configSource', rt: nodes, op: 'CREATE', objName: 'mynode', obj: obj('Node', { name: 'mynode' }, { spec: { configSource: { configMap: {} } } }), err: /not allowed to create pods with a non-nil configSource/ },
  { name: 'allow update of my node status', rt: nodes, op: 'UPDATE', sub: 'status', objName: 'mynode', obj: obj('Node', { name: 'mynode' }, { status: { phase: 'Running' } }), old: obj('Node', { name: 'mynode' }) },
  { name: 'forbid taint changes', rt: nodes, op: 'UPDATE', objName: 'mynode', obj: obj('Node', { name: 'mynode' }, { spec: { taints: [{ key: 'a', effect: 'NoSchedule' }] } }), old: obj('Node', { name: 'mynode' }), err: /node "mynode" is not allowed to modify taints/ },
  {
    name: 'forbid removing a restricted label on update',
    rt: nodes, op: 'UPDATE', objName: 'mynode',
    obj: obj('Node', { name: 'mynode' }), old: obj('Node', { name: 'mynode', labels: { [`node-restriction.${D}/foo`]: 'x' } }),
    err: `nodes "mynode" is forbidden: is not allowed to modify labels: node-restriction.${D}/foo`,
  },
  { name: 'allow unchanged restricted labels on update', rt: nodes, op: 'UPDATE', objName: 'mynode', obj: obj('Node', { name: 'mynode', labels: { [`node-restriction.${D}/foo`]: 'x' } }), old: obj('Node', { name: 'mynode', labels: { [`node-restriction.${D}/foo`]: 'x' } }) },
  { name: 'forbid delete of other node', rt: nodes, op: 'DELETE', objName: 'othernode', old: obj('Node', { name: 'othernode' }), err: /not allowed to modify node "othernode"/ },
  // PVCs.
  {
    name: 'allow PVC status capacity and conditions',
    rt: pvcs, op: 'UPDATE', sub: 'status', ns: 'ns', objName: 'c',
    obj: obj('PersistentVolumeClaim', { name: 'c', namespace: 'ns', resourceVersion: '2' }, { status: { capacity: { storage: '2Gi' }, conditions: [{ type: 'Resizing', status: 'True' }] } }),
    old: obj('PersistentVolumeClaim', { name: 'c', namespace: 'ns', resourceVersion: '1' }, { status: { capacity: { storage: '1Gi' } } }),
  },
  {
    name: 'forbid PVC status with a label change',
    rt: pvcs, op: 'UPDATE', sub: 'status', ns: 'ns', objName: 'c',
    obj: obj('PersistentVolumeClaim', { name: 'c', namespace: 'ns', labels: { a: 'b' } }), old: obj('PersistentVolumeClaim', { name: 'c', namespace: 'ns' }),
    err: /node "mynode" is not allowed to update fields other than status.quantity and status.conditions: metadata.labels/,
  },
  { name: 'forbid PVC spec update', rt: pvcs, op: 'UPDATE', ns: 'ns', objName: 'c', obj: obj('PersistentVolumeClaim', { name: 'c' }), old: obj('PersistentVolumeClaim', { name: 'c' }), err: /may only update PVC status/ },
  { name: 'forbid PVC create', rt: pvcs, op: 'CREATE', ns: 'ns', objName: 'c', obj: obj('PersistentVolumeClaim', { name: 'c' }), err: /may only update PVC status/ },
  // Service account tokens.
  { name: 'allow a token bound to my pod', rt: sas, op: 'CREATE', sub: 'token', ns: 'ns', objName: 'default', obj: obj('TokenRequest', { name: 'default' }, { spec: { boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'mynodepod', uid: 'mynodepod-uid' } } }) },
  { name: 'forbid an unbound token', rt: sas, op: 'CREATE', sub: 'token', ns: 'ns', objName: 'default', obj: obj('TokenRequest', { name: 'default' }, { spec: {} }), err: /node requested token not bound to a pod/ },
  { name: 'forbid a token without a uid', rt: sas, op: 'CREATE', sub: 'token', ns: 'ns', objName: 'default', obj: obj('TokenRequest', { name: 'default' }, { spec: { boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'mynodepod' } } }), err: /node requested token with a pod binding without a uid/ },
  { name: 'forbid a token with a stale uid', rt: sas, op: 'CREATE', sub: 'token', ns: 'ns', objName: 'default', obj: obj('TokenRequest', { name: 'default' }, { spec: { boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'mynodepod', uid: 'old' } } }), err: /the UID in the bound object reference \(old\) does not match the UID in record/ },
  { name: 'forbid a token bound to another node\'s pod', rt: sas, op: 'CREATE', sub: 'token', ns: 'ns', objName: 'default', obj: obj('TokenRequest', { name: 'default' }, { spec: { boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'othernodepod', uid: 'othernodepod-uid' } } }), err: /node requested token bound to a pod scheduled on a different node/ },
  { name: 'service account writes other than tokens pass', rt: sas, op: 'CREATE', ns: 'ns', objName: 'sa', obj: obj('ServiceAccount', { name: 'sa' }) },
  // Leases and CSINodes.
  { name: 'allow create of my lease', rt: leases, op: 'CREATE', ns: names.nodeLeaseNamespace, objName: 'mynode', obj: obj('Lease', { name: 'mynode' }) },
  { name: 'forbid create of a lease of another node', rt: leases, op: 'CREATE', ns: names.nodeLeaseNamespace, objName: 'othernode', obj: obj('Lease', { name: 'othernode' }), err: /can only access node lease with the same name as the requesting node/ },
  { name: 'forbid a lease in another namespace', rt: leases, op: 'UPDATE', ns: 'ns', objName: 'mynode', obj: obj('Lease', { name: 'mynode' }), old: obj('Lease', { name: 'mynode' }), err: `leases.${apiGroup('coordination')} "mynode" is forbidden: can only access leases in the "${names.nodeLeaseNamespace}" system namespace` },
  { name: 'allow update of my CSINode', rt: csinodes, op: 'UPDATE', objName: 'mynode', obj: obj('CSINode', { name: 'mynode' }), old: obj('CSINode', { name: 'mynode' }) },
  { name: 'forbid delete of another CSINode', rt: csinodes, op: 'DELETE', objName: 'othernode', old: obj('CSINode', { name: 'othernode' }), err: /can only access CSINode with the same name as the requesting node/ },
  // Not a node, an unnamed node, a type the plugin ignores.
  { name: 'other users pass', rt: pods, op: 'CREATE', ns: 'ns', objName: 'p', obj: pod('p', 'othernode'), user: BOB },
  { name: 'a node without a name is refused', rt: pods, op: 'CREATE', ns: 'ns', objName: 'p', obj: pod('p', 'x'), user: NONAME, err: 'pods "p" is forbidden: could not determine node from user "system:node:"' },
  { name: 'config maps are not this plugin\'s', rt: configmaps, op: 'CREATE', ns: 'ns', objName: 'c', obj: obj('ConfigMap', { name: 'c' }) },
];

test('NodeRestriction: the original table', async () => {
  for (const r of rows) {
    const a = attrs({ rt: r.rt, op: r.op, sub: r.sub, ns: r.ns, name: r.objName, obj: r.obj ?? null, old: r.old ?? null, user: r.user ?? MYNODE });
    const err = await run(plugin, a);
    if (r.err === undefined) assert.equal(err, undefined, `${r.name}: ${err?.message}`);
    else if (typeof r.err === 'string') assert.equal(err?.message, r.err, r.name);
    else assert.match(err?.message ?? '<allowed>', r.err, r.name);
    if (err !== undefined && !/not found/.test(err.message)) assert.equal(err.code, 403, r.name);
  }
});

test('NodeRestriction: node CSRs must name the node', async () => {
  const req = async (cn: string, signer: string): Promise<KObject> =>
    obj('CertificateSigningRequest', { name: 'csr' }, { spec: { signerName: signer, request: b64(await csrPem(`CN=${cn}, O=system:nodes`)) } });
  const check = async (o: KObject) => run(plugin, attrs({ rt: csrs, op: 'CREATE', name: 'csr', obj: o, user: MYNODE }));
  assert.equal(await check(await req('system:node:mynode', names.signers.nodeAgentServing)), undefined);
  assert.equal(await check(await req('system:node:mynode', names.signers.apiServerClientNodeAgent)), undefined);
  const bad = await check(await req('system:node:othernode', names.signers.nodeAgentServing));
  assert.equal(bad?.message, `certificatesigningrequests.${apiGroup('certificates')} "csr" is forbidden: can only create a node CSR with CN=system:node:mynode`);
  assert.equal(await check(await req('anything', 'example.com/custom')), undefined, 'other signers are left to the signer');
  const garbage = await check(obj('CertificateSigningRequest', { name: 'csr' }, { spec: { signerName: names.signers.nodeAgentServing, request: b64('junk') } }));
  assert.match(garbage?.message ?? '', /unable to parse csr: PEM block type must be CERTIFICATE REQUEST/);
});

test('NodeRestriction: forbidden labels (the original getForbiddenLabels cases)', () => {
  assert.deepEqual(forbiddenNodeLabels([`${D}/hostname`, `topology.${D}/zone`, `node.${D}/instance-type`, `kubelet.${D}/foo`, `foo.node.${D}/bar`, 'example.com/x', 'plain']), []);
  assert.deepEqual(forbiddenNodeLabels([`node-restriction.${D}/a`, `${D}/foo`, `foo.${D}/bar`]), [`${D}/foo`, `foo.${D}/bar`, `node-restriction.${D}/a`].sort());
});
