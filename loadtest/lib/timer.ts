/**
 * Load drivers: run an async operation with a fixed number of callers in
 * flight, for a count of operations or a duration, recording each call's
 * latency.
 */

export const now = (): number => performance.now();

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Yields to the event loop once (lets queued I/O and messages through). */
export const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export interface DriveOptions {
  /** Callers in flight. */
  readonly concurrency: number;
  /** Stop after this many operations (default unlimited; then `durationMs` is required). */
  readonly count?: number;
  /** Stop starting new operations after this long (default unlimited). */
  readonly durationMs?: number;
  /** Record each operation's latency (default true). */
  readonly latencies?: boolean;
}

export interface DriveResult {
  readonly ops: number;
  readonly seconds: number;
  /** Operations per second. */
  readonly rate: number;
  /** Per-operation latencies in ms (empty when not recorded). */
  readonly latencies: Float64Array;
}

/**
 * Runs `op(i)` for i = 0, 1, ... with `concurrency` callers, until `count`
 * operations were started or `durationMs` passed. A failing operation fails
 * the whole drive (benchmarks must not silently count errors as work).
 */
export async function drive(opts: DriveOptions, op: (i: number) => Promise<unknown>): Promise<DriveResult> {
  const count = opts.count ?? Number.POSITIVE_INFINITY;
  const duration = opts.durationMs ?? Number.POSITIVE_INFINITY;
  if (!Number.isFinite(count) && !Number.isFinite(duration)) throw new Error('drive needs a count or a duration');
  const record = opts.latencies ?? true;
  let lat = new Float64Array(Math.min(count, 1 << 16));
  let done = 0;
  let next = 0;
  const started = now();
  const deadline = started + duration;
  let failure: unknown = null;
  const worker = async (): Promise<void> => {
    while (failure === null && next < count && now() < deadline) {
      const i = next++;
      const t0 = now();
      try {
        await op(i);
      } catch (err) {
        failure ??= err;
        return;
      }
      if (record) {
        if (done >= lat.length) {
          const bigger = new Float64Array(lat.length * 2);
          bigger.set(lat);
          lat = bigger;
        }
        lat[done] = now() - t0;
      }
      done++;
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  if (failure !== null) throw failure;
  const seconds = (now() - started) / 1000;
  return { ops: done, seconds, rate: done / seconds, latencies: record ? lat.subarray(0, done) : new Float64Array(0) };
}

/** Times one async call, in ms. */
export async function timeIt<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = now();
  const value = await fn();
  return { ms: now() - t0, value };
}

/** Resolves when `pred` holds, polling every `everyMs`; rejects after `timeoutMs`. */
export async function waitUntil(pred: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000, everyMs = 5): Promise<void> {
  const deadline = now() + timeoutMs;
  while (!(await pred())) {
    if (now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}
