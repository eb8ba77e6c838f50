/**
 * Evictions through two API servers on one etcd: the disruption a budget
 * allows is taken by compare-and-swap in storage, so concurrent evictions
 * arriving at different servers cannot both spend it.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startEtcd, type EtcdServer } from '../support/etcd-server.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

const PODS = '/api/v1/namespaces/default/pods';
const PDBS = '/apis/policy/v1/namespaces/default/poddisruptionbudgets';
const MERGE = { headers: { 'content-type': 'application/merge-patch+json' } };

describe('eviction on etcd, two servers', () => {
  let etcd: EtcdServer;
  let a: TestServer;
  let b: TestServer;
  before(async () => {
    etcd = await startEtcd();
    const flags = ['--storage-backend=etcd3', `--etcd-servers=${etcd.endpoint}`, '--etcd-prefix=/orch-eviction'];
    a = await startTestServer(flags);
    b = await startTestServer(flags);
  });
  after(async () => {
    await a?.stop();
    await b?.stop();
    await etcd?.stop();
  });

  it('binds on one server, evicts on both: one eviction per allowed disruption', async () => {
    for (const name of ['e-1', 'e-2']) {
      const created = await a.request('POST', PODS, { metadata: { name, labels: { app: 'e' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
      // The answer's body in the message: a 404 here was seen once in CI (session 11) and not again in 9 runs.
      assert.equal(created.status, 201, created.body);
      assert.equal((await a.request('POST', `${PODS}/${name}/binding`, { metadata: { name }, target: { name: 'node-1' } })).status, 201);
      assert.equal((await b.request('POST', `${PODS}/${name}/binding`, { metadata: { name }, target: { name: 'node-2' } })).status, 409, 'the other server sees the binding');
      await a.request('PATCH', `${PODS}/${name}/status`, { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } }, MERGE);
    }
    assert.equal((await a.request('POST', PDBS, { metadata: { name: 'e' }, spec: { selector: { matchLabels: { app: 'e' } }, maxUnavailable: 1 } })).status, 201);
    await a.request('PATCH', `${PDBS}/e/status`, { status: { observedGeneration: 1, disruptionsAllowed: 1, currentHealthy: 2, desiredHealthy: 1, expectedPods: 2 } }, MERGE);
    const [ra, rb] = await Promise.all([
      a.request('POST', `${PODS}/e-1/eviction`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'e-1' } }),
      b.request('POST', `${PODS}/e-2/eviction`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'e-2' } }),
    ]);
    assert.deepEqual([ra.status, rb.status].sort(), [201, 429], `${ra.body} ${rb.body}`);
    const budget = (await b.request('GET', `${PDBS}/e`)).json<{ status: { disruptionsAllowed: number; disruptedPods?: Record<string, string> } }>();
    assert.equal(budget.status.disruptionsAllowed, 0);
    assert.equal(Object.keys(budget.status.disruptedPods ?? {}).length, 1);
  });
});
