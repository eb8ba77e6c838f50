/**
 * The optional pod plugins, enabled with --enable-admission-plugins on a real
 * server, over HTTPS: AlwaysPullImages, PodNodeSelector (namespace
 * annotation), PodTolerationRestriction (namespace defaults and whitelist),
 * ExtendedResourceToleration, NamespaceAutoProvision with NamespaceExists;
 * and AlwaysDeny on a server of its own.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { names } from '../../src/naming/index.ts';

type Json = Record<string, any>;

describe('optional pod admission plugins, end to end', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer([
      '--enable-admission-plugins=AlwaysPullImages,PodNodeSelector,PodTolerationRestriction,ExtendedResourceToleration,NamespaceAutoProvision,NamespaceExists',
    ]);
  });
  after(async () => {
    await t?.stop();
  });

  const createPod = (ns: string, name: string, spec: Json) =>
    t.request('POST', `/api/v1/namespaces/${ns}/pods`, { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec } });

  it('NamespaceAutoProvision creates the namespace of a create; the pod is admitted by the rest of the chain', async () => {
    const res = await t.request('POST', '/api/v1/namespaces/auto/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' } });
    assert.equal(res.status, 201, res.body);
    const ns = await t.request('GET', '/api/v1/namespaces/auto');
    assert.equal(ns.status, 200);
  });

  it('AlwaysPullImages and ExtendedResourceToleration shape a new pod', async () => {
    await t.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'gpu' } });
    const res = await createPod('gpu', 'trainer', {
      containers: [{ name: 'c', image: 'trainer', imagePullPolicy: 'IfNotPresent', resources: { requests: { 'example.com/gpu': '1' }, limits: { 'example.com/gpu': '1' } } }],
    });
    assert.equal(res.status, 201, res.body);
    const spec = res.json<Json>()['spec'];
    assert.equal(spec.containers[0].imagePullPolicy, 'Always');
    assert.ok(spec.tolerations.some((x: Json) => x['key'] === 'example.com/gpu' && x['operator'] === 'Exists' && x['effect'] === 'NoSchedule'), JSON.stringify(spec.tolerations));
  });

  it('PodNodeSelector merges the namespace selector and refuses a conflict', async () => {
    const ns = await t.request('POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'zoned', annotations: { [names.podAdmission.nodeSelectorAnnotation]: 'zone=east' } },
    });
    assert.equal(ns.status, 201, ns.body);
    let res = await createPod('zoned', 'p1', { nodeSelector: { disk: 'ssd' } });
    // The namespace reaches the watch cache the plugin reads shortly after its create.
    for (let i = 0; res.status === 404 && i < 40; i++) {
      await new Promise((r) => setTimeout(r, 50));
      res = await createPod('zoned', 'p1', { nodeSelector: { disk: 'ssd' } });
    }
    assert.equal(res.status, 201, res.body);
    assert.deepEqual(res.json<Json>()['spec'].nodeSelector, { zone: 'east', disk: 'ssd' });
    const conflict = await createPod('zoned', 'p2', { nodeSelector: { zone: 'west' } });
    assert.equal(conflict.status, 403, conflict.body);
    assert.equal(conflict.json<Json>()['message'], 'pods "p2" is forbidden: pod node label selector conflicts with its namespace node label selector');
  });

  it('PodTolerationRestriction adds the namespace defaults and enforces its whitelist', async () => {
    const ns = await t.request('POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: {
        name: 'tolerant',
        annotations: {
          [names.podAdmission.defaultTolerationsAnnotation]: JSON.stringify([{ key: 'dedicated', operator: 'Equal', value: 'team-a', effect: 'NoSchedule' }]),
          [names.podAdmission.tolerationsWhitelistAnnotation]: JSON.stringify([{ key: 'dedicated', operator: 'Exists' }, { operator: 'Exists', effect: 'NoExecute' }]),
        },
      },
    });
    assert.equal(ns.status, 201, ns.body);
    let res = await createPod('tolerant', 'ok', {});
    for (let i = 0; res.status === 404 && i < 40; i++) {
      await new Promise((r) => setTimeout(r, 50));
      res = await createPod('tolerant', 'ok', {});
    }
    assert.equal(res.status, 201, res.body);
    assert.ok(res.json<Json>()['spec'].tolerations.some((x: Json) => x['key'] === 'dedicated' && x['value'] === 'team-a'));
    const refused = await createPod('tolerant', 'bad', { tolerations: [{ key: 'gpu', operator: 'Exists', effect: 'NoSchedule' }] });
    assert.equal(refused.status, 500, refused.body);
    assert.equal(refused.json<Json>()['message'], 'pod tolerations (possibly merged with namespace default tolerations) conflict with its namespace whitelist');
  });
});

describe('AlwaysDeny, end to end', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer(['--enable-admission-plugins=AlwaysDeny']);
  });
  after(async () => {
    await t?.stop();
  });

  it('refuses every write, and reads still work', async () => {
    const res = await t.request('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } });
    assert.equal(res.status, 403, res.body);
    assert.equal(res.json<Json>()['message'], 'configmaps "x" is forbidden: admission control is denying all modifications');
    assert.equal((await t.request('GET', '/api/v1/namespaces/default/configmaps')).status, 200);
  });
});
