/**
 * The LIST benchmark's pieces (loadtest/list50k/list.ts) against a real
 * server of ours: the count it seeds to comes from a `limit=1` list's
 * remainingItemCount, curl reports every byte of the list on both front ends,
 * and the table's ratios put ours over the original.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countConfigMaps, listTable, timeList, type ListResult } from '../../loadtest/list50k/list.ts';
import type { Target } from '../../loadtest/original/target.ts';
import { startTestServer } from '../support/test-server.ts';

const haveCurl = ((): boolean => {
  try {
    execFileSync('sh', ['-c', 'command -v curl'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

test('count and curl-timed LIST of ConfigMaps on both front ends', { skip: haveCurl ? false : 'curl is not installed' }, async () => {
  const ts = await startTestServer();
  const dir = await mkdtemp(join(tmpdir(), 'orch-list50k-test-'));
  try {
    const token = (await readFile(join(ts.dataDir, 'tokens.csv'), 'utf8')).split('\n')[0]!.split(',')[0]!;
    const ca = await readFile(join(ts.dataDir, 'ca.crt'));
    const ns = 'list-bench';
    assert.equal((await ts.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })).status, 201);
    const n = 25;
    for (let i = 0; i < n; i++) {
      const r = await ts.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: { v: 'x'.repeat(1024) } });
      assert.equal(r.status, 201);
    }
    const secure: Target = { key: 'secure', label: 'secure port', port: ts.securePort, h1: false, ca, token, cpuSeconds: () => process.cpuUsage().user / 1e6 };
    assert.equal(await countConfigMaps(secure, ns), n);
    assert.equal(await countConfigMaps(secure, 'default'), 0);

    const targets = [secure, ...(ts.uwsPort === null ? [] : [{ ...secure, key: 'uws', label: 'uWS listener', port: ts.uwsPort, h1: true }])];
    for (const t of targets) {
      for (const kind of ['consistent', 'rv0'] as const) {
        const x = await timeList(t, ns, kind, dir);
        assert.ok(x.bytes > n * 1024, `${t.label} ${kind}: ${x.bytes} bytes for ${n} ConfigMaps of 1 KiB`);
        assert.equal(x.httpVersion, t.h1 ? '1.1' : '2');
        assert.ok(x.ms > 0 && x.cpuMs >= 0);
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
    await ts.stop();
  }
});

test('LIST table: ours over the original, per front end and kind', () => {
  const t = (key: string): Target => ({ key, label: key, port: 1, h1: false, ca: Buffer.alloc(0), token: '', cpuSeconds: () => 0 });
  const r = (key: string, kind: 'consistent' | 'rv0', ms: number, cpuMs: number): ListResult => ({ target: t(key), kind, ms, runsMs: [ms], cpuMs, bytes: 100, httpVersion: '2' });
  const lines = listTable([
    r('ours-uws', 'consistent', 300, 100),
    r('ours-uws', 'rv0', 250, 90),
    r('ours-secure', 'consistent', 600, 120),
    r('ours-secure', 'rv0', 500, 110),
    r('orig', 'consistent', 3000, 1000),
    r('orig', 'rv0', 1000, 450),
  ]);
  const consistent = lines.find((l) => l.startsWith('| consistent read'))!;
  assert.match(consistent, /\| 300 \| 600 \| 3,000 \| 0\.10× \| 0\.20× \|$/);
  const rv0 = lines.find((l) => l.startsWith('| from the cache'))!;
  assert.match(rv0, /\| 250 \| 500 \| 1,000 \| 0\.25× \| 0\.50× \|$/);
  const cpu = lines.find((l) => l.startsWith('| server CPU ms, consistent'))!;
  assert.match(cpu, /\| 100 \| 120 \| 1,000 \| 0\.10× \| 0\.12× \|$/);
});
