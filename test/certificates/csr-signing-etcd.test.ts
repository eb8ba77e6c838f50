/**
 * Two API servers on one real etcd, both running the CSR signing controller
 * under the controller manager lease, signing with one CA given by
 * --cluster-signing-cert-file/--cluster-signing-key-file: the lease holder
 * signs every request once and the other signs none; when the leader stops,
 * it releases the lease and the other server takes over signing.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { startEtcd, type EtcdServer } from '../support/etcd-server.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { apiGroup, names } from '../../src/naming/index.ts';
import { caOnDisk, makeRequest, opensslVerify, type CaFiles } from './support.ts';

const CSRS = `/apis/${apiGroup('certificates')}/v1/certificatesigningrequests`;
const CLIENT = ['client auth', 'digital signature', 'key encipherment'];

describe('CSR signing with two servers on one etcd', () => {
  let etcd: EtcdServer;
  let ca: CaFiles;
  let a: TestServer;
  let b: TestServer;
  const stopped = new Set<TestServer>();
  before(async () => {
    etcd = await startEtcd({ unsafeNoFsync: true });
    ca = await caOnDisk();
    const flags = [
      '--storage-backend=etcd3',
      `--etcd-servers=${etcd.endpoint}`,
      '--etcd-prefix=/orch-csr',
      `--cluster-signing-cert-file=${ca.certFile}`,
      `--cluster-signing-key-file=${ca.keyFile}`,
      '--leader-elect-lease-duration=4s',
      '--leader-elect-renew-deadline=3s',
      '--leader-elect-retry-period=250ms',
    ];
    a = await startTestServer(flags);
    b = await startTestServer(flags);
  });
  after(async () => {
    for (const s of [a, b]) if (s && !stopped.has(s)) await s.stop();
    await etcd?.stop();
    if (ca) await rm(ca.dir, { recursive: true, force: true });
  });

  async function submitApproved(via: TestServer, name: string): Promise<void> {
    const req = await makeRequest({ subject: `CN=${name}` });
    const created = await via.request('POST', CSRS, { metadata: { name }, spec: { request: Buffer.from(req.pem).toString('base64'), signerName: names.signers.apiServerClient, usages: CLIENT } });
    assert.equal(created.status, 201, created.body);
    const cur = created.json<{ status?: unknown }>();
    cur.status = { conditions: [{ type: 'Approved', status: 'True', reason: 'Test', message: 'approved by the test' }] };
    const approved = await via.request('PUT', `${CSRS}/${name}/approval`, cur);
    assert.equal(approved.status, 200, approved.body);
  }

  async function certificateOf(via: TestServer, name: string): Promise<string> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const c = (await via.request('GET', `${CSRS}/${name}`)).json<{ status?: { certificate?: string } }>();
      if (c.status?.certificate) return Buffer.from(c.status.certificate, 'base64').toString();
      if (Date.now() > deadline) throw new Error(`no certificate for ${name}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('the lease holder signs each request once; the other server signs none', async () => {
    const names8 = Array.from({ length: 8 }, (_, i) => `req-${i}`);
    for (const [i, n] of names8.entries()) await submitApproved(i % 2 === 0 ? a : b, n);
    for (const n of names8) {
      const pem = await certificateOf(n.endsWith('0') ? b : a, n);
      const v = await opensslVerify(ca.certFile, pem, 'sslclient');
      assert.equal(v.code, 0, `${n}: ${v.out}`);
    }
    const counts = [a.server.elected.csrSigning.signedCount, b.server.elected.csrSigning.signedCount];
    assert.equal(counts[0]! + counts[1]!, 8, `signed ${JSON.stringify(counts)}`);
    assert.ok(counts.includes(0), `one server signed everything: ${JSON.stringify(counts)}`);
    const leaders = [a, b].filter((s) => s.server.elected.elector!.isLeader);
    assert.equal(leaders.length, 1);
    assert.equal(leaders[0]!.server.elected.csrSigning.signedCount, 8);
  });

  it('a stopped leader hands over: the other server signs what comes next', async () => {
    const leader = a.server.elected.elector!.isLeader ? a : b;
    const other = leader === a ? b : a;
    await leader.stop();
    stopped.add(leader);
    const before = other.server.elected.csrSigning.signedCount;
    await submitApproved(other, 'after-handover');
    const pem = await certificateOf(other, 'after-handover');
    assert.equal((await opensslVerify(ca.certFile, pem)).code, 0);
    assert.equal(other.server.elected.csrSigning.signedCount, before + 1);
    assert.equal(other.server.elected.elector!.isLeader, true);
  });
});
