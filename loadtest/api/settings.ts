/**
 * Knobs of the API benchmark, from the environment (defaults keep a run of
 * both backends at about 6 minutes on a 2-core machine).
 *
 *   BENCH_API_CONCURRENCY=32       callers in flight for creates/s and gets/s
 *   BENCH_API_RUN_MS=3000          length of one measured run (3 runs, median reported)
 *   BENCH_API_RUNS=3               measured runs per front end
 *   BENCH_API_WARMUP_MS=1000       warm-up before the runs, per front end
 *   BENCH_API_MAX_OPS=200000       cap on operations per run (every loop is bounded)
 *   BENCH_API_LIST_SMALL=5000      the small LIST size
 *   BENCH_API_LIST_LARGE=50000     the large LIST size (and the RSS point)
 *   BENCH_API_LIST_REPS=3          LIST repetitions (median reported)
 *   BENCH_API_PAGE_LIMIT=500       page size of the paged LIST
 *   BENCH_API_FILL_CONCURRENCY=64  concurrency of the bulk creates before the LISTs (uWS)
 *   BENCH_API_BUDGET_MS=900000     hard stop for the whole benchmark (children killed)
 *   BENCH_API_SERVER=dist          dist: the compiled server (npm start); tsx: from source (npm run start:dev)
 *   BENCH_API_SOURCE=worktree      worktree: the checkout as it is; head: the committed HEAD (git archive)
 *   BENCH_API_QUIET_BUDGET_MS=90000  time in all allowed for waiting out other processes' load
 *                                  and redoing runs they disturbed (the machine is shared)
 */
import { envNumber } from '../lib/env.ts';

export interface ApiSettings {
  readonly concurrency: number;
  readonly runMs: number;
  readonly runs: number;
  readonly warmupMs: number;
  readonly maxOps: number;
  readonly listSmall: number;
  readonly listLarge: number;
  readonly listReps: number;
  readonly pageLimit: number;
  readonly fillConcurrency: number;
  readonly budgetMs: number;
  readonly quietBudgetMs: number;
  /** Bytes of the one data value of each ConfigMap. */
  readonly valueBytes: number;
  /** Per-request timeout (ms); a request that takes longer fails. */
  readonly requestTimeoutMs: number;
}

export function loadApiSettings(): ApiSettings {
  const int = (name: string, fallback: number): number => Math.round(envNumber(name, fallback));
  const s: ApiSettings = {
    concurrency: int('BENCH_API_CONCURRENCY', 32),
    runMs: int('BENCH_API_RUN_MS', 3000),
    runs: int('BENCH_API_RUNS', 3),
    warmupMs: int('BENCH_API_WARMUP_MS', 1000),
    maxOps: int('BENCH_API_MAX_OPS', 200_000),
    listSmall: int('BENCH_API_LIST_SMALL', 5000),
    listLarge: int('BENCH_API_LIST_LARGE', 50_000),
    listReps: int('BENCH_API_LIST_REPS', 3),
    pageLimit: int('BENCH_API_PAGE_LIMIT', 500),
    fillConcurrency: int('BENCH_API_FILL_CONCURRENCY', 64),
    budgetMs: int('BENCH_API_BUDGET_MS', 15 * 60_000),
    quietBudgetMs: int('BENCH_API_QUIET_BUDGET_MS', 90_000),
    valueBytes: 1024,
    requestTimeoutMs: 60_000,
  };
  if (s.listLarge < s.listSmall) throw new Error(`BENCH_API_LIST_LARGE (${s.listLarge}) must be >= BENCH_API_LIST_SMALL (${s.listSmall})`);
  return s;
}
