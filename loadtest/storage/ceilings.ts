/**
 * Ceilings: what this machine can do at best for each kind of work the
 * storage path does, measured with the plainest code possible:
 * durability (fdatasync per record, group commit, lmdb-js), thread hops
 * (Piscina, MessageChannel request/response, MessagePort streams) and the
 * copy-and-transfer floor of a list reply.
 *
 * A ceiling is the best of its runs (the machine's disk and vCPUs are shared
 * and noisy; an upper bound should not be dragged down by a bad run).
 */
import { closeSync, fdatasyncSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { open as openLmdb } from 'lmdb';
import { Piscina } from 'piscina';
import { envNumber } from '../lib/env.ts';
import { bestRun, summarize } from '../lib/stats.ts';
import { drive, now } from '../lib/timer.ts';
import { withTempDir } from '../lib/tmp.ts';
import type { Report } from './report.ts';
import type { PortWorkerCommand } from './port-worker.ts';

const SECTION = 'ceilings';
const KIB = 1024;
const RUNS = envNumber('BENCH_RUNS', 3);

export const CEIL = {
  fsync: 'fsync',
  group64: 'group64',
  lmdb64: 'lmdb64',
  piscina: 'piscina',
  piscinaNoAtomics: 'piscinaNoAtomics',
  mc1: 'mc1',
  mc16: 'mc16',
  mc64: 'mc64',
  stream1: 'stream1',
  stream64: 'stream64',
  listFloor: (n: number): string => `listFloor${n}`,
} as const;

interface Run {
  rate: number;
  latencies: Float64Array;
}

/** One write + fdatasync per `perSync` records, for `ms`; records/s and per-sync latencies. */
function syncLoop(dir: string, perSync: number, ms: number): Run {
  const fd = openSync(join(dir, `wal-${perSync}-${Math.random().toString(36).slice(2)}`), 'a');
  const buf = new Uint8Array(KIB * perSync).map((_, i) => i % 251);
  const lat: number[] = [];
  try {
    const t0 = now();
    let records = 0;
    while (now() - t0 < ms) {
      const s = now();
      writeSync(fd, buf);
      fdatasyncSync(fd);
      lat.push(now() - s);
      records += perSync;
    }
    return { rate: records / ((now() - t0) / 1000), latencies: Float64Array.from(lat) };
  } finally {
    closeSync(fd);
  }
}

async function durability(report: Report): Promise<void> {
  const ms = envNumber('BENCH_FSYNC_MS', 1500);
  await withTempDir('orch-bench-fsync', async (dir) => {
    for (const [perSync, id, label, name] of [
      [1, CEIL.fsync, 'fdatasync per 1 KiB record (write+fdatasync each)', 'fsync'],
      [64, CEIL.group64, 'group commit: 64 x 1 KiB records per fdatasync', 'group64'],
    ] as const) {
      const runs = Array.from({ length: RUNS }, () => syncLoop(dir, perSync, ms));
      const run = bestRun(runs, (r) => r.rate);
      const s = summarize(run.latencies);
      report.addCeiling(id, name, {
        section: SECTION,
        label,
        backend: '-',
        kind: 'rate',
        value: run.rate,
        unit: 'records/s',
        p50: s.p50,
        p99: s.p99,
        note: `latency per fdatasync; best of ${RUNS} x ${ms} ms; appending to one file`,
      });
    }
  });

  const ops = envNumber('BENCH_LMDB_OPS', 20_000);
  const value = new Uint8Array(KIB).map((_, i) => i % 251);
  const runs: Run[] = [];
  for (let r = 0; r < RUNS; r++) {
    runs.push(
      await withTempDir('orch-bench-lmdb', async (dir) => {
        // Durable: overlappingSync off, so a put resolves only once its transaction is synced.
        const db = openLmdb<Uint8Array, string>({ path: dir, encoding: 'binary', overlappingSync: false });
        try {
          return await drive({ concurrency: 64, count: ops }, (i) => db.put(`/registry/configmaps/ns/o${i}`, value));
        } finally {
          await db.close();
        }
      }),
    );
  }
  const run = bestRun(runs, (r) => r.rate);
  const s = summarize(run.latencies);
  report.addCeiling(CEIL.lmdb64, 'lmdb64', {
    section: SECTION,
    label: 'lmdb-js durable puts of 1 KiB, 64 concurrent writers',
    backend: '-',
    kind: 'rate',
    value: run.rate,
    unit: 'puts/s',
    p50: s.p50,
    p99: s.p99,
    note: `best of ${RUNS} x ${ops} puts; overlappingSync off`,
  });
}

async function piscinaRoundTrip(report: Report): Promise<void> {
  const count = envNumber('BENCH_PISCINA_OPS', 2000);
  for (const atomics of ['sync', 'disabled'] as const) {
    const pool = new Piscina({
      filename: new URL('./piscina-echo-worker.ts', import.meta.url).href,
      minThreads: 1,
      maxThreads: 1,
      idleTimeout: Number.MAX_SAFE_INTEGER,
      atomics,
    });
    try {
      for (let i = 0; i < 300; i++) await pool.run(i);
      const runs: Run[] = [];
      for (let r = 0; r < RUNS; r++) runs.push(await drive({ concurrency: 1, count }, (i) => pool.run(i) as Promise<number>));
      const run = bestRun(runs, (r) => r.rate);
      const s = summarize(run.latencies);
      const id = atomics === 'sync' ? CEIL.piscina : CEIL.piscinaNoAtomics;
      report.addCeiling(id, id === CEIL.piscina ? 'piscina' : 'piscina-noatomics', {
        section: SECTION,
        label: `Piscina 5 round trip of one small task (atomics: ${atomics})`,
        backend: '-',
        kind: 'time',
        value: s.p50,
        p50: s.p50,
        p99: s.p99,
        note: `one at a time; best of ${RUNS} runs of ${count}${atomics === 'disabled' ? '; shards run with atomics disabled' : ''}`,
      });
    } finally {
      await pool.destroy();
    }
  }
}

/** Starts the port worker on a fresh channel with `cmd`; resolves once it said ready. */
async function portWorker(make: (port: MessagePort) => PortWorkerCommand): Promise<{ port: MessagePort; done: () => Promise<void> }> {
  const pool = new Piscina({
    filename: new URL('./port-worker.ts', import.meta.url).href,
    minThreads: 1,
    maxThreads: 1,
    idleTimeout: Number.MAX_SAFE_INTEGER,
    atomics: 'disabled',
  });
  const ch = new MessageChannel();
  const ready = new Promise<void>((resolve) => ch.port1.once('message', () => resolve()));
  await pool.run(make(ch.port2), { transferList: [ch.port2] });
  await ready;
  return {
    port: ch.port1,
    done: async () => {
      ch.port1.close();
      await pool.destroy();
    },
  };
}

/** Sequential request/response on a port: one outstanding request at a time. */
function requester<T>(port: MessagePort): (msg: unknown) => Promise<T> {
  let pending: ((v: T) => void) | null = null;
  port.on('message', (v: T) => {
    const p = pending;
    pending = null;
    p?.(v);
  });
  return (msg) =>
    new Promise<T>((resolve) => {
      pending = resolve;
      port.postMessage(msg);
    });
}

async function messageChannel(report: Report): Promise<void> {
  const { port, done } = await portWorker((p) => ({ kind: 'rpc', port: p }));
  try {
    const call = requester<Uint8Array | Uint8Array[]>(port);
    const trips = envNumber('BENCH_MC_TRIPS', 4000);
    for (let i = 0; i < 500; i++) await call(i);
    for (const [batch, id, name] of [
      [1, CEIL.mc1, 'mc-1'],
      [16, CEIL.mc16, 'mc-16'],
      [64, CEIL.mc64, 'mc-64'],
    ] as const) {
      const req = batch === 1 ? 0 : Array.from({ length: batch }, (_, i) => i);
      const n = Math.max(200, Math.round(trips / Math.sqrt(batch)));
      const runs: Run[] = [];
      for (let r = 0; r < RUNS; r++) {
        runs.push(
          await drive({ concurrency: 1, count: n }, async () => {
            const got = await call(req);
            if (batch > 1 && (got as Uint8Array[]).length !== batch) throw new Error('short batch');
          }),
        );
      }
      const run = bestRun(runs, (r) => r.rate);
      const s = summarize(run.latencies);
      const perRequestMs = 1000 / (run.rate * batch);
      report.addCeiling(id, name, {
        section: SECTION,
        label:
          batch === 1
            ? 'MessageChannel request/response, 1 KiB answer, one by one'
            : `MessageChannel request/response, 1 KiB answers, ${batch} per postMessage`,
        backend: '-',
        kind: 'time',
        value: batch === 1 ? s.p50 : perRequestMs,
        p50: s.p50,
        p99: s.p99,
        note: batch === 1 ? 'per round trip' : `per request, amortized; p50/p99 per batch round trip`,
      });
    }
  } finally {
    await done();
  }
}

async function streams(report: Report): Promise<void> {
  for (const [batch, id, name, count] of [
    [1, CEIL.stream1, 'stream-1', envNumber('BENCH_STREAM_MSGS', 300_000)],
    [64, CEIL.stream64, 'stream-64', envNumber('BENCH_STREAM_MSGS', 300_000) * 4],
  ] as const) {
    const rates: Array<{ rate: number }> = [];
    for (let r = 0; r < RUNS; r++) {
      const { port, done } = await portWorker((p) => ({ kind: 'stream', port: p, count, batch }));
      try {
        let got = 0;
        const t0 = now();
        await new Promise<void>((resolve) => {
          port.on('message', (m: unknown) => {
            got += Array.isArray(m) ? m.length : 1;
            if (got >= count) resolve();
          });
          port.postMessage('go');
        });
        rates.push({ rate: count / ((now() - t0) / 1000) });
      } finally {
        await done();
      }
    }
    const run = bestRun(rates, (r) => r.rate);
    report.addCeiling(id, name, {
      section: SECTION,
      label: `MessagePort stream worker -> main, ${batch === 1 ? 'one message' : `${batch} messages`} per postMessage`,
      backend: '-',
      kind: 'rate',
      value: run.rate,
      unit: 'msgs/s',
      note: `small messages ({seq}); best of ${RUNS} x ${count.toLocaleString('en-US')}`,
    });
  }
}

async function listFloor(report: Report, sizes: readonly number[]): Promise<void> {
  const max = Math.max(...sizes);
  const { port, done } = await portWorker((p) => ({ kind: 'concat', port: p, max }));
  try {
    const call = requester<Uint8Array>(port);
    for (const n of sizes) {
      await call(n);
      const times: number[] = [];
      for (let r = 0; r < 5; r++) {
        const t0 = now();
        const got = await call(n);
        times.push(now() - t0);
        if (got.byteLength < n * KIB) throw new Error('short concat');
      }
      const ms = Math.min(...times);
      report.addCeiling(CEIL.listFloor(n), `floor-${n / 1000}k`, {
        section: SECTION,
        label: `list floor: join ${n.toLocaleString('en-US')} x 1 KiB in a worker, transfer to main`,
        backend: '-',
        kind: 'time',
        value: ms,
        note: 'best of 5; the copy and hop a cache list cannot avoid',
      });
    }
  } finally {
    await done();
  }
}

export async function runCeilings(report: Report, listSizes: readonly number[]): Promise<void> {
  const parts: Array<[string, () => Promise<void>]> = [
    ['durability', () => durability(report)],
    ['piscina', () => piscinaRoundTrip(report)],
    ['message channel', () => messageChannel(report)],
    ['streams', () => streams(report)],
    ['list floor', () => listFloor(report, listSizes)],
  ];
  for (const [name, fn] of parts) {
    try {
      await fn();
    } catch (err) {
      report.fail(SECTION, `- (${name})`, err);
    }
  }
}
