/**
 * A small LRU map whose entries also expire. Authenticators use it to keep
 * the outcome of expensive verification (certificate chains, signed tokens,
 * webhook answers) until the credential itself stops being valid, so the
 * steady-state cost of a request is one hash and one map lookup.
 *
 * Bounded on purpose: keys come from whatever clients send, so an unbounded
 * cache would be a memory-exhaustion lever for anyone able to open a socket.
 */

export interface TtlLruOptions {
  /** Most entries kept; the least recently used one is dropped past this. */
  readonly maxEntries: number;
  /** Clock in epoch ms; injectable so tests can move time. */
  readonly now?: () => number;
}

interface Entry<V> {
  readonly value: V;
  /** Epoch ms at which the entry stops being returned. */
  readonly expiresAt: number;
}

export class TtlLruCache<K, V> {
  // A Map iterates in insertion order: re-inserting on every hit keeps the
  // least recently used entry first, which is the one evicted.
  private readonly entries = new Map<K, Entry<V>>();
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(options: TtlLruOptions) {
    if (!Number.isInteger(options.maxEntries) || options.maxEntries < 1) {
      throw new RangeError(`cache size must be a positive integer, got ${options.maxEntries}`);
    }
    this.maxEntries = options.maxEntries;
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The value stored under `key`, unless it is missing or has expired. */
  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    if (this.now() >= entry.expiresAt) return undefined;
    this.entries.set(key, entry);
    return entry.value;
  }

  /**
   * Stores `value` until `expiresAt` (epoch ms). An entry that would already
   * be expired is not stored (and any older value under the key is dropped).
   */
  set(key: K, value: V, expiresAt: number): void {
    this.entries.delete(key);
    if (!(expiresAt > this.now())) return;
    this.entries.set(key, { value, expiresAt });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done === true) break;
      this.entries.delete(oldest.value);
    }
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
