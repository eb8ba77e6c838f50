/**
 * The Node mode end to end on a real server (--authorization-mode=Node):
 * a node reads the secrets, config maps and claims of its own pods and
 * nothing else; the graph follows pod creation, deletion and rebinding
 * without a restart; the node's static rules allow its broad reads and
 * writes; other users get no opinion (403). Decisions come from the graph
 * kept by watches, so the checks poll until the watch has delivered.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { apiGroup, names } from '../../src/naming/index.ts';

const N1 = { token: 'node1-token-0123456789' };
const N2 = { token: 'node2-token-0123456789' };
const BOB = { token: 'bob-token-0123456789' };

function pod(name: string, nodeName: string | undefined, spec: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'c', image: 'busybox', ...((spec['container'] as object) ?? {}) }], ...Object.fromEntries(Object.entries(spec).filter(([k]) => k !== 'container')) },
  };
}

async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('Node authorization mode', () => {
  let ts: TestServer;
  let dir: string;

  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'authz-node-'));
    const tokens = path.join(dir, 'tokens.csv');
    await fs.writeFile(
      tokens,
      [`${N1.token},system:node:n1,uid-n1,"system:nodes"`, `${N2.token},system:node:n2,uid-n2,"system:nodes"`, `${BOB.token},bob,uid-bob,"devs"`].join('\n') + '\n',
      { mode: 0o600 },
    );
    ts = await startTestServer(['--authorization-mode=Node', `--token-auth-file=${tokens}`]);
    const admin = async (method: string, p: string, body?: unknown): Promise<void> => {
      const r = await ts.request(method, p, body);
      assert.ok(r.status < 300, `${method} ${p}: ${r.status} ${r.body}`);
    };
    for (const s of ['s1', 's2', 's3', 'pull', 'env']) await admin('POST', '/api/v1/namespaces/default/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: s } });
    await admin('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm1' } });
    await admin('POST', '/api/v1/namespaces/default/pods', pod('p1', 'n1', {
      imagePullSecrets: [{ name: 'pull' }],
      volumes: [{ name: 'v', secret: { secretName: 's1' } }, { name: 'c', configMap: { name: 'cm1' } }, { name: 'd', persistentVolumeClaim: { claimName: 'claim1' } }],
      container: { env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 'env', key: 'k' } } }] },
    }));
    await admin('POST', '/api/v1/namespaces/default/pods', pod('p2', 'n2', { volumes: [{ name: 'v', secret: { secretName: 's2' } }] }));
    await admin('POST', '/api/v1/persistentvolumes', {
      apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv1' },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/x' }, claimRef: { namespace: 'default', name: 'claim1' } },
    });
  });

  after(async () => {
    await ts?.stop();
    await fs.rm(dir, { recursive: true, force: true });
  });

  const status = async (method: string, p: string, as: { token: string }, body?: unknown): Promise<number> => (await ts.request(method, p, body, { as })).status;

  it("lets a node read what its own pods reference, and nothing of another node's pods", async () => {
    await eventually('n1 may read s1', async () => (await status('GET', '/api/v1/namespaces/default/secrets/s1', N1)) === 200);
    for (const s of ['pull', 'env']) assert.equal(await status('GET', `/api/v1/namespaces/default/secrets/${s}`, N1), 200, s);
    assert.equal(await status('GET', '/api/v1/namespaces/default/configmaps/cm1', N1), 200);
    const denied = await ts.request('GET', '/api/v1/namespaces/default/secrets/s2', undefined, { as: N1 });
    assert.equal(denied.status, 403);
    assert.equal(
      denied.json()['message'],
      `secrets "s2" is forbidden: User "system:node:n1" cannot get resource "secrets" in API group "" in the namespace "default": no relationship found between node 'n1' and this object`,
    );
    await eventually('n2 may read s2', async () => (await status('GET', '/api/v1/namespaces/default/secrets/s2', N2)) === 200);
    assert.equal(await status('GET', '/api/v1/namespaces/default/secrets/s1', N2), 403);
  });

  it('decides from the watched graph: no storage call for a decision', async () => {
    const router = ts.server.router;
    const calls: string[] = [];
    const previous = router.observe;
    router.observe = (op, resource, seconds) => {
      calls.push(`${op} ${resource}`);
      previous?.(op, resource, seconds);
    };
    try {
      // Denied requests never reach a handler: whatever storage call happened would be the authorizer's.
      for (let i = 0; i < 20; i++) assert.equal(await status('GET', '/api/v1/namespaces/default/secrets/s2', N1), 403);
      assert.equal(calls.length, 0, calls.join(', '));
      // Allowed ones read only the object asked for (the handler's own get).
      for (let i = 0; i < 5; i++) assert.equal(await status('GET', '/api/v1/namespaces/default/secrets/s1', N1), 200);
      assert.ok(calls.length >= 5, 'the handler reads are seen, so the count above means something');
      assert.ok(calls.every((c) => c.endsWith('/secrets')), calls.join(', '));
    } finally {
      router.observe = previous;
    }
  });

  it('allows only named reads of graph-bound objects (no list of all secrets, no writes)', async () => {
    assert.equal(await status('GET', '/api/v1/namespaces/default/secrets', N1), 403);
    assert.equal(await status('GET', '/api/v1/namespaces/default/secrets?fieldSelector=metadata.name%3Ds1', N1), 200);
    assert.equal(await status('DELETE', '/api/v1/namespaces/default/secrets/s1', N1), 403);
    assert.equal(await status('PUT', '/api/v1/namespaces/default/configmaps/cm1', N1, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm1' } }), 403);
  });

  it('reaches a persistent volume through the claim its pod uses', async () => {
    await eventually('n1 may get pv1', async () => (await status('GET', '/api/v1/persistentvolumes/pv1', N1)) === 200);
    assert.equal(await status('GET', '/api/v1/persistentvolumes/pv1', N2), 403);
    assert.equal(await status('GET', '/api/v1/persistentvolumes', N1), 403);
  });

  it('follows the graph as pods come and go, without a restart', async () => {
    assert.equal(await status('GET', '/api/v1/namespaces/default/secrets/s3', N1), 403);
    assert.equal((await ts.request('POST', '/api/v1/namespaces/default/pods', pod('p3', 'n1', { volumes: [{ name: 'v', projected: { sources: [{ secret: { name: 's3' } }] } }] }))).status, 201);
    await eventually('n1 may read s3 after p3 is bound to it', async () => (await status('GET', '/api/v1/namespaces/default/secrets/s3', N1)) === 200);
    assert.equal((await ts.request('DELETE', '/api/v1/namespaces/default/pods/p3?gracePeriodSeconds=0')).status, 200);
    await eventually('n1 loses s3 when p3 is gone', async () => (await status('GET', '/api/v1/namespaces/default/secrets/s3', N1)) === 403);
    // An unscheduled pod grants nothing.
    assert.equal((await ts.request('POST', '/api/v1/namespaces/default/pods', pod('p4', undefined, { volumes: [{ name: 'v', secret: { secretName: 's3' } }] }))).status, 201);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(await status('GET', '/api/v1/namespaces/default/secrets/s3', N1), 403);
  });

  it("gives a node its static rules: read pods, nodes, services; write its pods' status; its own lease", async () => {
    assert.equal(await status('GET', '/api/v1/pods', N1), 200);
    assert.equal(await status('GET', '/api/v1/nodes', N1), 200);
    assert.equal(await status('GET', '/api/v1/services', N1), 200);
    assert.equal(await status('GET', '/api/v1/namespaces/default/endpoints/kubernetes', N1), 200);
    const lease = (name: string) => ({ apiVersion: `${apiGroup('coordination')}/v1`, kind: 'Lease', metadata: { name } });
    const leases = `/apis/${apiGroup('coordination')}/v1/namespaces/${names.nodeLeaseNamespace}/leases`;
    assert.equal(await status('POST', leases, N1, lease('n1')), 201);
    assert.equal(await status('GET', `${leases}/n1`, N1), 200);
    assert.equal(await status('GET', `${leases}/n1`, N2), 403);
    assert.equal(await status('GET', `/apis/${apiGroup('coordination')}/v1/namespaces/default/leases/n1`, N1), 403);
    assert.equal(await status('DELETE', '/api/v1/namespaces/default/services/kubernetes', N1), 403);
  });

  it('has no opinion on users that are not nodes (denied here, as no other mode allows)', async () => {
    assert.equal(await status('GET', '/api/v1/namespaces/default/secrets/s1', BOB), 403);
    assert.equal(await status('GET', '/api/v1/pods', BOB), 403);
  });
});
