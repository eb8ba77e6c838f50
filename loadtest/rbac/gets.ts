/**
 * GETs through the whole request pipeline in-process (no sockets, so the
 * per-request cost of authorization is as large a share as it can be): one
 * server with --authorization-mode=AlwaysAllow, one with RBAC, and on the
 * RBAC server a user whose access comes from a RoleBinding to `view` (RBAC
 * evaluates every request) beside the admin token (system:masters, allowed
 * before RBAC is asked). Batches alternate between the three so machine
 * noise falls on all alike; medians of the batches are reported.
 *
 *   node --import tsx loadtest/rbac/gets.ts
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from '../../test/support/test-server.ts';
import { FuzzRequest, RecordingResponse } from '../../test/fuzz/support/exchange.ts';
import { apiGroup } from '../../src/naming/index.ts';

const BATCH = Number(process.env['BENCH_RBAC_BATCH'] ?? 400);
const ROUNDS = Number(process.env['BENCH_RBAC_ROUNDS'] ?? 15);
const OBJECTS = 100;
const VIEWER_TOKEN = 'rbac-bench-viewer-token-0123456789';

async function setup(t: TestServer): Promise<void> {
  for (let i = 0; i < OBJECTS; i++) {
    const r = await t.request('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: { k: 'v'.repeat(512) } });
    if (r.status !== 201) throw new Error(`setup: ${r.status} ${r.body}`);
  }
}

async function batch(t: TestServer, token: string): Promise<number> {
  const handler = t.server.handler;
  const start = process.hrtime.bigint();
  for (let i = 0; i < BATCH; i++) {
    const req = new FuzzRequest({ method: 'GET', url: `/api/v1/namespaces/default/configmaps/cm-${i % OBJECTS}`, headers: [['authorization', `Bearer ${token}`], ['accept', 'application/json']], body: new Uint8Array() });
    const res = new RecordingResponse();
    await handler(req, res);
    if (res.status !== 200) throw new Error(`GET answered ${res.status}`);
  }
  return BATCH / (Number(process.hrtime.bigint() - start) / 1e9);
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'orch-rbac-gets-'));
const tokenFile = path.join(dir, 'tokens.csv');
try {
  const allow = await startTestServer(['--authorization-mode=AlwaysAllow', '--uws-port=0']);
  const rbacDataDir = path.join(dir, 'rbac-data');
  const rbac = await startTestServer(['--authorization-mode=RBAC', '--uws-port=0'], { dataDir: rbacDataDir });
  // The viewer's token: appended to the RBAC server's own token file is not possible after start, so a
  // second start reads a token file with both the admin and the viewer.
  const adminLine = (await fs.readFile(rbac.server.files.tokenFilePath, 'utf8')).trim();
  await fs.writeFile(tokenFile, `${adminLine}\n${VIEWER_TOKEN},bench-viewer,bench-viewer\n`, { mode: 0o600 });
  await rbac.stop();
  const rbac2 = await startTestServer(['--authorization-mode=RBAC', '--uws-port=0', `--token-auth-file=${tokenFile}`], { dataDir: rbacDataDir });
  const rbacGroup = apiGroup('rbac.authorization');
  const b = await rbac2.request('POST', `/apis/${rbacGroup}/v1/namespaces/default/rolebindings`, {
    apiVersion: `${rbacGroup}/v1`, kind: 'RoleBinding', metadata: { name: 'bench-viewer' },
    roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'User', apiGroup: rbacGroup, name: 'bench-viewer' }],
  });
  if (b.status !== 201) throw new Error(`binding: ${b.status} ${b.body}`);
  await Promise.all([setup(allow), setup(rbac2)]);
  const adminToken = allow.server.files.adminToken;
  const rbacAdminToken = rbac2.server.files.adminToken;
  // Wait for the binding to reach the index, then warm up all three.
  for (let i = 0; ; i++) {
    try {
      await batch(rbac2, VIEWER_TOKEN);
      break;
    } catch (err) {
      if (i > 100) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  const series = { alwaysAllow: [] as number[], rbacMasters: [] as number[], rbacViewer: [] as number[] };
  await batch(allow, adminToken);
  await batch(rbac2, rbacAdminToken);
  for (let round = 0; round < ROUNDS; round++) {
    series.alwaysAllow.push(await batch(allow, adminToken));
    series.rbacViewer.push(await batch(rbac2, VIEWER_TOKEN));
    series.rbacMasters.push(await batch(rbac2, rbacAdminToken));
  }
  const a = median(series.alwaysAllow);
  const v = median(series.rbacViewer);
  const m = median(series.rbacMasters);
  console.log(`in-process GETs of 1 KiB ConfigMaps, bearer token, median of ${ROUNDS} batches of ${BATCH}:`);
  console.log(`  AlwaysAllow:                        ${Math.round(a)} gets/s`);
  console.log(`  RBAC, user bound to view:           ${Math.round(v)} gets/s (${(((v - a) / a) * 100).toFixed(1)}% vs AlwaysAllow)`);
  console.log(`  RBAC, system:masters (admin token): ${Math.round(m)} gets/s (${(((m - a) / a) * 100).toFixed(1)}% vs AlwaysAllow)`);
  await Promise.all([allow.stop(), rbac2.stop()]);
} finally {
  await fs.rm(dir, { recursive: true, force: true });
}
