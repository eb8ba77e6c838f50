/**
 * @kubernetes/client-node informers against the server: list then watch,
 * bookmarks, and relisting after a 410 when the resume point is gone.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import { startTestServer, type TestServer } from '../support/test-server.ts';

async function eventually(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function informerFor(t: TestServer, namespace: string, onList: () => void): k8s.Informer<k8s.V1ConfigMap> & k8s.ObjectCache<k8s.V1ConfigMap> {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(t.kubeconfig);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const list = (): Promise<k8s.V1ConfigMapList> => {
    onList();
    return core.listNamespacedConfigMap({ namespace });
  };
  return k8s.makeInformer(kc, `/api/v1/namespaces/${namespace}/configmaps`, list);
}

describe('client-node informers', () => {
  let t: TestServer;
  before(async () => {
    // Frequent compaction, so a resume point can be made to fall out of history.
    t = await startTestServer(['--etcd-compaction-interval=200ms']);
  });
  after(async () => {
    await t?.stop();
  });

  it('lists, then follows adds, updates and deletes', async () => {
    await t.request('POST', '/api/v1/namespaces', { metadata: { name: 'inf' } });
    await t.request('POST', '/api/v1/namespaces/inf/configmaps', { metadata: { name: 'before' } });
    const seen: string[] = [];
    const informer = informerFor(t, 'inf', () => {});
    informer.on('add', (o) => seen.push(`add ${o.metadata?.name}`));
    informer.on('update', (o) => seen.push(`update ${o.metadata?.name}`));
    informer.on('delete', (o) => seen.push(`delete ${o.metadata?.name}`));
    await informer.start();
    await eventually('the listed object', () => seen.includes('add before'));
    await t.request('POST', '/api/v1/namespaces/inf/configmaps', { metadata: { name: 'live' }, data: { v: '1' } });
    await eventually('add live', () => seen.includes('add live'));
    const cur = (await t.request('GET', '/api/v1/namespaces/inf/configmaps/live')).json<{ metadata: Record<string, unknown> }>();
    await t.request('PUT', '/api/v1/namespaces/inf/configmaps/live', { ...cur, data: { v: '2' } });
    await eventually('update live', () => seen.includes('update live'));
    await t.request('DELETE', '/api/v1/namespaces/inf/configmaps/live');
    await eventually('delete live', () => seen.includes('delete live'));
    assert.equal(informer.get('live', 'inf'), undefined);
    assert.equal(informer.get('before', 'inf')?.metadata?.name, 'before');
    await informer.stop();
  });

  it('relists after 410 and converges on the server\'s state', async () => {
    await t.request('POST', '/api/v1/namespaces', { metadata: { name: 'churn' } });
    await t.request('POST', '/api/v1/namespaces/churn/configmaps', { metadata: { name: 'old' } });
    let lists = 0;
    const informer = informerFor(t, 'churn', () => lists++);
    const errors: unknown[] = [];
    informer.on('error', (err) => errors.push(err));
    await informer.start();
    await eventually('the first list', () => informer.list('churn').length === 1);
    // Move the store on elsewhere and let compaction (every 200 ms) pass the
    // informer's resume point; then restart the shard that serves configmaps.
    // Its new cache starts at the latest state, so the informer's watch can
    // only be answered with 410, and the informer must relist.
    for (let i = 0; i < 5; i++) await t.request('POST', '/api/v1/namespaces/default/secrets', { metadata: { name: `advance-${i}` } });
    await new Promise((r) => setTimeout(r, 700));
    await t.server.router.shardOf('/configmaps').restart();
    await eventually('a relist after the 410', () => lists >= 2);
    await t.request('POST', '/api/v1/namespaces/churn/configmaps', { metadata: { name: 'new' } });
    const server = (await t.request('GET', '/api/v1/namespaces/churn/configmaps')).json<{ items: Array<{ metadata: { name: string; resourceVersion: string } }> }>();
    const want = server.items.map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`).sort();
    await eventually('the informer cache to match the server', () => {
      const have = informer.list('churn').map((o) => `${o.metadata?.name}@${o.metadata?.resourceVersion}`).sort();
      return JSON.stringify(have) === JSON.stringify(want);
    });
    assert.deepEqual(want.map((w) => w.split('@')[0]), ['new', 'old']);
    assert.deepEqual(errors, [], 'a 410 is not an error for the informer');
    await informer.stop();
  });
});
