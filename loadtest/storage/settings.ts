/**
 * Sizes and durations of the storage benchmark, each scalable by an
 * environment variable. Defaults keep a full run (both backends) near
 * 5-10 minutes on two cores; BENCH_FULL=1 runs the 200,000-object delete case.
 */
import { envFlag, envNumber } from '../lib/env.ts';

export interface Settings {
  readonly full: boolean;
  /** Runs per measurement where a median is taken (BENCH_RUNS). */
  readonly runs: number;
  /** Runs per create measurement (BENCH_CREATE_RUNS; etcd on a shared 2-core box is noisy). */
  readonly createRuns: number;
  /** Duration of one concurrency-1 create run, ms (BENCH_C1_MS). */
  readonly c1Ms: number;
  /** Creates per concurrency-64 run (BENCH_C64_OPS), bounded by maxRunMs. */
  readonly c64Ops: number;
  /** Upper bound on one timed run, ms (BENCH_MAX_RUN_MS). */
  readonly maxRunMs: number;
  /** Objects of the small and large list data sets (BENCH_LIST_SMALL, BENCH_LIST_LARGE). */
  readonly listSmall: number;
  readonly listLarge: number;
  /** Runs of a small and of a large list (BENCH_LIST_RUNS_SMALL, BENCH_LIST_RUNS_LARGE). */
  readonly listRunsSmall: number;
  readonly listRunsLarge: number;
  /** Watchers of the fan-out case (BENCH_WATCHERS) and events written per watch run (BENCH_WATCH_EVENTS). */
  readonly watchers: number;
  readonly watchEvents: number;
  /** Shard round trips one at a time per run (BENCH_HOP_SINGLE), and under load (BENCH_HOP_LOAD, BENCH_HOP_INFLIGHT in flight). */
  readonly hopSingle: number;
  readonly hopLoad: number;
  readonly hopInflight: number;
  /** Objects created then deleted in one prefix (BENCH_DELETE_N; 20,000, or 200,000 with BENCH_FULL=1). */
  readonly deleteN: number;
  /** Duration of one create-if-absent measurement in the delete case, ms (BENCH_DELETE_MEASURE_MS). */
  readonly deleteMeasureMs: number;
  /** Give up on a section after this long, ms (BENCH_SECTION_TIMEOUT_MS). */
  readonly sectionTimeoutMs: number;
}

export function loadSettings(): Settings {
  const full = envFlag('BENCH_FULL');
  return {
    full,
    runs: envNumber('BENCH_RUNS', 3),
    createRuns: envNumber('BENCH_CREATE_RUNS', 5),
    c1Ms: envNumber('BENCH_C1_MS', 1500),
    c64Ops: envNumber('BENCH_C64_OPS', 10_000),
    maxRunMs: envNumber('BENCH_MAX_RUN_MS', 8000),
    listSmall: envNumber('BENCH_LIST_SMALL', 5000),
    listLarge: envNumber('BENCH_LIST_LARGE', 50_000),
    listRunsSmall: envNumber('BENCH_LIST_RUNS_SMALL', 7),
    listRunsLarge: envNumber('BENCH_LIST_RUNS_LARGE', 5),
    watchers: envNumber('BENCH_WATCHERS', 1000),
    watchEvents: envNumber('BENCH_WATCH_EVENTS', 10_000),
    hopSingle: envNumber('BENCH_HOP_SINGLE', 3000),
    hopLoad: envNumber('BENCH_HOP_LOAD', 50_000),
    hopInflight: envNumber('BENCH_HOP_INFLIGHT', 256),
    deleteN: envNumber('BENCH_DELETE_N', full ? 200_000 : 20_000),
    deleteMeasureMs: envNumber('BENCH_DELETE_MEASURE_MS', 2000),
    sectionTimeoutMs: envNumber('BENCH_SECTION_TIMEOUT_MS', full ? 1_800_000 : 300_000),
  };
}
