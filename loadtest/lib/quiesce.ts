/**
 * Waiting for the servers of a side-by-side run to go idle before the next
 * timed measurement. The original's Go GC and etcd (its fsyncs, its
 * compaction), and our own garbage collection, run on after the last answer
 * of a round; a round timed meanwhile on the same two cores pays for the
 * previous target's work. Interleaving spreads that over every target but
 * does not remove it, and it fell hardest on whatever came right after the
 * original's create rounds.
 */

/** The CPU seconds of everything a target runs (all threads of its processes). */
export type CpuReader = () => number;

export interface QuiesceOptions {
  /** Idle: together under this share of one core over a window (default 5%). */
  readonly idleShare?: number;
  /** The window, ms (default 200). */
  readonly windowMs?: number;
  /** Give up after this long, ms (default 5,000): a busy shared machine must not stall the run. */
  readonly maxMs?: number;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly now?: () => number;
}

/** Waits until the readers together stay under the idle share for one window; returns how long it waited and whether it got there. */
export async function quiesce(readers: readonly CpuReader[], opts: QuiesceOptions = {}): Promise<{ waitedMs: number; idle: boolean }> {
  const idleShare = opts.idleShare ?? 0.05;
  const windowMs = opts.windowMs ?? 200;
  const maxMs = opts.maxMs ?? 5000;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const now = opts.now ?? (() => performance.now());
  const cpu = (): number => readers.reduce((sum, read) => sum + read(), 0);
  const start = now();
  let before = cpu();
  while (now() - start < maxMs) {
    await sleep(windowMs);
    const after = cpu();
    if (after - before < (idleShare * windowMs) / 1000) return { waitedMs: now() - start, idle: true };
    before = after;
  }
  return { waitedMs: now() - start, idle: false };
}
