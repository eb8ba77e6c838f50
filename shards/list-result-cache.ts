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
 */
import type { ListReply } from './protocol.ts';

export interface ListResultCacheOptions {
  /** Bytes of item data kept in all; the least recently used entries go first. */
  budgetBytes: number;
  /** Answers smaller than this are not worth sharing (cheap to rebuild, and transferred anyway). */
  minEntryBytes: number;
  /** Answers larger than this are not kept: one would crowd out the rest. */
  maxEntryBytes: number;
}

export const DEFAULT_LIST_RESULT_CACHE: ListResultCacheOptions = {
  budgetBytes: 64 * 1024 * 1024,
  minEntryBytes: 256 * 1024,
  maxEntryBytes: 32 * 1024 * 1024,
};

export class ListResultCache {
  readonly #opts: ListResultCacheOptions;
  /** Map order is recency: a hit moves its entry to the end. */
  readonly #entries = new Map<string, ListReply>();
  #bytes = 0;
  hits = 0;
  misses = 0;

  constructor(opts: ListResultCacheOptions = DEFAULT_LIST_RESULT_CACHE) {
    this.#opts = opts;
  }

  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Whether an answer of `bytes` bytes would be kept (and so should be built shared). */
  wants(bytes: number): boolean {
    return this.#opts.budgetBytes > 0 && bytes >= this.#opts.minEntryBytes && bytes <= Math.min(this.#opts.maxEntryBytes, this.#opts.budgetBytes);
  }

  get(key: string): ListReply | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry;
  }

  put(key: string, reply: ListReply): void {
    const size = reply.items.byteLength;
    if (!this.wants(size) || this.#entries.has(key)) return;
    this.#entries.set(key, reply);
    this.#bytes += size;
    for (const [k, e] of this.#entries) {
      if (this.#bytes <= this.#opts.budgetBytes) break;
      this.#entries.delete(k);
      this.#bytes -= e.items.byteLength;
    }
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
