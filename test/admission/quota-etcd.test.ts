/**
 * Two API servers on one real etcd charging one quota: pods created
 * concurrently through both never exceed `pods: N`, because every charge is
 * a compare-and-swap on the quota's status (a lost race re-reads and
 * re-checks), and the usage recorded matches the pods stored.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startEtcd, type EtcdServer } from '../support/etcd-server.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

const NS = 'quota-race';
const N = 5;
const ATTEMPTS_PER_SERVER = 15;

let etcd: EtcdServer;
let a: TestServer;
let b: TestServer;

before(async () => {
  etcd = await startEtcd({ unsafeNoFsync: true });
  const flags = ['--storage-backend=etcd3', `--etcd-servers=${etcd.endpoint}`, '--etcd-prefix=/orch-quota', '--enable-admission-plugins=ResourceQuota'];
  a = await startTestServer(flags);
  b = await startTestServer(flags);
});

after(async () => {
  await a?.stop();
  await b?.stop();
  await etcd?.stop();
});

async function until(what: string, f: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await f())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test(`pods created at once through two servers never pass pods: ${N}`, async () => {
  assert.equal((await a.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status, 201);
  for (const [name, hard] of [
    ['pods', { pods: String(N) }],
    // Created second: a server whose quota index refuses a secret has the pods quota too (watch order).
    ['probe', { 'count/secrets': '0' }],
  ] as const) {
    const r = await a.request('POST', `/api/v1/namespaces/${NS}/resourcequotas`, { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name }, spec: { hard } });
    assert.equal(r.status, 201, r.body);
  }
  for (const s of [a, b]) {
    await until('both quotas enforced on each server', async () => {
      const r = await s.request('POST', `/api/v1/namespaces/${NS}/secrets?dryRun=All`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'probe' } });
      return r.status === 403 && /exceeded quota: probe/.test(r.body);
    });
  }
  const pod = (name: string): Record<string, unknown> => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
  const attempts: Array<Promise<{ status: number; body: string }>> = [];
  for (let i = 0; i < ATTEMPTS_PER_SERVER; i++) {
    attempts.push(a.request('POST', `/api/v1/namespaces/${NS}/pods`, pod(`a-${i}`)));
    attempts.push(b.request('POST', `/api/v1/namespaces/${NS}/pods`, pod(`b-${i}`)));
  }
  const answers = await Promise.all(attempts);
  const admitted = answers.filter((r) => r.status === 201).length;
  for (const r of answers) {
    if (r.status === 201) continue;
    // Refused past the quota, or (a race lost too often) a conflict: never anything else.
    assert.ok(r.status === 403 || r.status === 409, `${r.status} ${r.body}`);
  }
  assert.ok(admitted <= N, `admitted ${admitted} pods against pods: ${N}`);
  assert.equal(admitted, N, `the quota fills up: ${answers.map((r) => r.status).join(' ')}`);
  const stored = (await a.request('GET', `/api/v1/namespaces/${NS}/pods`)).json<{ items: unknown[] }>().items.length;
  assert.equal(stored, admitted);
  const q = (await b.request('GET', `/api/v1/namespaces/${NS}/resourcequotas/pods`)).json<{ status: { used: Record<string, string> } }>();
  assert.equal(q.status.used['pods'], String(N));
});
