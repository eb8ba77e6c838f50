/**
 * The default admission plugins as a whole, over HTTPS and kubectl, on a real
 * server started with default flags: a pod created without a service account
 * gets `default` (which the service-account controller made for the new
 * namespace), the projected token volume mounted in every container, priority
 * 0 or the global default class, the two 300-second tolerations; a pod naming
 * a missing account is refused with the original's message; a second global
 * default class is refused; a new node carries the not-ready taint; a
 * RuntimeClass gives its overhead and an unknown one is a 404; the class index
 * and the default service account follow deletions; PodSecurity (merged from
 * another helper) enforces a namespace's level on pods these plugins shaped.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { apiGroup, names } from '../../src/naming/index.ts';

type Json = Record<string, any>;

describe('the default admission plugins, end to end', () => {
  let t: TestServer;
  const scheduling = `/apis/${apiGroup('scheduling')}/v1/priorityclasses`;
  const runtimeClasses = `/apis/${apiGroup('node')}/v1/runtimeclasses`;

  before(async () => {
    t = await startTestServer();
    const ns = await t.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'adm' } });
    assert.equal(ns.status, 201, ns.body);
  });
  after(async () => {
    await t?.stop();
  });

  const createPod = (name: string, spec: Json, ns = 'adm') =>
    t.request('POST', `/api/v1/namespaces/${ns}/pods`, { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec } });

  it('a pod without a service account gets default, the token volume, priority 0 and the toleration seconds', async () => {
    const res = await createPod('plain', { initContainers: [{ name: 'init', image: 'busybox' }] });
    assert.equal(res.status, 201, res.body);
    const spec = res.json<Json>()['spec'];
    assert.equal(spec.serviceAccountName, 'default');
    assert.equal(spec.volumes.length, 1);
    const volume = spec.volumes[0];
    assert.match(volume.name, new RegExp(`^${names.podAdmission.tokenVolumePrefix}-[a-z0-9]{5}$`));
    assert.equal(volume.projected.defaultMode, 420);
    assert.deepEqual(volume.projected.sources[0], { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } });
    assert.deepEqual(volume.projected.sources[1], { configMap: { name: names.rootCaConfigMap, items: [{ key: 'ca.crt', path: 'ca.crt' }] } });
    assert.deepEqual(volume.projected.sources[2].downwardAPI.items[0], { path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } });
    for (const c of [...spec.initContainers, ...spec.containers]) {
      assert.deepEqual(c.volumeMounts, [{ name: volume.name, readOnly: true, mountPath: names.podAdmission.tokenMountPath }]);
    }
    assert.equal(spec.priority, 0);
    assert.equal(spec.preemptionPolicy, 'PreemptLowerPriority');
    assert.deepEqual(spec.tolerations, [
      { key: names.podAdmission.notReadyTaint, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      { key: names.podAdmission.unreachableTaint, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    ]);
  });

  it('automountServiceAccountToken: false keeps the token out; dry-run is admitted the same way', async () => {
    const res = await createPod('nomount', { automountServiceAccountToken: false });
    assert.equal(res.status, 201, res.body);
    assert.equal(res.json<Json>()['spec'].volumes, undefined);
    const dry = await t.request('POST', '/api/v1/namespaces/adm/pods?dryRun=All', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'dry' },
      spec: { containers: [{ name: 'c', image: 'nginx' }] },
    });
    assert.equal(dry.status, 201, dry.body);
    assert.equal(dry.json<Json>()['spec'].serviceAccountName, 'default');
  });

  it('a pod naming a missing service account is refused (spec 7 rule 3), over HTTPS and kubectl', async () => {
    const res = await createPod('nosa', { serviceAccountName: 'ghost' });
    assert.equal(res.status, 403, res.body);
    const status = res.json<Json>();
    assert.equal(status['reason'], 'Forbidden');
    assert.equal(status['message'], 'pods "nosa" is forbidden: error looking up service account adm/ghost: serviceaccount "ghost" not found');
    const manifest = JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'nosa2', namespace: 'adm' }, spec: { serviceAccountName: 'ghost', containers: [{ name: 'c', image: 'nginx' }] } });
    const k = await t.kubectl(['create', '-f', '-'], { input: manifest });
    assert.notEqual(k.code, 0);
    assert.match(k.stderr, /error looking up service account adm\/ghost: serviceaccount "ghost" not found/);
  });

  it('kubectl run in a fresh namespace gets the default service account the controller made', async () => {
    assert.equal((await t.kubectl(['create', 'namespace', 'fresh'])).code, 0);
    const run = await t.kubectl(['run', 'web', '-n', 'fresh', '--image=nginx']);
    assert.equal(run.code, 0, run.stderr);
    const got = await t.kubectl(['get', 'pod', 'web', '-n', 'fresh', '-o', 'jsonpath={.spec.serviceAccountName} {.spec.priority}']);
    assert.equal(got.stdout, 'default 0');
  });

  it('a global default PriorityClass gives its name and value; a second default and an unknown class are refused', async () => {
    const pc = await t.request('POST', scheduling, { apiVersion: `${apiGroup('scheduling')}/v1`, kind: 'PriorityClass', metadata: { name: 'everyday' }, value: 1000, globalDefault: true });
    assert.equal(pc.status, 201, pc.body);
    // The serving thread's class index is fed by a watch: retry until it has the class.
    let spec: Json = {};
    for (let i = 0; i < 50; i++) {
      const res = await createPod(`prio-${i}`, {});
      assert.equal(res.status, 201, res.body);
      spec = res.json<Json>()['spec'];
      if (spec.priority === 1000) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(spec.priority, 1000);
    assert.equal(spec.priorityClassName, 'everyday');
    const second = await t.request('POST', scheduling, { apiVersion: `${apiGroup('scheduling')}/v1`, kind: 'PriorityClass', metadata: { name: 'another' }, value: 5, globalDefault: true });
    assert.equal(second.status, 403, second.body);
    assert.match(second.json<Json>()['message'], /PriorityClass everyday is already marked as default\. Only one default can exist/);
    const unknown = await createPod('unknown-class', { priorityClassName: 'nope' });
    assert.equal(unknown.status, 403);
    assert.equal(unknown.json<Json>()['message'], 'pods "unknown-class" is forbidden: no PriorityClass with name nope was found');
    const critical = await createPod('critical', { priorityClassName: 'system-cluster-critical' });
    assert.equal(critical.status, 201, critical.body);
    assert.equal(critical.json<Json>()['spec'].priority, 2000000000);
  });

  it('deleting the default class takes effect on the next pods (the class index follows the watch)', async () => {
    const del = await t.request('DELETE', `${scheduling}/everyday`);
    assert.equal(del.status, 200, del.body);
    let spec: Json = {};
    for (let i = 0; i < 50; i++) {
      const res = await createPod(`after-${i}`, {});
      assert.equal(res.status, 201, res.body);
      spec = res.json<Json>()['spec'];
      if (spec.priority === 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(spec.priority, 0);
    assert.equal(spec.priorityClassName, undefined);
  });

  it('a deleted default service account is made again by the controller', async () => {
    const del = await t.request('DELETE', '/api/v1/namespaces/adm/serviceaccounts/default');
    assert.equal(del.status, 200, del.body);
    let back = 0;
    for (let i = 0; i < 100 && back !== 200; i++) {
      await new Promise((r) => setTimeout(r, 50));
      back = (await t.request('GET', '/api/v1/namespaces/adm/serviceaccounts/default')).status;
    }
    assert.equal(back, 200);
  });

  it('a new node carries the not-ready NoSchedule taint', async () => {
    const res = await t.request('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'worker-1' } });
    assert.equal(res.status, 201, res.body);
    assert.deepEqual(res.json<Json>()['spec'].taints, [{ key: names.podAdmission.notReadyTaint, effect: 'NoSchedule' }]);
  });

  it('a RuntimeClass gives its overhead and scheduling; an unknown class is a 404', async () => {
    const rc = await t.request('POST', runtimeClasses, {
      apiVersion: `${apiGroup('node')}/v1`,
      kind: 'RuntimeClass',
      metadata: { name: 'sandboxed' },
      handler: 'runsc',
      overhead: { podFixed: { cpu: '250m', memory: '64Mi' } },
      scheduling: { nodeSelector: { sandbox: 'yes' } },
    });
    assert.equal(rc.status, 201, rc.body);
    const res = await createPod('sandboxed', { runtimeClassName: 'sandboxed' });
    assert.equal(res.status, 201, res.body);
    const spec = res.json<Json>()['spec'];
    assert.deepEqual(spec.overhead, { cpu: '250m', memory: '64Mi' });
    assert.deepEqual(spec.nodeSelector, { sandbox: 'yes' });
    const mismatch = await createPod('mismatch', { runtimeClassName: 'sandboxed', overhead: { cpu: '1' } });
    assert.equal(mismatch.status, 403);
    assert.match(mismatch.json<Json>()['message'], /Pod's Overhead doesn't match RuntimeClass's defined Overhead/);
    const unknown = await createPod('nort', { runtimeClassName: 'ghost' });
    assert.equal(unknown.status, 404, unknown.body);
    assert.equal(unknown.json<Json>()['message'], `runtimeclasses.${apiGroup('node')} "ghost" not found`);
  });

  it('PodSecurity (in main): a restricted namespace takes a compliant pod with the mounted token and refuses a privileged one', async () => {
    const ns = await t.request('POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'locked', labels: { [`${names.podSecurity.prefix}enforce`]: 'restricted' } },
    });
    assert.equal(ns.status, 201, ns.body);
    const restricted = {
      securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
      containers: [{ name: 'c', image: 'nginx', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } }],
    };
    let ok = await createPod('compliant', restricted, 'locked');
    for (let i = 0; ok.status !== 201 && i < 40; i++) {
      await new Promise((r) => setTimeout(r, 50));
      ok = await createPod('compliant', restricted, 'locked');
    }
    assert.equal(ok.status, 201, ok.body);
    assert.equal(ok.json<Json>()['spec'].volumes[0].projected.sources.length, 3, 'the projected token volume is allowed by restricted');
    const bad = await createPod('privileged', { containers: [{ name: 'c', image: 'nginx', securityContext: { privileged: true } }] }, 'locked');
    assert.equal(bad.status, 403, bad.body);
    assert.match(bad.json<Json>()['message'], /violates PodSecurity "restricted:latest"/);
  });

  it('a pod cannot change its service account on update', async () => {
    const got = await t.request('GET', '/api/v1/namespaces/adm/pods/plain');
    const pod = got.json<Json>();
    pod['spec'].serviceAccountName = 'other';
    const res = await t.request('PUT', '/api/v1/namespaces/adm/pods/plain', pod);
    assert.equal(res.status, 422, res.body);
  });
});
