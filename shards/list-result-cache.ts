/**
 * ListResultCache keeps a shard's recent large list answers, built into
 * SharedArrayBuffers, keyed by everything that determines them (resource,
 * key range, predicate, revision, page, encoding). A list at a given revision
 * never changes, so an entry never goes stale; it only stops being asked for.
 *
 * Why: when many clients list the same collection at once (a relist storm
 * after a restart or a network split), the shard would otherwise build and
 * send one full copy of the answer per client, and the main thread would
 * hold all of them while they drain to slow sockets. With the cache the
 * shard builds one answer, every reply shares its memory (a SharedArrayBuffer
 * crosses to the main thread without a copy and is never detached), and it
 * is freed when the last response and the cache let go of it.
 *
 * An answer is kept only once a second request for it arrives within the
 * TTL: a client paging alone, or a LIST nobody repeats, never pins memory
 * (measured: keeping every large answer left ~130 MB more RSS after a burst
 * of single-client LISTs of 50,000, which the allocator does not give back).
 */
import type { ListReply } from './protocol.ts';

export interface ListResultCacheOptions {
  /** Bytes of item data kept in all; the least recently used entries go first. */
  budgetBytes: number;
  /** Answers smaller than this are not worth sharing (cheap to rebuild, and transferred anyway). */
  minEntryBytes: number;
  /** Answers larger than this are not kept: one would crowd out the rest. */
  maxEntryBytes: number;
  /**
   * How long an answer is kept after it was built. Sharing pays while many
   * clients ask at once (a storm lasts seconds); past that the collection has
   * usually moved on and the bytes would only hold memory.
   */
  ttlMs: number;
}

export const DEFAULT_LIST_RESULT_CACHE: ListResultCacheOptions = {
  budgetBytes: 64 * 1024 * 1024,
  minEntryBytes: 256 * 1024,
  maxEntryBytes: 32 * 1024 * 1024,
  ttlMs: 10_000,
};

const MAX_SEEN_KEYS = 4096;

interface Entry {
  readonly reply: ListReply;
  readonly builtAt: number;
}

export class ListResultCache {
  readonly #opts: ListResultCacheOptions;
  /** Map order is recency: a hit moves its entry to the end. */
  readonly #entries = new Map<string, Entry>();
  /** Keys asked for once, with when: a second ask within the TTL makes the answer worth keeping. */
  readonly #seen = new Map<string, number>();
  readonly #now: () => number;
  #bytes = 0;
  hits = 0;
  misses = 0;

  constructor(opts: ListResultCacheOptions = DEFAULT_LIST_RESULT_CACHE, now: () => number = Date.now) {
    this.#opts = opts;
    this.#now = now;
  }

  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Whether an answer of `bytes` bytes for `key` would be kept (and so should be built shared). */
  wants(key: string, bytes: number): boolean {
    if (!this.#fits(bytes)) return false;
    const seen = this.#seen.get(key);
    const now = this.#now();
    if (seen !== undefined && now - seen <= this.#opts.ttlMs) return true;
    this.#seen.delete(key);
    this.#seen.set(key, now);
    // Bounded: the oldest marks go first.
    if (this.#seen.size > MAX_SEEN_KEYS) this.#seen.delete(this.#seen.keys().next().value!);
    return false;
  }

  #fits(bytes: number): boolean {
    return this.#opts.budgetBytes > 0 && bytes >= this.#opts.minEntryBytes && bytes <= Math.min(this.#opts.maxEntryBytes, this.#opts.budgetBytes);
  }

  get(key: string): ListReply | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined || this.#expired(entry)) {
      if (entry !== undefined) this.#drop(key, entry);
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.reply;
  }

  put(key: string, reply: ListReply): void {
    const size = reply.items.byteLength;
    if (!this.#fits(size) || this.#entries.has(key)) return;
    this.#entries.set(key, { reply, builtAt: this.#now() });
    this.#bytes += size;
    for (const [k, e] of this.#entries) {
      if (this.#bytes <= this.#opts.budgetBytes) break;
      this.#drop(k, e);
    }
  }

  /** Drops answers older than the TTL (the shard calls this on a timer, so idle memory is given back). */
  sweep(): void {
    for (const [k, e] of this.#entries) if (this.#expired(e)) this.#drop(k, e);
    const now = this.#now();
    for (const [k, at] of this.#seen) if (now - at > this.#opts.ttlMs) this.#seen.delete(k);
  }

  #expired(e: Entry): boolean {
    return this.#now() - e.builtAt > this.#opts.ttlMs;
  }

  #drop(key: string, e: Entry): void {
    this.#entries.delete(key);
    this.#bytes -= e.reply.items.byteLength;
  }

  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
  }
}

/** Allocates list item bytes: shared when the cache will keep them, else transferable. */
export function itemBuffer(bytes: number, shared: boolean): Uint8Array {
  return new Uint8Array(shared ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes));
}
