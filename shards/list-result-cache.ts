/**
 * ListResultCache keeps a shard's recent large list answers, built into
 * SharedArrayBuffers, keyed by everything that determines them (resource,
 * key range, predicate, the state's revision, page, encoding). A list of a
 * given state never changes, so an entry never goes wrong; it only stops
 * being asked for, or is superseded (below).
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
 *
 * Keys name the state listed by the revision of the type's last change at
 * or before the revision read (WatchCache.changedAt), not by the revision
 * read itself: consistent reads of a type nobody writes to find the same
 * answer even while writes to other types move the store's revision on. A
 * write to the type supersedes its answers of the latest state, and they
 * are dropped at the next list of the type or sweep (dropSuperseded): no
 * superseded copy of a big type lingers, and all answers together stay
 * within the budget, each for at most the TTL and the idle time.
 */
import type { ListReply } from './protocol.ts';

export interface ListResultCacheOptions {
  /** Bytes of item data kept in all; the least recently used entries go first (but never for a smaller one). */
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
  /**
   * How long an answer is kept once nobody asks for it: a storm keeps it
   * alive, and when it is over the memory goes back at once rather than at
   * the end of the TTL (a 74 MB answer held for 10 s after a burst of LISTs
   * would show in the process's settled RSS).
   */
  idleMs: number;
}

export const DEFAULT_LIST_RESULT_CACHE: ListResultCacheOptions = {
  budgetBytes: 128 * 1024 * 1024,
  minEntryBytes: 256 * 1024,
  // A collection of 50,000 1 KiB objects answers ~74 MB: one such answer fits, beside a few small ones.
  maxEntryBytes: 96 * 1024 * 1024,
  ttlMs: 10_000,
  idleMs: 1_000,
};

const MAX_SEEN_KEYS = 4096;

interface Entry {
  readonly reply: ListReply;
  /** Its item bytes (whole, or in kept pieces). */
  readonly size: number;
  readonly builtAt: number;
  /** When it was last built or handed out. */
  usedAt: number;
  /** For an answer of a type's latest state: the type and the revision of its last change; undefined otherwise. */
  readonly source: ListSource | undefined;
}

/** An answer of a type's latest state: the type, and the revision of its last change then. */
export interface ListSource {
  resource: string;
  stateRevision: number;
}

export class ListResultCache {
  readonly #opts: ListResultCacheOptions;
  /** Map order is recency: a hit moves its entry to the end. */
  readonly #entries = new Map<string, Entry>();
  /** Keys asked for once, with when: a second ask within the TTL makes the answer worth keeping. */
  readonly #seen = new Map<string, number>();
  readonly #now: () => number;
  /** Told of every answer the cache lets go of (dropped, cleared, or replaced by another form of it). */
  readonly #onDrop: ((reply: ListReply) => void) | undefined;
  #bytes = 0;
  hits = 0;
  misses = 0;

  constructor(opts: ListResultCacheOptions = DEFAULT_LIST_RESULT_CACHE, now: () => number = Date.now, onDrop?: (reply: ListReply) => void) {
    this.#opts = opts;
    this.#now = now;
    this.#onDrop = onDrop;
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
    entry.usedAt = this.#now();
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.reply;
  }

  /**
   * Keeps `reply`; `source` when it lists a type's latest state (a later write to the type supersedes it).
   * False when it is not kept (too large for the budget, or an answer for the key is kept already).
   */
  put(key: string, reply: ListReply, source?: ListSource): boolean {
    const size = itemBytes(reply);
    if (!this.#fits(size) || this.#entries.has(key)) return false;
    // Room is made from the least recently used answers, but never from a larger one than this: rebuilding
    // that costs more than this one saves (measured: the 100 pages of a paged LIST of 50,000 pushed its
    // 74 MB whole answer out on every round of a benchmark mixing both, and each whole LIST was rebuilt).
    const budget = this.#opts.budgetBytes;
    if (this.#bytes + size > budget) {
      let room = budget - this.#bytes;
      const victims: [string, Entry][] = [];
      for (const [k, e] of this.#entries) {
        if (room >= size) break;
        if (e.size > size) continue;
        victims.push([k, e]);
        room += e.size;
      }
      if (room < size) return false;
      for (const [k, e] of victims) this.#drop(k, e);
    }
    const now = this.#now();
    this.#entries.set(key, { reply, size, builtAt: now, usedAt: now, source });
    this.#bytes += size;
    return true;
  }

  /** Puts `reply` in place of the kept answer for `key` (the same items in another form), if it is still kept. */
  replace(key: string, reply: ListReply): void {
    const entry = this.#entries.get(key);
    if (entry === undefined || itemBytes(reply) !== entry.size) return;
    this.#entries.set(key, { ...entry, reply });
    this.#onDrop?.(entry.reply);
  }

  /**
   * Drops the answers of `resource`'s latest state older than its last
   * change (`changedAt`): a write to the type superseded them. (A read of
   * that exact revision could still use one, but would rather rebuild than
   * have a big type pin a copy of its former self.)
   */
  dropSuperseded(resource: string, changedAt: number): void {
    if (this.#entries.size === 0) return;
    for (const [k, e] of this.#entries) if (e.source !== undefined && e.source.resource === resource && e.source.stateRevision < changedAt) this.#drop(k, e);
  }

  /**
   * Drops answers older than the TTL, and with `changedAt` (a resource's
   * last change, undefined when it is no longer served) the superseded ones;
   * the shard calls this on a timer, so idle memory is given back.
   */
  sweep(changedAt?: (resource: string) => number | undefined): void {
    for (const [k, e] of this.#entries) {
      if (this.#expired(e)) this.#drop(k, e);
      else if (e.source !== undefined && changedAt !== undefined) {
        const changed = changedAt(e.source.resource);
        if (changed === undefined || e.source.stateRevision < changed) this.#drop(k, e);
      }
    }
    const now = this.#now();
    for (const [k, at] of this.#seen) if (now - at > this.#opts.ttlMs) this.#seen.delete(k);
  }

  #expired(e: Entry): boolean {
    const now = this.#now();
    return now - e.builtAt > this.#opts.ttlMs || now - e.usedAt > this.#opts.idleMs;
  }

  #drop(key: string, e: Entry): void {
    this.#entries.delete(key);
    this.#bytes -= e.size;
    this.#onDrop?.(e.reply);
  }

  clear(): void {
    const replies = [...this.#entries.values()].map((e) => e.reply);
    this.#entries.clear();
    this.#bytes = 0;
    if (this.#onDrop !== undefined) for (const r of replies) this.#onDrop(r);
  }
}

/** The item bytes of an answer, whole or in kept pieces. */
export function itemBytes(reply: ListReply): number {
  return reply.kept !== undefined ? reply.kept.reduce((n, p) => n + p.byteLength, 0) : reply.items.byteLength;
}

/** Allocates list item bytes: shared when the cache will keep them, else transferable. */
export function itemBuffer(bytes: number, shared: boolean): Uint8Array {
  return new Uint8Array(shared ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes));
}
