/**
 * Identity leases and the `lease` endpoint reconciler, two servers on one
 * real etcd, over HTTP: each server holds its own identity Lease (name and
 * labels from the naming table) in the system namespace and renews it; the
 * API Service's Endpoints list every live server; a server whose lease stops
 * being renewed drops out of the endpoints and its lease is deleted by the
 * others; a server that stops removes itself.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startEtcd, type EtcdServer } from '../support/etcd-server.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { apiGroup, names } from '../../src/naming/index.ts';

const LEASES = `/apis/${apiGroup('coordination')}/v1/namespaces/${names.systemNamespace}/leases`;
const ENDPOINTS = `/api/v1/namespaces/default/endpoints/${names.apiServiceName}`;
const SELECTOR = encodeURIComponent(`${names.identityLease.label}=${names.identityLease.labelValue}`);

let etcd: EtcdServer;
let a: TestServer;
let b: TestServer;

before(async () => {
  etcd = await startEtcd({ unsafeNoFsync: true });
  const flags = ['--storage-backend=etcd3', `--etcd-servers=${etcd.endpoint}`, '--etcd-prefix=/orch-identity', '--identity-lease-renew-interval-seconds=1'];
  a = await startTestServer(flags);
  b = await startTestServer(flags);
});

after(async () => {
  await a?.stop();
  await b?.stop();
  await etcd?.stop();
});

async function until(what: string, f: () => Promise<boolean>, timeoutMs = 45_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await f())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

interface Lease {
  metadata: { name: string; labels?: Record<string, string>; resourceVersion: string };
  spec: { holderIdentity?: string; leaseDurationSeconds?: number; renewTime?: string };
}

async function identityLeases(s: TestServer): Promise<Lease[]> {
  const r = await s.request('GET', `${LEASES}?labelSelector=${SELECTOR}`);
  assert.equal(r.status, 200, r.body);
  return r.json<{ items: Lease[] }>().items;
}

async function endpointPorts(s: TestServer): Promise<number[]> {
  const r = await s.request('GET', ENDPOINTS);
  if (r.status !== 200) return [];
  const subsets = r.json<{ subsets?: Array<{ addresses?: Array<{ ip: string }>; ports?: Array<{ port: number }> }> }>().subsets ?? [];
  return subsets.flatMap((ss) => (ss.ports ?? []).map((p) => p.port)).sort((x, y) => x - y);
}

test('each server holds its own identity lease, renewed, with the naming table\'s name and labels', async () => {
  const leases = await identityLeases(a);
  assert.equal(leases.length, 2, JSON.stringify(leases.map((l) => l.metadata.name)));
  for (const l of leases) {
    assert.ok(l.metadata.name.startsWith(names.identityLease.namePrefix), l.metadata.name);
    assert.equal(l.spec.holderIdentity, l.metadata.name);
    assert.equal(l.spec.leaseDurationSeconds, 3600);
    assert.ok(l.metadata.labels?.[names.labels.hostname]);
  }
  const first = leases[0]!;
  await until('a renewal', async () => {
    const now = (await identityLeases(a)).find((l) => l.metadata.name === first.metadata.name);
    return now !== undefined && now.spec.renewTime !== first.spec.renewTime;
  });
});

test('the API Service endpoints list both servers', async () => {
  const want = [a.securePort, b.securePort].sort((x, y) => x - y);
  await until('both servers in the endpoints', async () => JSON.stringify(await endpointPorts(a)) === JSON.stringify(want));
});

test('a server whose lease expires drops out of the endpoints and its lease is collected', async () => {
  const name = `${names.identityLease.namePrefix}gone`;
  const renewTime = new Date().toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
  const created = await a.request('POST', LEASES, {
    apiVersion: `${apiGroup('coordination')}/v1`,
    kind: 'Lease',
    metadata: { name, labels: { [names.identityLease.label]: names.identityLease.labelValue }, annotations: { [names.identityLease.endpointAnnotation]: '127.0.0.1:1' } },
    spec: { holderIdentity: name, leaseDurationSeconds: 3, renewTime },
  });
  assert.equal(created.status, 201, created.body);
  await until('the dead server in the endpoints while its lease is live', async () => (await endpointPorts(a)).includes(1));
  await until('the dead server out of the endpoints', async () => !(await endpointPorts(a)).includes(1));
  await until('its lease collected', async () => (await a.request('GET', `${LEASES}/${name}`)).status === 404);
  assert.equal((await identityLeases(a)).length, 2, 'the live servers keep theirs');
});

test('a server that stops removes itself from the endpoints', async () => {
  const bPort = b.securePort;
  await b.stop();
  await until('the stopped server out of the endpoints', async () => JSON.stringify(await endpointPorts(a)) === JSON.stringify([a.securePort]));
  assert.equal((await identityLeases(a)).length, 1);
  assert.ok(!(await endpointPorts(a)).includes(bPort));
});
