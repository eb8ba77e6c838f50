/**
 * Small statistics helpers for benchmarks: percentiles, medians, and a
 * latency summary. Latencies are kept in milliseconds as returned by
 * performance.now() differences.
 */

/** The p-th percentile (0..100) of an ascending-sorted array, nearest-rank. NaN when empty. */
export function percentileSorted(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  const i = Math.min(sorted.length - 1, Math.max(0, rank - 1));
  return sorted[i]!;
}

/** Sorted copy as a Float64Array (numeric sort, no comparator overhead). */
export function sortedCopy(xs: ArrayLike<number>): Float64Array {
  const a = Float64Array.from(xs);
  a.sort();
  return a;
}

export function percentile(xs: ArrayLike<number>, p: number): number {
  return percentileSorted(sortedCopy(xs), p);
}

export function median(xs: ArrayLike<number>): number {
  if (xs.length === 0) return Number.NaN;
  const s = sortedCopy(xs);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function mean(xs: ArrayLike<number>): number {
  if (xs.length === 0) return Number.NaN;
  let sum = 0;
  for (let i = 0; i < xs.length; i++) sum += xs[i]!;
  return sum / xs.length;
}

export interface LatencySummary {
  readonly count: number;
  /** Milliseconds. */
  readonly p50: number;
  readonly p99: number;
  readonly mean: number;
  readonly min: number;
  readonly max: number;
}

export function summarize(latenciesMs: ArrayLike<number>): LatencySummary {
  const s = sortedCopy(latenciesMs);
  return {
    count: s.length,
    p50: percentileSorted(s, 50),
    p99: percentileSorted(s, 99),
    mean: mean(s),
    min: s.length > 0 ? s[0]! : Number.NaN,
    max: s.length > 0 ? s[s.length - 1]! : Number.NaN,
  };
}

/**
 * Picks the run whose `key` is the median of all runs (the lower middle for
 * an even count), so that the reported latencies belong to the reported rate.
 */
export function medianRun<T>(runs: readonly T[], key: (run: T) => number): T {
  if (runs.length === 0) throw new Error('medianRun of no runs');
  const sorted = [...runs].sort((a, b) => key(a) - key(b));
  return sorted[(sorted.length - 1) >> 1]!;
}

/** The run with the highest `key` (for ceilings: the best this machine managed). */
export function bestRun<T>(runs: readonly T[], key: (run: T) => number): T {
  if (runs.length === 0) throw new Error('bestRun of no runs');
  return runs.reduce((best, r) => (key(r) > key(best) ? r : best));
}
