/**
 * Why the embedded backend is a WAL with group commit rather than lmdb:
 * durable puts/s of 1 KiB values at concurrency 64, median of 3 runs each.
 *
 *   node --import tsx loadtest/storage/engine-choice.ts [opsPerRun]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open as openLmdb } from 'lmdb';
import { EmbeddedStore } from '../../src/storage/embedded/index.ts';

const CONCURRENCY = 64;
const RUNS = 3;
const OPS = Number(process.argv[2] ?? 40_000);
const value = new Uint8Array(1024).map((_, i) => i % 251);

/** Run `op(i)` for i in [0, OPS) with CONCURRENCY in flight; returns ops/s. */
async function drive(op: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < OPS) await op(next++);
    }),
  );
  return OPS / ((performance.now() - started) / 1000);
}

async function withDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'engine-choice-'));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function lmdbRun(): Promise<{ rate: number }> {
  return withDir(async (dir) => {
    // Durable: noSync off, and overlappingSync off so a put's promise resolves
    // only after its transaction is synced (with the default overlappingSync on
    // Linux it resolves at commit and the flush follows). lmdb-js batches the
    // concurrent puts into shared transactions, its own group commit.
    const db = openLmdb<Uint8Array, string>({ path: dir, encoding: 'binary', overlappingSync: false });
    const rate = await drive((i) => db.put(`/registry/pods/ns/p${i}`, value));
    await db.close();
    return { rate };
  });
}

async function embeddedRun(): Promise<{ rate: number; fsyncs: number }> {
  return withDir(async (dir) => {
    const store = await EmbeddedStore.open({ dir });
    const rate = await drive((i) => store.create(`/registry/pods/ns/p${i}`, value));
    const fsyncs = store.stats().walFsyncs;
    await store.close();
    return { rate, fsyncs };
  });
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const lmdbRates: number[] = [];
const embeddedRates: number[] = [];
const fsyncs: number[] = [];
for (let r = 0; r < RUNS; r++) {
  lmdbRates.push((await lmdbRun()).rate);
  const e = await embeddedRun();
  embeddedRates.push(e.rate);
  fsyncs.push(e.fsyncs);
}
const fmt = (xs: number[]): string => xs.map((x) => Math.round(x).toLocaleString('en-US')).join(', ');
console.log(`durable puts of 1 KiB, concurrency ${CONCURRENCY}, ${OPS} ops per run, ${RUNS} runs`);
console.log(`lmdb-js          median ${Math.round(median(lmdbRates)).toLocaleString('en-US')}/s  (runs: ${fmt(lmdbRates)})`);
console.log(
  `EmbeddedStore    median ${Math.round(median(embeddedRates)).toLocaleString('en-US')}/s  (runs: ${fmt(embeddedRates)}; ` +
    `fsyncs per run: ${fsyncs.join(', ')}, ~${Math.round(OPS / median(fsyncs))} writes per fsync)`,
);
