/**
 * `--event-ttl`: events disappear about a TTL after their last write, over
 * HTTP, on both backends: on etcd by the lease attached to each event's key
 * (checked in etcd itself: the key carries a lease), on the embedded store by
 * the owner shard's sweeper. Other kinds written alongside stay, and an event
 * is readable right after it is written.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Etcd3 } from 'etcd3';
import { startEtcd, type EtcdServer } from '../support/etcd-server.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

const TTL_S = 4;
const NS = 'default';

async function until(what: string, f: () => Promise<boolean>, timeoutMs = 45_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await f())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function event(name: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name },
    involvedObject: { kind: 'Pod', namespace: NS, name: 'p' },
    reason: 'Testing',
    message: 'expires',
    type: 'Normal',
  };
}

async function expiresOver(s: TestServer, name: string): Promise<void> {
  const created = await s.request('POST', `/api/v1/namespaces/${NS}/events`, event(name));
  assert.equal(created.status, 201, created.body);
  const cm = await s.request('POST', `/api/v1/namespaces/${NS}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${name}-keep` }, data: { a: 'b' } });
  assert.equal(cm.status, 201, cm.body);
  assert.equal((await s.request('GET', `/api/v1/namespaces/${NS}/events/${name}`)).status, 200);
  await until(`event ${name} to expire`, async () => (await s.request('GET', `/api/v1/namespaces/${NS}/events/${name}`)).status === 404);
  // The events.<group> view of the same storage agrees; the ConfigMap written with it is still there.
  const list = await s.request('GET', `/api/v1/namespaces/${NS}/events`);
  assert.equal(list.status, 200);
  assert.ok(!(list.json<{ items: Array<{ metadata: { name: string } }> }>().items.some((e) => e.metadata.name === name)));
  assert.equal((await s.request('GET', `/api/v1/namespaces/${NS}/configmaps/${name}-keep`)).status, 200);
}

describe('--event-ttl on the embedded store (sweeper)', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer([`--event-ttl=${TTL_S}s`]);
  });
  after(async () => {
    await s?.stop();
  });

  test('an event is removed after the TTL; other objects stay', async () => {
    await expiresOver(s, 'embedded-ev');
  });

  test('an update restarts the TTL: a rewritten event outlives its first deadline until it expires too', async () => {
    const created = await s.request('POST', `/api/v1/namespaces/${NS}/events`, event('rewritten'));
    assert.equal(created.status, 201, created.body);
    const rv = created.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
    const put = await s.request('PUT', `/api/v1/namespaces/${NS}/events/rewritten`, { ...event('rewritten'), metadata: { name: 'rewritten', resourceVersion: rv }, message: 'again' });
    assert.equal(put.status, 200, put.body);
    await until('rewritten event to expire', async () => (await s.request('GET', `/api/v1/namespaces/${NS}/events/rewritten`)).status === 404);
  });
});

describe('--event-ttl on etcd (leases)', () => {
  let etcd: EtcdServer;
  let s: TestServer;
  before(async () => {
    etcd = await startEtcd({ unsafeNoFsync: true });
    s = await startTestServer(['--storage-backend=etcd3', `--etcd-servers=${etcd.endpoint}`, '--etcd-prefix=/orch-ttl', `--event-ttl=${TTL_S}s`]);
  });
  after(async () => {
    await s?.stop();
    await etcd?.stop();
  });

  test("each event's key carries an etcd lease of the TTL; keys of other kinds none", async () => {
    for (const n of ['lease-a', 'lease-b']) assert.equal((await s.request('POST', `/api/v1/namespaces/${NS}/events`, event(n))).status, 201);
    const client = new Etcd3({ hosts: etcd.endpoint });
    try {
      for (const n of ['lease-a', 'lease-b']) {
        const res = await client.kv.range({ key: Buffer.from(`/orch-ttl/events/${NS}/${n}`) });
        const lease = res.kvs[0]?.lease;
        assert.ok(lease !== undefined && lease !== '0', `event ${n} has a lease`);
        const ttl = await client.leaseClient.leaseTimeToLive({ ID: lease, keys: false });
        assert.ok(Number(ttl.grantedTTL) >= TTL_S, `granted ${ttl.grantedTTL}`);
      }
      assert.equal((await s.request('POST', `/api/v1/namespaces/${NS}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'no-lease' } })).status, 201);
      const cm = await client.kv.range({ key: Buffer.from(`/orch-ttl/configmaps/${NS}/no-lease`) });
      assert.equal(cm.kvs[0]?.lease, '0');
    } finally {
      client.close();
    }
  });

  test('an event is removed after the TTL; other objects stay', async () => {
    await expiresOver(s, 'etcd-ev');
  });
});
