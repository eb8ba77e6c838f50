/**
 * Heap sizing (src/server/heap-sizing.ts): the threads made while the data
 * threads start get a configured old generation, so a heap that grows by what
 * it keeps does not run full collections on the way; threads made after get
 * V8's own sizing again; node's own option is left alone.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { oldSpaceSizedBy } from '../../src/server/heap-sizing.ts';

const ROOT = resolve(import.meta.dirname, '../..');

test('node options that size the heap are recognized in either spelling', () => {
  assert.equal(oldSpaceSizedBy([]), false);
  assert.equal(oldSpaceSizedBy(['--import', 'tsx', '--max-old-space-size=4096']), false);
  assert.equal(oldSpaceSizedBy(['--initial-old-space-size=32']), true);
  assert.equal(oldSpaceSizedBy(['--initial_old_space_size=32']), true);
  assert.equal(oldSpaceSizedBy(['--initial-heap-size=100']), true);
  assert.equal(oldSpaceSizedBy(['--initial-old-space-size-x=1']), false);
});

// A worker that keeps ~150,000 small objects (~35 MB) while making garbage, as the store host and a shard do
// under writes, and counts its full collections.
const GROWING_WORKER = `
const { parentPort } = require('node:worker_threads');
const { PerformanceObserver, constants } = require('node:perf_hooks');
let major = 0;
const obs = new PerformanceObserver((list) => {
  for (const e of list.getEntries()) if (e.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) major++;
});
obs.observe({ entryTypes: ['gc'] });
const keep = [];
let junk;
(async () => {
  for (let i = 0; i < 150000; i++) {
    keep.push({ i, s: 'x' + i, a: [i, i + 1] });
    for (let j = 0; j < 4; j++) junk = { j, s: 'y' + i };
    if (i % 5000 === 0) await new Promise(setImmediate);
  }
  setTimeout(() => { obs.disconnect(); parentPort.postMessage({ major, kept: keep.length, junk: junk.j }); }, 100);
})();
`;

test('workers made while the data threads start grow without full collections, those made after as V8 sizes them; node\'s own option is left alone', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'orch-heap-sizing-'));
  try {
    const script = join(dir, 'probe.mjs');
    writeFileSync(
      script,
      `import { Worker } from 'node:worker_threads';
import { withDataThreadHeaps } from ${JSON.stringify(pathToFileURL(join(ROOT, 'src/server/heap-sizing.ts')).href)};
const code = ${JSON.stringify(GROWING_WORKER)};
const run = () => new Promise((res, rej) => {
  const w = new Worker(code, { eval: true });
  w.once('message', (m) => { res(m); void w.terminate(); });
  w.once('error', rej);
});
const before = await run();
const inside = await withDataThreadHeaps(() => run());
const after = await run();
console.log(JSON.stringify({ before, inside, after }));
`,
    );
    type Counts = { major: number; kept: number };
    const probe = (nodeOptions: string[]): Promise<{ before: Counts; inside: Counts; after: Counts }> =>
      new Promise((res, rej) => {
        execFile(process.execPath, [...nodeOptions, '--import', 'tsx', script], { cwd: ROOT, timeout: 60_000 }, (err, stdout, stderr) => {
          if (err) rej(new Error(`${err.message}\n${stderr}`));
          else res(JSON.parse(stdout.trim().split('\n').pop()!));
        });
      });

    const plain = await probe([]);
    assert.equal(plain.before.kept, 150000);
    assert.ok(plain.before.major >= 1, `V8's own sizing collects on the way: ${JSON.stringify(plain)}`);
    assert.equal(plain.inside.major, 0, `a sized heap runs no full collection below its size: ${JSON.stringify(plain)}`);
    assert.ok(plain.after.major >= 1, `a thread made after is sized by V8 again: ${JSON.stringify(plain)}`);

    // Node's own (small) size holds for every thread: the one made inside collects as the others do.
    const own = await probe(['--initial-old-space-size=8']);
    assert.ok(own.inside.major >= 1, `node's own size is left alone: ${JSON.stringify(own)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
