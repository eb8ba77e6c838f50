/**
 * `--api-flavor`: one flavor per process, and the data dir keeps the flavor
 * it was created with (issue 10, item 2). This file runs in the default
 * (orch) flavor.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { readFile, stat, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { API_FLAVOR, apiFlavorFromArgv, names } from '../../src/naming/index.ts';
import { API_FLAVOR_FILE, checkDataDirFlavor, checkEtcdPrefixFlavor, recordedApiFlavor } from '../../src/server/data-dir-flavor.ts';
import { EtcdConnection } from '../../src/storage/etcd/connection.ts';
import { startEtcd } from '../support/etcd-server.ts';
import { OptionsError, parseArgs } from '../../src/server/options.ts';
import { freePort, startTestServer } from '../support/test-server.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const tempDir = (): Promise<string> => scratchDir('orch-flavor-');

test('the default process speaks the spec names', () => {
  assert.equal(API_FLAVOR, 'orch');
  assert.equal(names.systemNamespace, 'orch-system');
  assert.equal(parseArgs([]).apiFlavor, 'orch');
});

test('--api-flavor takes orch or kubernetes, nothing else', () => {
  assert.equal(parseArgs(['--api-flavor=kubernetes']).apiFlavor, 'kubernetes');
  assert.equal(parseArgs(['--api-flavor', 'orch']).apiFlavor, 'orch');
  assert.throws(() => parseArgs(['--api-flavor=k8s']), (err: unknown) => err instanceof OptionsError && /--api-flavor/.test(err.message));
  assert.equal(apiFlavorFromArgv(['--secure-port=1', '--api-flavor', 'kubernetes']), 'kubernetes');
  assert.equal(apiFlavorFromArgv(['--api-flavor=orch']), 'orch');
  assert.equal(apiFlavorFromArgv([]), undefined);
});

test('a flag that contradicts the process flavor stops the start before the data dir is touched', async () => {
  const dir = path.join(await tempDir(), 'data');
  await assert.rejects(startTestServer(['--api-flavor=kubernetes'], { dataDir: dir }), (err: unknown) => err instanceof OptionsError && /contradicts/.test(err.message));
  await assert.rejects(stat(dir), /ENOENT/);
});

test('the data dir records its flavor (0600) and refuses the other one', async () => {
  const s = await startTestServer([], { dataDir: await tempDir() });
  try {
    const file = path.join(s.dataDir, API_FLAVOR_FILE);
    assert.equal(await readFile(file, 'utf8'), 'orch\n');
    assert.equal((await stat(file)).mode & 0o777, 0o600);
  } finally {
    await s.stop();
  }
  assert.equal(await recordedApiFlavor(s.dataDir), 'orch');
  await checkDataDirFlavor(s.dataDir, 'orch');
  await assert.rejects(checkDataDirFlavor(s.dataDir, 'kubernetes'), (err: unknown) => err instanceof OptionsError && /orch API flavor.*--api-flavor=kubernetes/.test(err.message));
});

test('a data dir from before the flavor file holds the spec names; a new one has no flavor yet', async () => {
  const legacy = await tempDir();
  await writeFile(path.join(legacy, 'ca.crt'), 'x');
  assert.equal(await recordedApiFlavor(legacy), 'orch');
  await assert.rejects(checkDataDirFlavor(legacy, 'kubernetes'), OptionsError);
  const empty = await tempDir();
  assert.equal(await recordedApiFlavor(empty), undefined);
  assert.equal(await recordedApiFlavor(path.join(empty, 'absent')), undefined);
  const bad = await tempDir();
  await mkdir(bad, { recursive: true });
  await writeFile(path.join(bad, API_FLAVOR_FILE), 'openshift\n');
  await assert.rejects(recordedApiFlavor(bad), OptionsError);
});

test('main.ts: starting the kubernetes flavor on an orch data dir is a clear error (exit 2)', async () => {
  const s = await startTestServer([], { dataDir: await tempDir() });
  await s.stop();
  const port = await freePort();
  const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'src/main.ts', '--api-flavor=kubernetes', `--data-dir=${s.dataDir}`, `--secure-port=${port}`, '--uws-port=0', '--bind-address=127.0.0.1', '--shards=1'],
      { cwd: ROOT, timeout: 30_000 },
      (err, _stdout, stderr) => resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : null, stderr }),
    );
  });
  assert.equal(result.code, 2, result.stderr);
  assert.match(result.stderr, /holds objects of the orch API flavor; this server was started with --api-flavor=kubernetes/);
});

/** kubectl against a kubeconfig; never throws. */
function kubectl(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('kubectl', args, { timeout: 20_000 }, (err, stdout, stderr) => resolve({ code: err === null ? 0 : 1, stdout, stderr }));
  });
}

test('main.ts: --api-flavor=kubernetes fixes the names before the server (and its shard threads) load', async () => {
  const dataDir = await tempDir();
  const port = await freePort();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/main.ts', '--api-flavor', 'kubernetes', `--data-dir=${dataDir}`, `--secure-port=${port}`, '--uws-port=0', '--bind-address=127.0.0.1', '--shards=1', '--log-level=error'],
    { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const kubeconfig = `--kubeconfig=${path.join(dataDir, 'admin.kubeconfig')}`;
    let versions = { code: 1, stdout: '', stderr: '' };
    for (let i = 0; i < 120 && versions.code !== 0 && child.exitCode === null; i++) {
      await new Promise((r) => setTimeout(r, 250));
      versions = await kubectl([kubeconfig, 'api-versions']);
    }
    assert.equal(versions.code, 0, `${versions.stderr}\n${stderr}`);
    assert.match(versions.stdout, /^rbac\.authorization\.k8s\.io\/v1$/m);
    assert.doesNotMatch(versions.stdout, /orch/);
    // A write and a read through a shard thread: its names are the kubernetes flavor's too.
    assert.equal((await kubectl([kubeconfig, 'create', 'role', 'r', '--verb=get', '--resource=pods'])).code, 0);
    const role = await kubectl([kubeconfig, 'get', 'role', 'r', '-o', 'jsonpath={.apiVersion}']);
    assert.equal(role.stdout, 'rbac.authorization.k8s.io/v1');
    assert.equal(await readFile(path.join(dataDir, API_FLAVOR_FILE), 'utf8'), 'kubernetes\n');
  } finally {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  }
});

test('an etcd prefix records the flavor of its first server and refuses the other', async () => {
  const etcd = await startEtcd();
  try {
    const endpoints = [etcd.endpoint];
    const s = await startTestServer(['--storage-backend=etcd3', `--etcd-servers=${etcd.endpoint}`, '--etcd-prefix=/spec']);
    await s.stop();
    await checkEtcdPrefixFlavor(endpoints, '/spec', 'orch');
    await assert.rejects(checkEtcdPrefixFlavor(endpoints, '/spec', 'kubernetes'), (err: unknown) => err instanceof OptionsError && /etcd prefix "\/spec" holds objects of the orch API flavor/.test(err.message));

    // A prefix first claimed by the kubernetes flavor refuses an orch server, which stops cleanly.
    await checkEtcdPrefixFlavor(endpoints, '/original', 'kubernetes');
    const refused = await startTestServer(['--storage-backend=etcd3', `--etcd-servers=${etcd.endpoint}`, '--etcd-prefix=/original']).then(
      async (started) => {
        await started.stop();
        return undefined;
      },
      (err: unknown) => err,
    );
    assert.ok(refused instanceof OptionsError && /kubernetes API flavor; this server was started with --api-flavor=orch/.test(refused.message), String(refused));

    // A prefix with objects from before the record is an orch one.
    const conn = new EtcdConnection({ endpoints, requestTimeoutMs: 5000, keepaliveMs: 10_000 });
    try {
      await conn.client.kv.put({ key: Buffer.from('/legacy/configmaps/default/a'), value: Buffer.from('{}') });
    } finally {
      conn.close();
    }
    await assert.rejects(checkEtcdPrefixFlavor(endpoints, '/legacy', 'kubernetes'), OptionsError);
    await checkEtcdPrefixFlavor(endpoints, '/legacy', 'orch');
  } finally {
    await etcd.stop();
  }
});
