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
    // A one-event window and short watches: resuming after a gap hits 410.
    t = await startTestServer(['--default-watch-cache-size=0', '--watch-cache-retention=0s', '--min-request-timeout=1']);
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
    let lists = 0;
    const informer = informerFor(t, 'churn', () => lists++);
    await informer.start();
    // Keep writing (three writers, no pause) while the informer's short watches
    // end and resume from versions the one-event window no longer holds.
    const deadline = Date.now() + 5000;
    const writer = async (w: number): Promise<void> => {
      for (let i = 0; Date.now() < deadline; i++) {
        const name = `k${w}-${i % 5}`;
        const got = await t.request('GET', `/api/v1/namespaces/churn/configmaps/${name}`);
        if (got.status === 404) await t.request('POST', '/api/v1/namespaces/churn/configmaps', { metadata: { name }, data: { i: String(i) } });
        else if (i % 3 === 0) await t.request('DELETE', `/api/v1/namespaces/churn/configmaps/${name}`);
        else await t.request('PUT', `/api/v1/namespaces/churn/configmaps/${name}`, { ...got.json<object>(), data: { i: String(i) } });
      }
    };
    await Promise.all([writer(0), writer(1), writer(2)]);
    const server = (await t.request('GET', '/api/v1/namespaces/churn/configmaps')).json<{ items: Array<{ metadata: { name: string; resourceVersion: string } }> }>();
    const want = server.items.map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`).sort();
    await eventually('the informer cache to match the server', () => {
      const have = informer.list('churn').map((o) => `${o.metadata?.name}@${o.metadata?.resourceVersion}`).sort();
      return JSON.stringify(have) === JSON.stringify(want);
    });
    assert.ok(lists >= 2, `the informer relisted after a 410 (lists: ${lists})`);
    await informer.stop();
  });
});
