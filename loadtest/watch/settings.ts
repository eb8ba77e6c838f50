/**
 * Knobs of the watch / LIST / relist benchmark, from the environment
 * (defaults keep a full run under about 8 minutes on a 2-core machine).
 *
 *   BENCH_WATCH_WORKERS=4                 client processes (watchers and relist clients are spread over them)
 *   BENCH_WATCH_COUNTS=500,1000,10000     watcher counts of the fan-out (10,000 is capped by ulimit -n if needed)
 *   BENCH_WATCH_PROTOCOLS=h1,h2           h1: HTTP/1.1 on the uWS port, one connection per watcher;
 *                                         h2: HTTP/2 streams on the secure port
 *   BENCH_WATCH_H2_STREAMS=100            watch streams per HTTP/2 connection
 *   BENCH_WATCH_ENCODINGS=json            encodings the fan-out scenarios run with, each in turn (json,protobuf for both):
 *                                         json: Accept: application/json, one event per line;
 *                                         protobuf: Accept: application/vnd.orch.protobuf, length-prefixed WatchEvent
 *                                         frames, as client-go informers of built-in types watch (JSON only by default
 *                                         to keep the default run time)
 *   BENCH_WATCH_EVENT_LEVELS=50000,120000,250000,500000,1000000
 *                                         offered events/s (writes/s x watchers) of the rising steps;
 *                                         writes/s = level / watchers (500 watchers: 100, 240, 500, 1,000, 2,000 writes/s;
 *                                         120,000 rather than 100,000 so that the target is judged on a step that offers more than it)
 *   BENCH_WATCH_LEVEL_MS=3000             writes per step are sent over this long
 *   BENCH_WATCH_MIN_WRITES=15             ...but at least this many writes per step
 *   BENCH_WATCH_DRAIN_MS=10000            after a step, wait at most this long for every watcher to get every event
 *   BENCH_WATCH_STOP_P99_MS=1000          stop rising once a step's p99 delay exceeds this (or a watcher was
 *                                         dropped, an event went missing, or the writer fell 10% behind)
 *   BENCH_WATCH_WRITER_INFLIGHT=256       cap on creates in flight from the writer
 *   BENCH_WATCH_VALUE_BYTES=900           bytes of the filler value (the ConfigMap is ~1 KiB as stored)
 *   BENCH_LIST_OBJECTS=50000              ConfigMaps and Pods created for the LIST section
 *   BENCH_LIST_FILL_CONCURRENCY=64        creates in flight while filling (uWS)
 *   BENCH_LIST_REPS=3                     repetitions per LIST (median reported)
 *   BENCH_LIST_PAGE=500                   page size of the paged LISTs
 *   BENCH_RELIST_CLIENTS=1000             clients of the relist storm
 *   BENCH_RELIST_OBJECTS=5000             size of the collection they list
 *   BENCH_RELIST_VARIANTS=admin,cert      admin: bearer token on uWS (system:masters, exempt from max-in-flight);
 *                                         cert: a non-privileged client certificate on the secure port (HTTP/1.1),
 *                                         subject to --max-requests-inflight=400
 *   BENCH_WATCH_BUDGET_MS=900000          hard stop for the whole run (children killed)
 *   BENCH_WATCH_QUIET_BUDGET_MS=90000     time in all allowed for waiting out other processes' load (the machine
 *                                         is shared) and for running disturbed fan-out steps again
 */
import { envNumber } from '../lib/env.ts';

export type WatchProtocol = 'h1' | 'h2';
export type RelistVariant = 'admin' | 'cert';
export type WatchEncoding = 'json' | 'protobuf';

export interface WatchSettings {
  readonly workers: number;
  readonly counts: readonly number[];
  readonly protocols: readonly WatchProtocol[];
  readonly h2Streams: number;
  readonly encodings: readonly WatchEncoding[];
  readonly eventLevels: readonly number[];
  readonly levelMs: number;
  readonly minWrites: number;
  readonly drainMs: number;
  readonly stopP99Ms: number;
  readonly writerInflight: number;
  readonly valueBytes: number;
  readonly listObjects: number;
  readonly fillConcurrency: number;
  readonly listReps: number;
  readonly pageLimit: number;
  readonly relistClients: number;
  readonly relistObjects: number;
  readonly relistVariants: readonly RelistVariant[];
  readonly budgetMs: number;
  readonly quietBudgetMs: number;
  /** Per-request timeout of LISTs and creates (ms). */
  readonly requestTimeoutMs: number;
}

function numberList(name: string, fallback: readonly number[]): number[] {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return [...fallback];
  const out = raw.split(',').map((s) => Number(s.trim().replace(/_/g, '')));
  for (const n of out) if (!Number.isFinite(n) || n <= 0) throw new Error(`${name}=${raw}: expected positive numbers, comma-separated`);
  return out;
}

function wordList<T extends string>(name: string, allowed: readonly T[], fallback: readonly T[]): T[] {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return [...fallback];
  const out = raw.split(',').map((s) => s.trim()) as T[];
  for (const w of out) if (!allowed.includes(w)) throw new Error(`${name}=${raw}: expected some of ${allowed.join(', ')}`);
  return out;
}

export function loadWatchSettings(): WatchSettings {
  const int = (name: string, fallback: number): number => Math.round(envNumber(name, fallback));
  return {
    workers: int('BENCH_WATCH_WORKERS', 4),
    counts: numberList('BENCH_WATCH_COUNTS', [500, 1000, 10_000]).map(Math.round),
    protocols: wordList('BENCH_WATCH_PROTOCOLS', ['h1', 'h2'], ['h1', 'h2']),
    h2Streams: int('BENCH_WATCH_H2_STREAMS', 100),
    encodings: wordList('BENCH_WATCH_ENCODINGS', ['json', 'protobuf'], ['json']),
    eventLevels: numberList('BENCH_WATCH_EVENT_LEVELS', [50_000, 120_000, 250_000, 500_000, 1_000_000]),
    levelMs: int('BENCH_WATCH_LEVEL_MS', 3000),
    minWrites: int('BENCH_WATCH_MIN_WRITES', 15),
    drainMs: int('BENCH_WATCH_DRAIN_MS', 10_000),
    stopP99Ms: int('BENCH_WATCH_STOP_P99_MS', 1000),
    writerInflight: int('BENCH_WATCH_WRITER_INFLIGHT', 256),
    valueBytes: int('BENCH_WATCH_VALUE_BYTES', 900),
    listObjects: int('BENCH_LIST_OBJECTS', 50_000),
    fillConcurrency: int('BENCH_LIST_FILL_CONCURRENCY', 64),
    listReps: int('BENCH_LIST_REPS', 3),
    pageLimit: int('BENCH_LIST_PAGE', 500),
    relistClients: int('BENCH_RELIST_CLIENTS', 1000),
    relistObjects: int('BENCH_RELIST_OBJECTS', 5000),
    relistVariants: wordList('BENCH_RELIST_VARIANTS', ['admin', 'cert'], ['admin', 'cert']),
    budgetMs: int('BENCH_WATCH_BUDGET_MS', 15 * 60_000),
    quietBudgetMs: int('BENCH_WATCH_QUIET_BUDGET_MS', 90_000),
    requestTimeoutMs: 120_000,
  };
}
