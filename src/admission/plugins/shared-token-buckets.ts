/**
 * Token buckets in one SharedArrayBuffer, so that every serving thread of a
 * process draws from the same allowance (the original's EventRateLimit keeps
 * its buckets in the API server's memory: one set per server process).
 *
 * Each limit has a table of buckets keyed by a 64-bit hash of its key: a
 * single bucket (the Server limit) or `slots` buckets with least-recently-
 * used eviction within a probe window of WINDOW slots (the original's LRU
 * cache of `cacheSize` buckets; an evicted key comes back with a full
 * bucket, as in the original). A bucket holds `burst` tokens and refills at
 * `qps` per second (golang.org/x/time/rate, which the original uses); a
 * request takes one token or is refused without taking any.
 *
 * One spin lock (Atomics) guards every table: the work under it is a few
 * reads and writes. A lock held longer than SPIN_LIMIT tries (a thread
 * terminated while holding it) is taken over rather than waited on forever.
 */

export interface BucketTableSpec {
  readonly qps: number;
  readonly burst: number;
  /** 1 for a single shared bucket. */
  readonly slots: number;
}

const WINDOW = 16;
const SPIN_LIMIT = 1_000_000;
const HEADER_BYTES = 16; // int32 lock, pad, float64 use counter
const META_WORDS = 3; // hash hi, hash lo, used
const STATE_WORDS = 3; // tokens, last refill (ms), last use (counter)

interface Table {
  readonly spec: BucketTableSpec;
  readonly meta: Uint32Array;
  readonly state: Float64Array;
}

function align8(n: number): number {
  return (n + 7) & ~7;
}

/** 53-bit-style string hash (cyrb53) split in two 32-bit halves. */
function hash(key: string): [number, number] {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return [h1 >>> 0, h2 >>> 0];
}

export class SharedTokenBuckets {
  readonly #lock: Int32Array;
  readonly #counter: Float64Array;
  readonly #tables: Table[] = [];
  readonly #now: () => number;

  /** Bytes of the buffer for these tables (the same specs in every thread give the same layout). */
  static bytesFor(specs: readonly BucketTableSpec[]): number {
    let n = HEADER_BYTES;
    for (const s of specs) n = align8(n + s.slots * META_WORDS * 4) + s.slots * STATE_WORDS * 8;
    return n;
  }

  constructor(buffer: SharedArrayBuffer, specs: readonly BucketTableSpec[], now: () => number = Date.now) {
    if (buffer.byteLength < SharedTokenBuckets.bytesFor(specs)) throw new Error('token bucket buffer too small for its tables');
    this.#lock = new Int32Array(buffer, 0, 1);
    this.#counter = new Float64Array(buffer, 8, 1);
    this.#now = now;
    let at = HEADER_BYTES;
    for (const spec of specs) {
      const meta = new Uint32Array(buffer, at, spec.slots * META_WORDS);
      at = align8(at + spec.slots * META_WORDS * 4);
      const state = new Float64Array(buffer, at, spec.slots * STATE_WORDS);
      at += spec.slots * STATE_WORDS * 8;
      this.#tables.push({ spec, meta, state });
    }
  }

  /** Takes one token from `key`'s bucket in table `table`; false when it has none. */
  tryAccept(table: number, key: string): boolean {
    const t = this.#tables[table];
    if (t === undefined) throw new Error(`no token bucket table ${table}`);
    const [hi, lo] = hash(key);
    const now = this.#now();
    this.#acquire();
    try {
      const slot = this.#slot(t, hi, lo, now);
      const s = slot * STATE_WORDS;
      const { qps, burst } = t.spec;
      const elapsed = Math.max(0, now - t.state[s + 1]!);
      const tokens = Math.min(burst, t.state[s]! + (elapsed / 1000) * qps);
      if (tokens < 1) return false;
      t.state[s] = tokens - 1;
      t.state[s + 1] = now;
      return true;
    } finally {
      Atomics.store(this.#lock, 0, 0);
    }
  }

  /** The slot of the key's bucket, claiming (and filling) an empty or least recently used one in its window. */
  #slot(t: Table, hi: number, lo: number, now: number): number {
    const n = t.spec.slots;
    const use = (this.#counter[0] = this.#counter[0]! + 1);
    const window = Math.min(WINDOW, n);
    const start = lo % n;
    let victim = -1;
    let victimUse = Infinity;
    for (let j = 0; j < window; j++) {
      const i = (start + j) % n;
      const m = i * META_WORDS;
      const used = t.meta[m + 2] === 1;
      if (used && t.meta[m] === hi && t.meta[m + 1] === lo) {
        t.state[i * STATE_WORDS + 2] = use;
        return i;
      }
      const lastUse = used ? t.state[i * STATE_WORDS + 2]! : -1;
      if (lastUse < victimUse) {
        victim = i;
        victimUse = lastUse;
      }
    }
    const m = victim * META_WORDS;
    t.meta[m] = hi;
    t.meta[m + 1] = lo;
    t.meta[m + 2] = 1;
    const s = victim * STATE_WORDS;
    t.state[s] = t.spec.burst;
    t.state[s + 1] = now;
    t.state[s + 2] = use;
    return victim;
  }

  #acquire(): void {
    for (let i = 0; i < SPIN_LIMIT; i++) if (Atomics.compareExchange(this.#lock, 0, 0, 1) === 0) return;
    // Held far longer than any holder needs: its thread is gone. Take it over.
    Atomics.store(this.#lock, 0, 1);
  }
}
