/**
 * `--api-flavor`: one flavor per process, and the data dir keeps the flavor
 * it was created with (issue 10, item 2). This file runs in the default
 * (orch) flavor.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, stat, writeFile, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { API_FLAVOR, apiFlavorFromArgv, names } from '../../src/naming/index.ts';
import { API_FLAVOR_FILE, checkDataDirFlavor, recordedApiFlavor } from '../../src/server/data-dir-flavor.ts';
import { OptionsError, parseArgs } from '../../src/server/options.ts';
import { freePort, startTestServer } from '../support/test-server.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const tempDir = (): Promise<string> => mkdtemp(path.join(os.tmpdir(), 'orch-flavor-'));

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
