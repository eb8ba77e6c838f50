/**
 * The README's quick start, as a user runs it: the compiled server
 * (`npm start` = build, then `node dist/src/main.js`) on a fresh data dir,
 * then kubectl with the generated kubeconfigs; a restart reuses the data dir.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../support/test-server.ts';
import { uwsPortArg } from '../support/uws-toggle.ts';

const ROOT = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));

function kubectl(kubeconfig: string, args: string[], home: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('kubectl', ['--kubeconfig', kubeconfig, ...args], { env: { ...process.env, HOME: home }, timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : 1, stdout, stderr });
    });
  });
}

describe('quick start (compiled server)', () => {
  let dir: string;
  let child: ChildProcess | null = null;
  let securePort: number;
  let uwsPort: number;

  const start = async (): Promise<void> => {
    // As `npm start` runs it: with RBAC (the default policy gives the admin credentials everything).
    child = spawn(process.execPath, ['dist/src/main.js', '--authorization-mode=Node,RBAC', `--data-dir=${dir}`, `--secure-port=${securePort}`, `--uws-port=${uwsPortArg(uwsPort)}`, '--bind-address=127.0.0.1', '--log-level=warn'], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const deadline = Date.now() + 30_000;
    for (;;) {
      const r = await kubectl(path.join(dir, 'admin.kubeconfig'), ['get', '--raw', '/readyz'], dir).catch(() => ({ code: 1, stdout: '', stderr: '' }));
      if (r.code === 0 && r.stdout.trim() === 'ok') return;
      if (child.exitCode !== null) assert.fail(`the server exited: ${stderr}`);
      if (Date.now() > deadline) assert.fail(`the server did not become ready: ${stderr}`);
      await new Promise((res) => setTimeout(res, 200));
    }
  };
  const stop = async (): Promise<void> => {
    if (child === null) return;
    const c = child;
    child = null;
    const exited = new Promise((res) => c.once('exit', res));
    c.kill('SIGTERM');
    await exited;
  };

  before(async () => {
    execFileSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'orch-quickstart-'));
    securePort = await freePort();
    uwsPort = await freePort();
  });
  after(async () => {
    await stop();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('serves kubectl with the generated kubeconfigs, and a restart reuses the data dir', async () => {
    await start();
    const ns = await kubectl(path.join(dir, 'admin.kubeconfig'), ['get', 'namespaces', '-o', 'name'], dir);
    assert.equal(ns.code, 0, ns.stderr);
    assert.match(ns.stdout, /namespace\/default/);
    const viaToken = await kubectl(path.join(dir, 'admin-token.kubeconfig'), ['create', 'configmap', 'kept', '--from-literal=a=b'], dir);
    assert.equal(viaToken.code, 0, viaToken.stderr);
    const ca = await fs.readFile(path.join(dir, 'ca.crt'), 'utf8');
    await stop();

    await start();
    assert.equal(await fs.readFile(path.join(dir, 'ca.crt'), 'utf8'), ca, 'the CA is reused');
    const kept = await kubectl(path.join(dir, 'admin.kubeconfig'), ['get', 'configmap', 'kept', '-o', 'jsonpath={.data.a}'], dir);
    assert.equal(kept.code, 0, kept.stderr);
    assert.equal(kept.stdout, 'b', 'data survived the restart');
    await stop();
  });
});
