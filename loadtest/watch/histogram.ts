/**
 * A mergeable latency histogram (ms): 0.05 ms buckets below 1 s, 10 ms
 * buckets up to 121 s, one overflow bucket. Delays at or below zero (an
 * event that reached a watcher before the writer had its acknowledgement)
 * go into bucket 0 and count as 0 ms. Worker processes send theirs to the
 * parent as sparse [bucket, count] pairs.
 */

const FINE_MS = 0.05;
const FINE_LIMIT_MS = 1000;
const FINE_BUCKETS = FINE_LIMIT_MS / FINE_MS; // 20,000
const COARSE_MS = 10;
const COARSE_LIMIT_MS = 121_000;
const COARSE_BUCKETS = (COARSE_LIMIT_MS - FINE_LIMIT_MS) / COARSE_MS; // 12,000
const BUCKETS = 1 + FINE_BUCKETS + COARSE_BUCKETS + 1;

export type SparseHistogram = Array<[number, number]>;

export class Histogram {
  readonly counts = new Float64Array(BUCKETS);
  count = 0;
  /** Delays <= 0 ms (receipt no later than the writer's acknowledgement). */
  nonPositive = 0;
  min = Number.POSITIVE_INFINITY;
  max = Number.NEGATIVE_INFINITY;
  sum = 0;

  add(ms: number): void {
    this.count++;
    this.sum += ms;
    if (ms < this.min) this.min = ms;
    if (ms > this.max) this.max = ms;
    let b: number;
    if (ms <= 0) {
      this.nonPositive++;
      b = 0;
    } else if (ms < FINE_LIMIT_MS) b = 1 + Math.floor(ms / FINE_MS);
    else if (ms < COARSE_LIMIT_MS) b = 1 + FINE_BUCKETS + Math.floor((ms - FINE_LIMIT_MS) / COARSE_MS);
    else b = BUCKETS - 1;
    this.counts[b]! += 1;
  }

  /** Upper bound of the bucket holding the p-th percentile (nearest rank). */
  percentile(p: number): number {
    if (this.count === 0) return Number.NaN;
    const rank = Math.max(1, Math.ceil((p / 100) * this.count));
    let seen = 0;
    for (let b = 0; b < BUCKETS; b++) {
      seen += this.counts[b]!;
      if (seen >= rank) return Math.min(upperBound(b), this.max);
    }
    return this.max;
  }

  mean(): number {
    return this.count === 0 ? Number.NaN : this.sum / this.count;
  }

  toSparse(): SparseHistogram {
    const out: SparseHistogram = [];
    for (let b = 0; b < BUCKETS; b++) if (this.counts[b]! > 0) out.push([b, this.counts[b]!]);
    return out;
  }

  merge(other: { sparse: SparseHistogram; count: number; nonPositive: number; min: number; max: number; sum: number }): void {
    for (const [b, c] of other.sparse) this.counts[b]! += c;
    this.count += other.count;
    this.nonPositive += other.nonPositive;
    this.sum += other.sum;
    if (other.count > 0) {
      this.min = Math.min(this.min, other.min);
      this.max = Math.max(this.max, other.max);
    }
  }

  summary(): HistogramSummary {
    return { sparse: this.toSparse(), count: this.count, nonPositive: this.nonPositive, min: this.min, max: this.max, sum: this.sum };
  }
}

export interface HistogramSummary {
  sparse: SparseHistogram;
  count: number;
  nonPositive: number;
  min: number;
  max: number;
  sum: number;
}

function upperBound(b: number): number {
  if (b === 0) return 0;
  if (b <= FINE_BUCKETS) return b * FINE_MS;
  if (b < BUCKETS - 1) return FINE_LIMIT_MS + (b - FINE_BUCKETS) * COARSE_MS;
  return Number.POSITIVE_INFINITY;
}
