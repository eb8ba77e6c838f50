/**
 * The items of a JSON list carry kind and apiVersion as the original's do:
 * a built-in type's list names them once, on the list, and leaves them out of
 * its items (the original encodes its typed lists' items without TypeMeta);
 * a custom resource's items keep them (the original's unstructured lists).
 * Items converted to another version than the stored one go without them
 * too. GET and watch events are unchanged, and the items are otherwise the
 * objects a GET returns, whole, paged and from the cache (streamed lists:
 * list-streamed.test.ts).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/test-server.ts';

const NS = 'typemeta';
const LIST = `/api/v1/namespaces/${NS}/configmaps`;

type Obj = { kind?: string; apiVersion?: string; metadata: { name: string; resourceVersion?: string }; [k: string]: unknown };
interface List {
  kind: string;
  apiVersion: string;
  metadata: { continue?: string };
  items: Obj[];
}

describe('kind and apiVersion of list items', () => {
  let srv: TestServer;

  before(async () => {
    srv = await startTestServer([]);
    assert.equal((await srv.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status, 201);
    for (let i = 0; i < 5; i++) {
      const r = await srv.request('POST', LIST, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: { i: String(i) } });
      assert.equal(r.status, 201, r.body);
    }
  });
  after(async () => {
    await srv?.stop();
  });

  const list = async (path: string): Promise<List> => {
    const r = await srv.request('GET', path);
    assert.equal(r.status, 200, r.body);
    return r.json<List>();
  };

  it('leaves them out of a built-in type\'s items, which are otherwise what GET returns', async () => {
    const l = await list(LIST);
    assert.equal(l.kind, 'ConfigMapList');
    assert.equal(l.apiVersion, 'v1');
    assert.equal(l.items.length, 5);
    for (const item of l.items) {
      assert.ok(!('kind' in item) && !('apiVersion' in item), `no TypeMeta on ${JSON.stringify(item).slice(0, 80)}`);
      const got = (await srv.request('GET', `${LIST}/${item.metadata.name}`)).json<Obj>();
      assert.equal(got.kind, 'ConfigMap', 'GET keeps them');
      assert.equal(got.apiVersion, 'v1');
      const { kind: _k, apiVersion: _a, ...rest } = got;
      assert.deepEqual(item, rest);
    }
  });

  it('leaves them out of pages, of lists from the cache, and of cluster-scoped lists', async () => {
    const first = await list(`${LIST}?limit=2`);
    const second = await list(`${LIST}?limit=2&continue=${encodeURIComponent(first.metadata.continue ?? '')}`);
    const cached = await list(`${LIST}?resourceVersion=0`);
    const namespaces = await list('/api/v1/namespaces');
    for (const item of [...first.items, ...second.items, ...cached.items, ...namespaces.items]) {
      assert.ok(!('kind' in item) && !('apiVersion' in item), item.metadata.name);
    }
    assert.deepEqual(
      [...first.items, ...second.items].map((i) => i.metadata.name),
      ['cm-0', 'cm-1', 'cm-2', 'cm-3'],
    );
    assert.ok(namespaces.items.some((n) => n.metadata.name === NS));
  });

  it('keeps them on watch events, and leaves them out of a list converted to another version too', async () => {
    const w = await srv.watch(`${LIST}?watch=true&resourceVersion=0`);
    try {
      await w.until(() => w.events.length >= 5, 'the initial events');
      assert.ok(w.events.every((e) => e.object.kind === 'ConfigMap' && e.object.apiVersion === 'v1'));
    } finally {
      w.close();
    }
    // HorizontalPodAutoscalers are stored as autoscaling/v2: an autoscaling/v1 list converts its items (parsed), then leaves
    // out their kind and apiVersion; a relabeled version (policy/v1beta1 PodDisruptionBudgets, the same fields) likewise.
    const hpa = {
      apiVersion: 'autoscaling/v1',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'web' },
      spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 3 },
    };
    assert.equal((await srv.request('POST', `/apis/autoscaling/v1/namespaces/${NS}/horizontalpodautoscalers`, hpa)).status, 201);
    const v1 = await list(`/apis/autoscaling/v1/namespaces/${NS}/horizontalpodautoscalers`);
    assert.equal(v1.apiVersion, 'autoscaling/v1');
    assert.deepEqual(v1.items.map((i) => [i.apiVersion, i.kind, i.metadata.name]), [[undefined, undefined, 'web']]);
    assert.equal((v1.items[0]!['spec'] as { maxReplicas?: number }).maxReplicas, 3, 'in the v1 shape');
    const v2 = await list(`/apis/autoscaling/v2/namespaces/${NS}/horizontalpodautoscalers`);
    assert.equal(v2.apiVersion, 'autoscaling/v2');
    assert.deepEqual(v2.items.map((i) => [i.apiVersion, i.kind, i.metadata.name]), [[undefined, undefined, 'web']]);
    const pdb = { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'web' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } } } };
    assert.equal((await srv.request('POST', `/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets`, pdb)).status, 201);
    const cronJob = {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'nightly' },
      spec: { schedule: '0 0 * * *', jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'busybox' }] } } } } },
    };
    const created = await srv.request('POST', `/apis/batch/v1/namespaces/${NS}/cronjobs`, cronJob);
    assert.equal(created.status, 201, created.body);
    // batch/v1beta1 CronJobs have v1's fields: their list is the stored bytes with the head cut (no parsing).
    const beta = await list(`/apis/batch/v1beta1/namespaces/${NS}/cronjobs`);
    assert.equal(beta.apiVersion, 'batch/v1beta1');
    assert.deepEqual(beta.items.map((i) => [i.apiVersion, i.kind, i.metadata.name]), [[undefined, undefined, 'nightly']]);
    const { kind: _k, apiVersion: _a, ...asGot } = (await srv.request('GET', `/apis/batch/v1beta1/namespaces/${NS}/cronjobs/nightly`)).json<Obj>();
    assert.deepEqual(beta.items[0], asGot);
    for (const version of ['v1', 'v1beta1']) {
      const l = await list(`/apis/policy/${version}/namespaces/${NS}/poddisruptionbudgets`);
      assert.equal(l.apiVersion, `policy/${version}`);
      assert.deepEqual(l.items.map((i) => [i.apiVersion, i.kind, i.metadata.name]), [[undefined, undefined, 'web']], version);
    }
  });
});
