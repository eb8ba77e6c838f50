/**
 * Single-threaded scavenges (src/server/scavenge-threads.ts): once the flag
 * is set, no scavenge of the process, on its main thread or a worker made
 * after, hands work to V8's helper threads; without it they do; node's own
 * choice is left alone.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SINGLE_THREADED_SCAVENGE_FLAG, scavengeChosenBy, useSingleThreadedScavenges } from '../../src/server/scavenge-threads.ts';

test('node options that choose how scavenges run are recognized, on the command line or in NODE_OPTIONS', () => {
  assert.equal(scavengeChosenBy([], undefined), false);
  assert.equal(scavengeChosenBy(['--import', 'tsx', '--max-semi-space-size=16'], '--enable-source-maps'), false);
  assert.equal(scavengeChosenBy(['--parallel-scavenge'], undefined), true);
  assert.equal(scavengeChosenBy(['--no-parallel-scavenge'], undefined), true);
  assert.equal(scavengeChosenBy(['--no_parallel_scavenge'], undefined), true);
  assert.equal(scavengeChosenBy([], '--max-old-space-size=512 --parallel-scavenge'), true);
  assert.equal(scavengeChosenBy(['--parallel-scavenge-x'], '--parallel-scavenges'), false);
});

// Keeps a few MiB live in the young generation while allocating, so every scavenge has work to share.
const CHURN = `
let live = [];
for (let i = 0; i < 3e6; i++) {
  live.push({ i, a: [i, i + 1], s: 'v' + (i % 1000) });
  if (live.length > 60000) live = [];
}
`;

test('with the flag no scavenge, on the main thread or a worker made after, uses the helper threads; without it they do', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'orch-scavenge-'));
  try {
    // A plain script (no loader thread of its own), which sets the flag given first thing, as the server does at start.
    const script = join(dir, 'probe.mjs');
    writeFileSync(
      script,
      `import { Worker } from 'node:worker_threads';
import { setFlagsFromString } from 'node:v8';
if (process.argv[2] !== undefined) setFlagsFromString(process.argv[2]);
const churn = () => { ${CHURN} };
churn();
await new Promise((res, rej) => {
  const w = new Worker(${JSON.stringify(CHURN)}, { eval: true });
  w.once('exit', res);
  w.once('error', rej);
});
`,
    );
    // --trace-gc-nvp prints one line per collection; a scavenge's helpers' share is its background.scavenge.parallel (ms).
    const scavenges = (args: string[]): Promise<{ scavenges: number; helped: number }> =>
      new Promise((res, rej) => {
        execFile(process.execPath, ['--trace-gc-nvp', script, ...args], { timeout: 120_000, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
          if (err) return rej(new Error(`${err.message}\n${stderr}`));
          const lines = stdout.split('\n').filter((l) => / gc=s /.test(l));
          const helped = lines.filter((l) => Number(/background\.scavenge\.parallel=([\d.]+)/.exec(l)?.[1] ?? 0) > 0).length;
          res({ scavenges: lines.length, helped });
        });
      });

    const parallel = await scavenges([]);
    assert.ok(parallel.scavenges >= 10, `the probe scavenges: ${JSON.stringify(parallel)}`);
    assert.ok(parallel.helped >= 1, `by default V8's helpers take part: ${JSON.stringify(parallel)}`);

    const single = await scavenges([SINGLE_THREADED_SCAVENGE_FLAG]);
    assert.ok(single.scavenges >= 10, `the probe scavenges: ${JSON.stringify(single)}`);
    assert.equal(single.helped, 0, `no scavenge hands work to a helper: ${JSON.stringify(single)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the server\'s start leaves node\'s own choice alone and otherwise sets the flag', () => {
  assert.equal(useSingleThreadedScavenges(['--parallel-scavenge'], undefined), false);
  assert.equal(useSingleThreadedScavenges([], '--no-parallel-scavenge'), false);
  assert.equal(useSingleThreadedScavenges([], undefined), true);
});
