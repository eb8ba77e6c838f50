/**
 * The pod subresources control-plane components call, over HTTP against a
 * real server: pods/binding (and the deprecated namespace-level bindings),
 * pods/eviction honouring PodDisruptionBudgets, pods/ephemeralcontainers.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { encodeObject, ORCH_PROTOBUF_MEDIA_TYPE } from '../../src/protobuf/index.ts';
import { SKIP_WITHOUT_UWS } from '../support/uws-toggle.ts';

const PODS = '/api/v1/namespaces/default/pods';
const PDBS = '/apis/policy/v1/namespaces/default/poddisruptionbudgets';
const MERGE = { headers: { 'content-type': 'application/merge-patch+json' } };

type Condition = { type: string; status: string; reason?: string; message?: string };
type Pod = {
  metadata: { name: string; uid: string; resourceVersion: string; annotations?: Record<string, string>; deletionTimestamp?: string };
  spec: { nodeName?: string; ephemeralContainers?: Array<Record<string, unknown>> };
  status?: { phase?: string; conditions?: Condition[] };
};
type Status = { kind: string; status: string; code: number; reason?: string; message?: string; details?: { causes?: Array<{ reason?: string; message?: string }> } };
type Budget = { metadata: { resourceVersion: string }; status: { disruptionsAllowed: number; disruptedPods?: Record<string, string>; conditions?: Condition[] } };

describe('pod subresources', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t?.stop();
  });

  async function createPod(name: string, labels: Record<string, string> = {}): Promise<Pod> {
    const r = await t.request('POST', PODS, { metadata: { name, labels }, spec: { containers: [{ name: 'app', image: 'nginx' }] } });
    assert.equal(r.status, 201, r.body);
    return r.json<Pod>();
  }

  /** What the kubelet would report: the pod runs (and is ready unless told otherwise). */
  async function markRunning(name: string, ready = true): Promise<void> {
    const r = await t.request('PATCH', `${PODS}/${name}/status`, { status: { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] } }, MERGE);
    assert.equal(r.status, 200, r.body);
  }

  /** What the disruption controller would write (the original's eviction tests set it the same way). */
  async function createBudget(name: string, app: string, allowed: number): Promise<void> {
    const r = await t.request('POST', PDBS, { metadata: { name }, spec: { selector: { matchLabels: { app } }, maxUnavailable: 1 } });
    assert.equal(r.status, 201, r.body);
    const s = await t.request('PATCH', `${PDBS}/${name}/status`, { status: { observedGeneration: 1, disruptionsAllowed: allowed, currentHealthy: 2, desiredHealthy: 2 - allowed, expectedPods: 2 } }, MERGE);
    assert.equal(s.status, 200, s.body);
  }

  function evict(name: string, extra: Record<string, unknown> = {}, query = ''): ReturnType<TestServer['request']> {
    return t.request('POST', `${PODS}/${name}/eviction${query}`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: 'default' }, ...extra });
  }

  describe('binding', () => {
    it('assigns the pod to the node once; a second binding is a 409 Conflict', async () => {
      await createPod('bind-me');
      const binding = { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'bind-me', annotations: { 'example.com/by': 'test' } }, target: { kind: 'Node', name: 'node-1' } };
      const r = await t.request('POST', `${PODS}/bind-me/binding`, binding);
      assert.equal(r.status, 201, r.body);
      assert.deepEqual(r.json(), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
      const pod = (await t.request('GET', `${PODS}/bind-me`)).json<Pod>();
      assert.equal(pod.spec.nodeName, 'node-1');
      assert.equal(pod.metadata.annotations?.['example.com/by'], 'test');
      assert.equal(pod.status?.conditions?.find((c) => c.type === 'PodScheduled')?.status, 'True');
      assert.equal((pod.metadata as { managedFields?: Array<{ subresource?: string }> }).managedFields?.some((m) => m.subresource === 'binding'), false, 'a storage-level write: no field manager entry');

      const again = await t.request('POST', `${PODS}/bind-me/binding`, { ...binding, target: { name: 'node-2' } });
      assert.equal(again.status, 409, again.body);
      const s = again.json<Status>();
      assert.equal(s.reason, 'Conflict');
      assert.equal(s.message, 'Operation cannot be fulfilled on pods/binding "bind-me": pod bind-me is already assigned to node "node-1"');
    });

    it('honours uid and resourceVersion preconditions; the name must match the URL', async () => {
      const pod = await createPod('bind-pre');
      const stale = await t.request('POST', `${PODS}/bind-pre/binding`, { metadata: { name: 'bind-pre', uid: 'not-the-uid' }, target: { name: 'n' } });
      assert.equal(stale.status, 409, stale.body);
      const renamed = await t.request('POST', `${PODS}/bind-pre/binding`, { metadata: { name: 'other' }, target: { name: 'n' } });
      assert.equal(renamed.status, 400, renamed.body);
      const noTarget = await t.request('POST', `${PODS}/bind-pre/binding`, { metadata: { name: 'bind-pre' }, target: {} });
      assert.equal(noTarget.status, 422, noTarget.body);
      const podTarget = await t.request('POST', `${PODS}/bind-pre/binding`, { metadata: { name: 'bind-pre' }, target: { kind: 'Pod', name: 'n' } });
      assert.equal(podTarget.status, 422, podTarget.body);
      assert.match(podTarget.json<Status>().message ?? '', /target\.kind: Unsupported value: "Pod": supported values: "Node", "<empty>"/);
      const ok = await t.request('POST', `${PODS}/bind-pre/binding`, { metadata: { name: 'bind-pre', uid: pod.metadata.uid, resourceVersion: pod.metadata.resourceVersion }, target: { name: 'n' } });
      assert.equal(ok.status, 201, ok.body);
      assert.equal((await t.request('POST', `${PODS}/missing/binding`, { metadata: { name: 'missing' }, target: { name: 'n' } })).status, 404);
    });

    it('the deprecated POST /namespaces/{ns}/bindings binds the pod the body names', async () => {
      await createPod('bind-legacy');
      const r = await t.request('POST', '/api/v1/namespaces/default/bindings', { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'bind-legacy' }, target: { name: 'node-9' } });
      assert.equal(r.status, 201, r.body);
      assert.equal((await t.request('GET', `${PODS}/bind-legacy`)).json<Pod>().spec.nodeName, 'node-9');
      assert.equal((await t.request('GET', '/api/v1/namespaces/default/bindings')).status, 405);
    });

    it('a Protobuf Binding (what the scheduler sends) binds too', async () => {
      await createPod('bind-proto');
      const bytes = encodeObject({ apiVersion: 'v1', kind: 'Binding', metadata: { name: 'bind-proto', namespace: 'default' }, target: { kind: 'Node', name: 'node-p' } }, { group: '', version: 'v1', kind: 'Binding' });
      const r = await t.request('POST', `${PODS}/bind-proto/binding`, bytes, { headers: { 'content-type': ORCH_PROTOBUF_MEDIA_TYPE } });
      assert.equal(r.status, 201, r.body);
      assert.equal((await t.request('GET', `${PODS}/bind-proto`)).json<Pod>().spec.nodeName, 'node-p');
      const eviction = encodeObject({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'bind-proto', namespace: 'default' }, deleteOptions: { dryRun: ['All'] } }, { group: 'policy', version: 'v1', kind: 'Eviction' });
      const e = await t.request('POST', `${PODS}/bind-proto/eviction`, eviction, { headers: { 'content-type': ORCH_PROTOBUF_MEDIA_TYPE } });
      assert.equal(e.status, 201, e.body);
      assert.equal((await t.request('GET', `${PODS}/bind-proto`)).status, 200, 'dry run from the Protobuf deleteOptions');
    });

    it('admission sees the CREATE of the subresource first (NamespaceLifecycle: the namespace, not the pod, is missing)', async () => {
      const b = await t.request('POST', '/api/v1/namespaces/nowhere/pods/p/binding', { metadata: { name: 'p' }, target: { name: 'n' } });
      assert.equal(b.status, 404, b.body);
      assert.equal(b.json<Status>().message, 'namespaces "nowhere" not found');
      const e = await t.request('POST', '/api/v1/namespaces/nowhere/pods/p/eviction', { kind: 'Eviction', metadata: { name: 'p' } });
      assert.equal(e.json<Status>().message, 'namespaces "nowhere" not found');
    });

    it('the uWS front end serves the same POSTs', { skip: SKIP_WITHOUT_UWS }, async () => {
      await createPod('bind-uws');
      const b = await t.request('POST', `${PODS}/bind-uws/binding`, { metadata: { name: 'bind-uws' }, target: { name: 'node-u' } }, { uws: true, as: 'token' });
      assert.equal(b.status, 201, b.body);
      const e = await t.request('POST', `${PODS}/bind-uws/eviction`, { kind: 'Eviction', metadata: { name: 'bind-uws' }, deleteOptions: { dryRun: ['All'] } }, { uws: true, as: 'token' });
      assert.equal(e.status, 201, e.body);
      assert.equal((await t.request('POST', `${PODS}/bind-uws/eviction`, '{', { uws: true, as: 'token', headers: { 'content-type': 'application/json' } })).status, 400);
    });

    it('a dry-run binding writes nothing', async () => {
      await createPod('bind-dry');
      const r = await t.request('POST', `${PODS}/bind-dry/binding?dryRun=All`, { metadata: { name: 'bind-dry' }, target: { name: 'n' } });
      assert.equal(r.status, 201, r.body);
      assert.equal((await t.request('GET', `${PODS}/bind-dry`)).json<Pod>().spec.nodeName, undefined);
    });
  });

  describe('eviction', () => {
    it('a budget allowing no disruption refuses with 429 and the DisruptionBudget cause', async () => {
      await createPod('guarded-0', { app: 'zero' });
      await markRunning('guarded-0');
      await createBudget('zero', 'zero', 0);
      const r = await evict('guarded-0');
      assert.equal(r.status, 429, r.body);
      const s = r.json<Status>();
      assert.equal(s.reason, 'TooManyRequests');
      assert.equal(s.message, "Cannot evict pod as it would violate the pod's disruption budget.");
      assert.deepEqual(s.details?.causes, [{ reason: 'DisruptionBudget', message: 'The disruption budget zero needs 2 healthy pods and has 2 currently' }]);
      assert.equal((await t.request('GET', `${PODS}/guarded-0`)).status, 200, 'the pod stays');
    });

    it('a budget allowing one: 201, the pod deleted, the budget decremented and the pod recorded', async () => {
      await createPod('guarded-1', { app: 'one' });
      await markRunning('guarded-1');
      await createBudget('one', 'one', 1);
      const r = await evict('guarded-1');
      assert.equal(r.status, 201, r.body);
      assert.equal(r.json<Status>().status, 'Success');
      assert.equal((await t.request('GET', `${PODS}/guarded-1`)).status, 404, 'an unbound pod goes at once');
      const budget = (await t.request('GET', `${PDBS}/one`)).json<Budget>();
      assert.equal(budget.status.disruptionsAllowed, 0);
      assert.ok(budget.status.disruptedPods?.['guarded-1'], 'the eviction is recorded for the controller');
      assert.equal(budget.status.conditions?.find((c) => c.type === 'DisruptionAllowed')?.status, 'False');
    });

    it('concurrent evictions against a budget of one: exactly one goes (compare-and-swap on the budget)', async () => {
      for (const n of ['race-a', 'race-b', 'race-c']) {
        await createPod(n, { app: 'race' });
        await markRunning(n);
      }
      await createBudget('race', 'race', 1);
      const codes = (await Promise.all(['race-a', 'race-b', 'race-c'].map((n) => evict(n)))).map((r) => r.status).sort();
      assert.deepEqual(codes, [201, 429, 429]);
      const budget = (await t.request('GET', `${PDBS}/race`)).json<Budget>();
      assert.equal(budget.status.disruptionsAllowed, 0);
      assert.equal(Object.keys(budget.status.disruptedPods ?? {}).length, 1);
    });

    it('a bound pod is deleted gracefully and carries the DisruptionTarget condition', async () => {
      await createPod('graceful', { app: 'graceful' });
      assert.equal((await t.request('POST', `${PODS}/graceful/binding`, { metadata: { name: 'graceful' }, target: { name: 'node-1' } })).status, 201);
      await markRunning('graceful');
      await createBudget('graceful', 'graceful', 1);
      const r = await evict('graceful', { deleteOptions: { gracePeriodSeconds: 30 } });
      assert.equal(r.status, 201, r.body);
      const pod = (await t.request('GET', `${PODS}/graceful`)).json<Pod>();
      assert.ok(pod.metadata.deletionTimestamp, 'being deleted');
      const cond = pod.status?.conditions?.find((c) => c.type === 'DisruptionTarget');
      assert.deepEqual({ ...cond, lastTransitionTime: undefined }, { type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting', lastTransitionTime: undefined });
    });

    it('dry run (query or deleteOptions): checked, nothing written', async () => {
      await createPod('dry', { app: 'dry' });
      await markRunning('dry');
      await createBudget('dry', 'dry', 1);
      const before = (await t.request('GET', `${PDBS}/dry`)).json<Budget>();
      assert.equal((await evict('dry', {}, '?dryRun=All')).status, 201);
      assert.equal((await evict('dry', { deleteOptions: { dryRun: ['All'] } })).status, 201);
      assert.equal((await t.request('GET', `${PODS}/dry`)).status, 200, 'the pod stays');
      const after = (await t.request('GET', `${PDBS}/dry`)).json<Budget>();
      assert.equal(after.metadata.resourceVersion, before.metadata.resourceVersion, 'the budget is not written');
      await createPod('dry-0', { app: 'dry-0' });
      await markRunning('dry-0');
      await createBudget('dry-0', 'dry-0', 0);
      assert.equal((await evict('dry-0', {}, '?dryRun=All')).status, 429, 'a dry run still refuses');
    });

    it('pending pods go without a budget check; two budgets are a 500; unready pods go while the budget is met', async () => {
      await createPod('pending', { app: 'zero' });
      assert.equal((await evict('pending')).status, 201, 'Pending: no budget check');
      assert.equal((await t.request('GET', `${PODS}/pending`)).status, 404);

      await createPod('twice', { app: 'both', tier: 'x' });
      await markRunning('twice');
      await createBudget('both-a', 'both', 1);
      const r = await t.request('POST', PDBS, { metadata: { name: 'both-b' }, spec: { selector: { matchLabels: { tier: 'x' } }, maxUnavailable: 1 } });
      assert.equal(r.status, 201);
      const two = await evict('twice');
      assert.equal(two.status, 500, two.body);
      assert.equal(two.json<Status>().message, 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.');

      await createPod('unready', { app: 'met' });
      await markRunning('unready', false);
      const b = await t.request('POST', PDBS, { metadata: { name: 'met' }, spec: { selector: { matchLabels: { app: 'met' } }, minAvailable: 1 } });
      assert.equal(b.status, 201);
      await t.request('PATCH', `${PDBS}/met/status`, { status: { observedGeneration: 1, disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 1, expectedPods: 2 } }, MERGE);
      assert.equal((await evict('unready')).status, 201, 'unready and the budget is met: no disruption taken');
    });

    it('unhealthyPodEvictionPolicy: AlwaysAllow lets an unready pod go from a broken budget; IfHealthyBudget does not', async () => {
      for (const [app, policy, code] of [['always', 'AlwaysAllow', 201], ['ifhealthy', 'IfHealthyBudget', 429]] as const) {
        await createPod(`unready-${app}`, { app });
        await markRunning(`unready-${app}`, false);
        const b = await t.request('POST', PDBS, { metadata: { name: app }, spec: { selector: { matchLabels: { app } }, minAvailable: 2, unhealthyPodEvictionPolicy: policy } });
        assert.equal(b.status, 201, b.body);
        await t.request('PATCH', `${PDBS}/${app}/status`, { status: { observedGeneration: 1, disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 2, expectedPods: 2 } }, MERGE);
        const r = await evict(`unready-${app}`);
        assert.equal(r.status, code, `${policy}: ${r.body}`);
      }
      assert.equal((await t.request('GET', `${PDBS}/always`)).json<Budget>().status.disruptionsAllowed, 0, 'nothing taken');
    });

    it('a budget whose status lags its generation is a 429 "still being processed"', async () => {
      await createPod('lagging', { app: 'lag' });
      await markRunning('lagging');
      const r = await t.request('POST', PDBS, { metadata: { name: 'lag' }, spec: { selector: { matchLabels: { app: 'lag' } }, maxUnavailable: 1 } });
      assert.equal(r.status, 201);
      const e = await evict('lagging');
      assert.equal(e.status, 429, e.body);
      assert.equal(e.json<Status>().details?.causes?.[0]?.message, 'The disruption budget lag is still being processed by the server.');
      assert.equal(e.headers['retry-after'], '10');
    });

    it('an empty selector guards every pod of its namespace (policy/v1); an absent one none', async () => {
      assert.equal((await t.request('POST', '/api/v1/namespaces', { metadata: { name: 'guarded-all' } })).status, 201);
      const pods = '/api/v1/namespaces/guarded-all/pods';
      const budgets = '/apis/policy/v1/namespaces/guarded-all/poddisruptionbudgets';
      assert.equal((await t.request('POST', pods, { metadata: { name: 'plain' }, spec: { containers: [{ name: 'app', image: 'nginx' }] } })).status, 201);
      await t.request('PATCH', `${pods}/plain/status`, { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } }, MERGE);
      assert.equal((await t.request('POST', budgets, { metadata: { name: 'none' }, spec: { maxUnavailable: 0 } })).status, 201);
      assert.equal((await t.request('POST', budgets, { metadata: { name: 'all' }, spec: { selector: {}, maxUnavailable: 0 } })).status, 201);
      await t.request('PATCH', `${budgets}/all/status`, { status: { observedGeneration: 1, disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1 } }, MERGE);
      const r = await t.request('POST', `${pods}/plain/eviction`, { kind: 'Eviction', metadata: { name: 'plain' } });
      assert.equal(r.status, 429, r.body);
      assert.match(r.json<Status>().details?.causes?.[0]?.message ?? '', /^The disruption budget all needs/);
    });

    it('bad bodies are 400s, never a crash', async () => {
      await createPod('target', { app: 'none' });
      const url = `${PODS}/target/eviction`;
      const garbage = await t.request('POST', url, '{"kind":', { headers: { 'content-type': 'application/json' } });
      assert.equal(garbage.status, 400, garbage.body);
      assert.equal((await t.request('POST', url, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'target' } })).status, 400, 'wrong kind');
      assert.equal((await t.request('POST', url, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'other' } })).status, 400, 'wrong name');
      assert.equal((await t.request('POST', url, { kind: 'Eviction', metadata: { name: 'target' }, deleteOptions: 'now' })).status, 400, 'deleteOptions not an object');
      assert.equal((await t.request('POST', url, { kind: 'Eviction', metadata: { name: 'target', namespace: 'elsewhere' } })).status, 400, 'namespace mismatch');
      // Deep nesting where the Eviction has a typed field (a depth limit for unknown fields is the body decoder's).
      const deep = '{"kind":"Eviction","metadata":{"name":"target"},"deleteOptions":{"preconditions":{"uid":' + '{"x":'.repeat(20000) + '1' + '}'.repeat(20000) + '}}}';
      const d = await t.request('POST', url, deep, { headers: { 'content-type': 'application/json' } });
      assert.equal(d.status, 400, `deep nesting: ${d.body.slice(0, 200)}`);
      assert.equal((await t.request('POST', `${PODS}/target/binding`, { kind: 'Eviction', metadata: { name: 'target' }, target: { name: 'n' } })).status, 400, 'a binding of the wrong kind');
      assert.equal((await t.request('POST', `${PODS}/target/binding`, { metadata: { name: 'target' }, target: 'node' })).status, 400);
      assert.equal((await t.request('GET', `${PODS}/target`)).status, 200, 'still there');
      assert.equal((await t.request('GET', '/healthz')).status, 200);
    });

    it('a policy/v1beta1 Eviction body is accepted', async () => {
      await createPod('beta');
      const r = await t.request('POST', `${PODS}/beta/eviction`, { apiVersion: 'policy/v1beta1', kind: 'Eviction', metadata: { name: 'beta' } });
      assert.equal(r.status, 201, r.body);
    });
  });

  describe('ephemeral containers', () => {
    it('adds one through PATCH and PUT; changing or removing one is forbidden; other fields do not change', async () => {
      await createPod('debug-me');
      const url = `${PODS}/debug-me/ephemeralcontainers`;
      const get = await t.request('GET', url);
      assert.equal(get.status, 200);
      const add = await t.request('PATCH', url, { spec: { ephemeralContainers: [{ name: 'debugger', image: 'busybox', targetContainerName: 'app', stdin: true, tty: true }] } }, { headers: { 'content-type': 'application/strategic-merge-patch+json' } });
      assert.equal(add.status, 200, add.body);
      const pod = add.json<Pod>();
      assert.equal(pod.spec.ephemeralContainers?.[0]?.['name'], 'debugger');
      assert.equal(pod.spec.ephemeralContainers?.[0]?.['terminationMessagePolicy'], 'File', 'defaults applied');

      const changed = structuredClone(pod) as Pod & { spec: Record<string, unknown> };
      changed.spec.ephemeralContainers![0]!['image'] = 'alpine';
      const put = await t.request('PUT', url, changed);
      assert.equal(put.status, 422, put.body);
      assert.match(put.json<Status>().message ?? '', /existing ephemeral containers "debugger" may not be changed/);

      const removed = structuredClone(pod) as Pod & { spec: Record<string, unknown> };
      removed.spec.ephemeralContainers = [];
      assert.equal((await t.request('PUT', url, removed)).status, 422);

      const sneaky = structuredClone(pod) as Pod & { spec: Record<string, unknown> };
      sneaky.spec['nodeName'] = 'elsewhere';
      sneaky.spec.ephemeralContainers!.push({ name: 'second', image: 'busybox' });
      const ok = await t.request('PUT', url, sneaky);
      assert.equal(ok.status, 200, ok.body);
      const after = ok.json<Pod>();
      assert.equal(after.spec.nodeName, undefined, 'only ephemeral containers change');
      assert.equal(after.spec.ephemeralContainers?.length, 2);
    });

    it('kubectl debug adds an ephemeral container through the subresource', async () => {
      await createPod('kubectl-debug');
      const r = await t.kubectl(['debug', '-n', 'default', 'pod/kubectl-debug', '--image=busybox', '--container=dbg', '--target=app', '--attach=false', '-q']);
      assert.equal(r.code, 0, r.stderr);
      const pod = (await t.request('GET', `${PODS}/kubectl-debug`)).json<Pod>();
      assert.deepEqual(pod.spec.ephemeralContainers?.map((c) => [c['name'], c['image'], c['targetContainerName']]), [['dbg', 'busybox', 'app']]);
    });

    it('validates new ephemeral containers as the original', async () => {
      await createPod('debug-bad');
      const url = `${PODS}/debug-bad/ephemeralcontainers`;
      const r = await t.request('PATCH', url, { spec: { ephemeralContainers: [{ name: 'app', image: 'busybox', ports: [{ containerPort: 80 }], targetContainerName: 'nope' }] } }, { headers: { 'content-type': 'application/strategic-merge-patch+json' } });
      assert.equal(r.status, 422, r.body);
      const msg = r.json<Status>().message ?? '';
      assert.match(msg, /spec\.ephemeralContainers\[0\]\.name: Duplicate value: "app"/);
      assert.match(msg, /spec\.ephemeralContainers\[0\]\.targetContainerName: Not found: "nope"/);
      assert.match(msg, /spec\.ephemeralContainers\[0\]\.ports: Forbidden: cannot be set for an Ephemeral Container/);
      const current = (await t.request('GET', url)).json<Pod & { spec: Record<string, unknown> }>();
      for (const bad of ['x', [5], { name: 'd' }]) {
        const put = await t.request('PUT', url, { ...current, spec: { ...current.spec, ephemeralContainers: bad } });
        assert.equal(put.status, 400, `${JSON.stringify(bad)}: ${put.body}`);
      }
      // A null element decodes, as in Go, into an empty EphemeralContainer, which validation then refuses.
      const nullItem = await t.request('PUT', url, { ...current, spec: { ...current.spec, ephemeralContainers: [null] } });
      assert.equal(nullItem.status, 422, nullItem.body);
      assert.match(nullItem.json<Status>().message ?? '', /spec\.ephemeralContainers\[0\]\.name: Required value/);
      const create = await t.request('POST', PODS, { metadata: { name: 'eph-on-create' }, spec: { containers: [{ name: 'a', image: 'x' }], ephemeralContainers: [{ name: 'd', image: 'x' }] } });
      assert.equal(create.status, 422, create.body);
    });
  });

  it('kubectl drain --dry-run=server finds eviction in discovery and evicts through it without effect', async () => {
    assert.equal((await t.request('POST', '/api/v1/nodes', { metadata: { name: 'drain-me' } })).status, 201);
    await createPod('drained', { app: 'drained' });
    assert.equal((await t.request('POST', `${PODS}/drained/binding`, { metadata: { name: 'drained' }, target: { name: 'drain-me' } })).status, 201);
    await markRunning('drained');
    await createBudget('drained', 'drained', 1);
    const r = await t.kubectl(['drain', 'drain-me', '--dry-run=server', '--force', '--ignore-daemonsets', '--timeout=20s']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /evicting pod default\/drained \(server dry run\)/);
    assert.match(r.stdout, /node\/drain-me drained \(server dry run\)/);
    const pod = (await t.request('GET', `${PODS}/drained`)).json<Pod>();
    assert.equal(pod.metadata.deletionTimestamp, undefined, 'a dry run deletes nothing');
    assert.equal(pod.status?.conditions?.find((c) => c.type === 'DisruptionTarget'), undefined, 'nor marks the pod');
    assert.equal((await t.request('GET', `${PDBS}/drained`)).json<Budget>().status.disruptionsAllowed, 1);
  });

  it('csistoragecapacities are served (the scheduler\'s volume binding lists them at start), in JSON and Protobuf', async () => {
    const url = '/apis/storage.orch.io/v1/namespaces/default/csistoragecapacities';
    const c = await t.request('POST', url, { metadata: { name: 'cap' }, storageClassName: 'fast', capacity: '10Gi', nodeTopology: { matchLabels: { zone: 'a' } } });
    assert.equal(c.status, 201, c.body);
    assert.equal((await t.request('POST', url, { metadata: { name: 'bad' }, storageClassName: 'Fast_' })).status, 422);
    const list = await t.request('GET', '/apis/storage.orch.io/v1/csistoragecapacities', undefined, { headers: { accept: ORCH_PROTOBUF_MEDIA_TYPE } });
    assert.equal(list.status, 200, list.body);
    assert.equal(list.headers['content-type'], ORCH_PROTOBUF_MEDIA_TYPE);
  });

  it('OpenAPI describes the POSTs with their kinds', async () => {
    const doc = (await t.request('GET', '/openapi/v3/api/v1')).json<{ paths: Record<string, Record<string, { operationId?: string }>> }>();
    assert.equal(doc.paths['/api/v1/namespaces/{namespace}/pods/{name}/binding']?.['post']?.operationId, 'createCoreV1NamespacedPodBinding');
    assert.equal(doc.paths['/api/v1/namespaces/{namespace}/pods/{name}/eviction']?.['post']?.operationId, 'createCoreV1NamespacedPodEviction');
    assert.equal(doc.paths['/api/v1/namespaces/{namespace}/bindings']?.['post']?.operationId, 'createCoreV1NamespacedBinding');
    assert.ok(doc.paths['/api/v1/namespaces/{namespace}/pods/{name}/ephemeralcontainers']?.['patch']);
    assert.match(JSON.stringify(doc.paths['/api/v1/namespaces/{namespace}/pods/{name}/eviction']), /io\.orch\.api\.policy\.v1\.Eviction/);
  });

  it('discovery lists the subresources with the original verbs and kinds', async () => {
    const list = (await t.request('GET', '/api/v1')).json<{ resources: Array<{ name: string; kind: string; verbs: string[]; group?: string; version?: string }> }>();
    const byName = new Map(list.resources.map((r) => [r.name, r]));
    assert.deepEqual(byName.get('pods/binding'), { ...byName.get('pods/binding'), kind: 'Binding', verbs: ['create'] });
    const ev = byName.get('pods/eviction');
    assert.deepEqual([ev?.kind, ev?.group, ev?.version, ev?.verbs], ['Eviction', 'policy', 'v1', ['create']]);
    assert.deepEqual(byName.get('pods/ephemeralcontainers')?.verbs, ['get', 'patch', 'update']);
    assert.deepEqual(byName.get('bindings')?.verbs, ['create']);
  });
});
