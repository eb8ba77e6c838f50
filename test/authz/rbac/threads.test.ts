/**
 * RBAC on every serving thread (--frontend-threads=2): each thread keeps its
 * own watch-fed index, so a new binding must reach all of them, and a deleted
 * one must be gone from all of them. Requests go to the uWS listener, which
 * the kernel spreads over the threads (SO_REUSEPORT); many in a row must all
 * agree.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from '../../support/test-server.ts';
import { UWS_DISABLED } from '../../support/uws-toggle.ts';
import { apiGroup } from '../../../src/naming/index.ts';

const RBAC = apiGroup('rbac.authorization');
const TOKEN = 'threads-user-token-0123456789';
let t: TestServer;
let dir: string;

before(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'orch-rbac-threads-'));
  const tokens = path.join(dir, 'tokens.csv');
  await fs.writeFile(tokens, `${TOKEN},thready,thready\n`, { mode: 0o600 });
  t = await startTestServer(['--authorization-mode=RBAC', '--frontend-threads=2', `--token-auth-file=${tokens}`]);
});

after(async () => {
  await t?.stop();
  await fs.rm(dir, { recursive: true, force: true });
});

/** One GET on a new connection (agent: false), so the kernel picks a thread each time. */
function freshGet(port: number, ca: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      { host: '127.0.0.1', port, path: '/api/v1/namespaces/default/configmaps', agent: false, ca, servername: 'localhost', headers: { authorization: `Bearer ${TOKEN}`, accept: 'application/json' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function allAgree(want: number): Promise<boolean> {
  const ca = await fs.readFile(t.server.files.caCertPath);
  const port = !UWS_DISABLED && t.uwsPort !== null ? t.uwsPort : t.securePort;
  for (let i = 0; i < 24; i++) if ((await freshGet(port, ca)) !== want) return false;
  return true;
}

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + 20_000;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`timed out: ${what}`);
}

describe('RBAC with several serving threads', () => {
  it('a binding reaches every thread, and its deletion too', async () => {
    assert.ok(await allAgree(403));
    const b = await t.request('POST', `/apis/${RBAC}/v1/namespaces/default/rolebindings`, {
      apiVersion: `${RBAC}/v1`, kind: 'RoleBinding', metadata: { name: 'thready' },
      roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'User', apiGroup: RBAC, name: 'thready' }],
    });
    assert.equal(b.status, 201, b.body);
    await until('every thread allows', () => allAgree(200));
    assert.equal((await t.request('DELETE', `/apis/${RBAC}/v1/namespaces/default/rolebindings/thready`)).status, 200);
    await until('every thread denies', () => allAgree(403));
    // Both threads did serve these requests (the per-thread request counter of the front ends).
    const metrics = (await t.request('GET', '/metrics')).body;
    const served = [...metrics.matchAll(/^apiserver_frontend_thread_requests_total\{[^}]*thread="(\d+)"[^}]*\} (\d+)/gm)].filter((m) => Number(m[2]) > 0);
    assert.ok(new Set(served.map((m) => m[1])).size >= 2, `requests on both threads: ${served.map((m) => m[0]).join('; ')}`);
  });
});
