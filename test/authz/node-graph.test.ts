/**
 * The node graph and the Node authorizer's decisions without a server:
 * reference counting across pods, PV secrets reached through claims,
 * volume attachments, resets, and the original's per-resource verb rules.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { NodeGraph, NodeAuthorizer } from '../../src/authz/node/index.ts';
import type { KObject } from '../../src/registry/object.ts';
import { apiGroup, names } from '../../src/naming/index.ts';
import { attrs } from './support.ts';

const podObj = (name: string, nodeName: string, spec: Record<string, unknown>): KObject => ({ metadata: { name, namespace: 'ns' }, spec: { nodeName, ...spec } }) as KObject;
const node = (n: string) => ({ name: `system:node:${n}`, groups: ['system:nodes', 'system:authenticated'] });

describe('NodeGraph', () => {
  it('counts references: a secret stays reachable until the last pod naming it goes', () => {
    const g = new NodeGraph();
    g.setPod(podObj('a', 'n1', { volumes: [{ name: 'v', secret: { secretName: 's' } }] }));
    g.setPod(podObj('b', 'n1', { containers: [{ name: 'c', envFrom: [{ secretRef: { name: 's' } }] }] }));
    assert.equal(g.hasPathFrom('n1', 'secret', 'ns', 's'), true);
    g.deletePod('ns/a');
    assert.equal(g.hasPathFrom('n1', 'secret', 'ns', 's'), true);
    g.deletePod('ns/b');
    assert.equal(g.hasPathFrom('n1', 'secret', 'ns', 's'), false);
    assert.equal(g.hasPathFrom('n1', 'secret', 'other', 's'), false);
  });

  it('moves a pod rebound to another node, and forgets pods whose node is cleared', () => {
    const g = new NodeGraph();
    g.setPod(podObj('a', 'n1', { serviceAccountName: 'sa', volumes: [{ name: 'e', ephemeral: { volumeClaimTemplate: {} } }] }));
    assert.equal(g.hasPathFrom('n1', 'serviceaccount', 'ns', 'sa'), true);
    assert.equal(g.hasPathFrom('n1', 'pvc', 'ns', 'a-e'), true);
    g.setPod(podObj('a', 'n2', { serviceAccountName: 'sa' }));
    assert.equal(g.hasPathFrom('n1', 'serviceaccount', 'ns', 'sa'), false);
    assert.equal(g.hasPathFrom('n2', 'serviceaccount', 'ns', 'sa'), true);
    g.setPod(podObj('a', '', { serviceAccountName: 'sa' }));
    assert.equal(g.hasPathFrom('n2', 'serviceaccount', 'ns', 'sa'), false);
    assert.equal(g.podCount, 0);
  });

  it("reaches a PV and its node-visible secrets through the pod's claim; not its controller secrets", () => {
    const g = new NodeGraph();
    g.setPv({ metadata: { name: 'pv' }, spec: { claimRef: { namespace: 'ns', name: 'c' }, csi: { nodePublishSecretRef: { name: 'pub', namespace: 'sec' }, controllerPublishSecretRef: { name: 'ctl', namespace: 'sec' } } } } as KObject);
    assert.equal(g.hasPathFrom('n1', 'pv', '', 'pv'), false);
    g.setPod(podObj('a', 'n1', { volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'c' } }] }));
    assert.equal(g.hasPathFrom('n1', 'pv', '', 'pv'), true);
    assert.equal(g.hasPathFrom('n1', 'secret', 'sec', 'pub'), true);
    assert.equal(g.hasPathFrom('n1', 'secret', 'sec', 'ctl'), false);
    g.deletePv('pv');
    assert.equal(g.hasPathFrom('n1', 'secret', 'sec', 'pub'), false);
  });

  it('drops one source on reset', () => {
    const g = new NodeGraph();
    g.setPod(podObj('a', 'n1', { volumes: [{ name: 'v', configMap: { name: 'cm' } }] }));
    g.setAttachment({ metadata: { name: 'va' }, spec: { nodeName: 'n1' } } as KObject);
    g.reset('pods');
    assert.equal(g.hasPathFrom('n1', 'configmap', 'ns', 'cm'), false);
    assert.equal(g.hasPathFrom('n1', 'volumeattachment', '', 'va'), true);
  });

  it('skips malformed stored objects instead of throwing', () => {
    const g = new NodeGraph();
    g.setPod({ metadata: { name: 'x', namespace: 'ns' }, spec: { nodeName: 'n1', volumes: 'nope', containers: [null, { env: [{ valueFrom: 3 }] }] } } as unknown as KObject);
    g.setPv({ metadata: { name: 'p' }, spec: { claimRef: 'x' } } as unknown as KObject);
    assert.equal(g.podCount, 1);
  });
});

describe('NodeAuthorizer', () => {
  const g = new NodeGraph();
  g.setPod(podObj('a', 'n1', { serviceAccountName: 'sa', volumes: [{ name: 'v', secret: { secretName: 's' } }, { name: 'd', persistentVolumeClaim: { claimName: 'c' } }] }));
  const authz = new NodeAuthorizer(g);
  const decide = (o: Parameters<typeof attrs>[0]) => authz.authorize(attrs(o));

  it('has no opinion on users that are not nodes, nor on a node user outside system:nodes', () => {
    assert.deepEqual(decide({ user: { name: 'bob', groups: [] }, resource: 'secrets', verb: 'get', name: 's', namespace: 'ns' }), { decision: 'noOpinion', reason: '' });
    assert.equal(decide({ user: { name: 'system:node:n1', groups: [] }, resource: 'pods' }).decision, 'noOpinion');
  });

  it('follows the original verb rules per graph-bound resource', () => {
    const n1 = node('n1');
    const cases: Array<[Parameters<typeof attrs>[0], string, string]> = [
      [{ resource: 'secrets', verb: 'get', name: 's', namespace: 'ns' }, 'allow', ''],
      [{ resource: 'secrets', verb: 'watch', name: 's', namespace: 'ns' }, 'allow', ''],
      [{ resource: 'secrets', verb: 'list', name: '', namespace: 'ns' }, 'noOpinion', 'No Object name found'],
      [{ resource: 'secrets', verb: 'update', name: 's', namespace: 'ns' }, 'noOpinion', 'can only read resources of this type'],
      [{ resource: 'secrets', verb: 'get', name: 's', namespace: '' }, 'noOpinion', 'can only read namespaced object of this type'],
      [{ resource: 'persistentvolumeclaims', verb: 'get', name: 'c', namespace: 'ns' }, 'allow', ''],
      [{ resource: 'persistentvolumeclaims', verb: 'list', name: 'c', namespace: 'ns' }, 'noOpinion', 'can only get individual resources of this type'],
      [{ resource: 'persistentvolumeclaims', subresource: 'status', verb: 'patch', name: 'c', namespace: 'ns' }, 'allow', ''],
      [{ resource: 'serviceaccounts', subresource: 'token', verb: 'create', name: 'sa', namespace: 'ns' }, 'allow', ''],
      [{ resource: 'serviceaccounts', verb: 'get', name: 'sa', namespace: 'ns' }, 'noOpinion', 'can only create tokens for individual service accounts'],
      [{ resource: 'serviceaccounts', subresource: 'token', verb: 'create', name: 'other', namespace: 'ns' }, 'noOpinion', "no relationship found between node 'n1' and this object"],
      [{ apiGroup: apiGroup('coordination'), resource: 'leases', verb: 'update', name: 'n1', namespace: names.nodeLeaseNamespace }, 'allow', ''],
      [{ apiGroup: apiGroup('coordination'), resource: 'leases', verb: 'update', name: 'n2', namespace: names.nodeLeaseNamespace }, 'noOpinion', 'can only access node lease with the same name as the requesting node'],
      [{ apiGroup: apiGroup('coordination'), resource: 'leases', verb: 'list', name: '', namespace: names.nodeLeaseNamespace }, 'noOpinion', 'can only get, create, update, patch, or delete a node lease'],
      [{ resource: 'pods', subresource: 'status', verb: 'patch', name: 'a', namespace: 'ns' }, 'allow', ''],
      [{ resource: 'nodes', verb: 'delete', name: 'n1', namespace: '' }, 'noOpinion', ''],
      [{ apiGroup: apiGroup('certificates'), resource: 'certificatesigningrequests', verb: 'create', name: '', namespace: '' }, 'allow', ''],
      [{ isResourceRequest: false, path: '/healthz', verb: 'get', resource: '', namespace: '' }, 'noOpinion', ''],
    ];
    for (const [o, decision, reason] of cases) assert.deepEqual(decide({ user: n1, ...o }), { decision, reason }, JSON.stringify(o));
  });

  it('says it cannot list a node\'s rules (incomplete), and lists nothing for others', () => {
    assert.equal(authz.rulesFor(node('n1')).incomplete, true);
    assert.equal(authz.rulesFor({ name: 'bob', groups: [] }).incomplete, false);
  });
});
