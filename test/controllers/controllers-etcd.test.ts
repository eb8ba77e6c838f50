/**
 * Two API servers on one real etcd run the built-in controllers once: only
 * the holder of the controller manager lease writes (its counters add up to
 * the work, the other's stay at zero); when it stops, the other takes over,
 * does what comes next, and does none of the work already done again; a
 * server started afterwards on the same etcd waits as the follower.
 */
import { after, before, describe, it } from 'node:test';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import { startEtcd, type EtcdServer } from '../support/etcd-server.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { names } from '../../src/naming/index.ts';
import type { ServiceAccountsController } from '../../src/controllers/serviceaccounts-controller.ts';
import type { RootCaPublisher } from '../../src/controllers/root-ca-publisher.ts';
import type { ServiceAccountTokenController } from '../../src/controllers/sa-token-controller.ts';
import type { CsrApprover } from '../../src/controllers/csr-approver.ts';
import type { TokenCleaner } from '../../src/controllers/token-cleaner.ts';
import type { BootstrapSigner } from '../../src/controllers/bootstrap-signer.ts';
import { CSRS, NODE_CLIENT_USAGES, SECRETS_SYS, csrBody, makeCsr, sleep, tokenSecret, waitFor } from './support.ts';

interface Counts {
  sa: number;
  rootCa: number;
  tokens: number;
  approved: number;
  cleaned: number;
  signerUpdates: number;
}

function counts(s: TestServer): Counts {
  const c = s.server.controllerManager.controllers;
  return {
    sa: (c.get('serviceaccount') as ServiceAccountsController).created,
    rootCa: (c.get('root-ca-cert-publisher') as RootCaPublisher).writes,
    tokens: (c.get('serviceaccount-token') as ServiceAccountTokenController).generated,
    approved: (c.get('csrapproving') as CsrApprover).approved,
    cleaned: (c.get('tokencleaner') as TokenCleaner).deleted,
    signerUpdates: (c.get('bootstrapsigner') as BootstrapSigner).updates,
  };
}

const ZERO: Counts = { sa: 0, rootCa: 0, tokens: 0, approved: 0, cleaned: 0, signerUpdates: 0 };

describe('built-in controllers with two servers on one etcd', () => {
  let etcd: EtcdServer;
  let tmp: string;
  const servers: TestServer[] = [];
  const stopped = new Set<TestServer>();
  const flags = (): string[] => [
    '--storage-backend=etcd3',
    `--etcd-servers=${etcd.endpoint}`,
    '--etcd-prefix=/orch-ctrl',
    '--enable-bootstrap-token-auth',
    '--controllers=*,bootstrapsigner,tokencleaner',
    '--leader-elect-lease-duration=4s',
    '--leader-elect-renew-deadline=3s',
    '--leader-elect-retry-period=250ms',
    // One cluster, one root CA: the data dirs' own CAs differ per test server.
    `--root-ca-file=${path.join(tmp, 'ca.crt')}`,
  ];
  before(async () => {
    etcd = await startEtcd({ unsafeNoFsync: true });
    tmp = await mkdtemp(path.join(os.tmpdir(), 'orch-ctrl-'));
    await writeFile(path.join(tmp, 'ca.crt'), '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    servers.push(await startTestServer(flags()));
    servers.push(await startTestServer(flags()));
  });
  after(async () => {
    for (const s of servers) if (!stopped.has(s)) await s.stop();
    await etcd?.stop();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  const exists = async (via: TestServer, path: string): Promise<boolean> => (await via.request('GET', path)).status === 200;

  async function work(via: TestServer, tag: string): Promise<void> {
    assert.equal((await via.request('POST', '/api/v1/namespaces', { metadata: { name: `ns-${tag}` } })).status, 201);
    assert.equal((await via.request('POST', `/api/v1/namespaces/ns-${tag}/serviceaccounts`, { metadata: { name: 'robot' } })).status, 201);
    const secret = await via.request('POST', `/api/v1/namespaces/ns-${tag}/secrets`, {
      metadata: { name: 'robot-token', annotations: { [names.annotations.serviceAccountName]: 'robot' } },
      type: names.secretTypes.serviceAccountToken,
    });
    assert.equal(secret.status, 201, secret.body);
    const { pem } = await makeCsr(`CN=system:node:${tag}, O=system:nodes`);
    assert.equal((await via.request('POST', CSRS, csrBody(`node-${tag}`, pem, names.signers.apiServerClientNodeAgent, NODE_CLIENT_USAGES))).status, 201);
    const past = new Date(Date.now() - 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    assert.equal((await via.request('POST', SECRETS_SYS, tokenSecret(`old${tag.padEnd(3, '0').slice(0, 3)}`, '0123456789abcdef', { expiration: past }))).status, 201);
  }

  async function done(via: TestServer, tag: string): Promise<void> {
    await waitFor(() => exists(via, `/api/v1/namespaces/ns-${tag}/serviceaccounts/default`), `default account in ns-${tag}`);
    await waitFor(() => exists(via, `/api/v1/namespaces/ns-${tag}/configmaps/${names.rootCaConfigMap}`), `root CA in ns-${tag}`);
    await waitFor(async () => (await via.request('GET', `/api/v1/namespaces/ns-${tag}/secrets/robot-token`)).json<{ data?: { token?: string } }>().data?.token !== undefined, `token in ns-${tag}`);
    await waitFor(async () => ((await via.request('GET', `${CSRS}/node-${tag}`)).json<{ status?: { conditions?: unknown[] } }>().status?.conditions ?? []).length > 0, `node-${tag} approved`);
    await waitFor(async () => !(await exists(via, `${SECRETS_SYS}/bootstrap-token-old${tag.padEnd(3, '0').slice(0, 3)}`)), `expired token of ${tag} deleted`);
  }

  it('the lease holder does all the work, the other none', async () => {
    const [a, b] = servers as [TestServer, TestServer];
    await waitFor(() => a.server.controllerManager.isLeader || b.server.controllerManager.isLeader, 'a leader');
    for (const [i, tag] of ['one', 'two', 'thr', 'fou'].entries()) await work(i % 2 === 0 ? a : b, tag);
    for (const [i, tag] of ['one', 'two', 'thr', 'fou'].entries()) await done(i % 2 === 0 ? b : a, tag);
    const leader = a.server.controllerManager.isLeader ? a : b;
    const follower = leader === a ? b : a;
    assert.equal(follower.server.controllerManager.isLeader, false);
    assert.deepEqual(counts(follower), ZERO);
    const c = counts(leader);
    // 4 system namespaces + 4 new ones: one account and one CA config map each.
    assert.equal(c.sa, 8);
    assert.equal(c.rootCa, 8);
    assert.equal(c.tokens, 4);
    assert.equal(c.approved, 4);
    assert.equal(c.cleaned, 4);
  });

  it('a stopped leader hands over; the new leader redoes nothing and does what follows; a restarted server follows', async () => {
    const [a, b] = servers as [TestServer, TestServer];
    const leader = a.server.controllerManager.isLeader ? a : b;
    const other = leader === a ? b : a;
    await leader.stop();
    stopped.add(leader);
    await waitFor(() => other.server.controllerManager.isLeader, 'the takeover');
    await work(other, 'fiv');
    await done(other, 'fiv');
    // Give the new leader time to redo anything it wrongly would.
    await sleep(1000);
    const c = counts(other);
    assert.equal(c.sa, 1);
    assert.equal(c.rootCa, 1);
    assert.equal(c.tokens, 1);
    assert.equal(c.approved, 1);
    assert.equal(c.cleaned, 1);
    // One certificate request approval each: nothing was approved twice.
    for (const tag of ['one', 'two', 'thr', 'fou', 'fiv']) {
      const conds = (await other.request('GET', `${CSRS}/node-${tag}`)).json<{ status: { conditions: Array<{ type: string }> } }>().status.conditions;
      assert.deepEqual(conds.map((x) => x.type), ['Approved'], tag);
    }
    // A server started now on the same etcd follows.
    const c3 = await startTestServer(flags());
    servers.push(c3);
    await sleep(1500);
    assert.equal(c3.server.controllerManager.isLeader, false);
    assert.deepEqual(counts(c3), ZERO);
    assert.equal(other.server.controllerManager.isLeader, true);
  });
});
