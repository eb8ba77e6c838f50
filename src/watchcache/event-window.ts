/**
 * EventWindow keeps the most recent changes of one resource type, oldest
 * first, so that watches can start at any revision inside it and lists can be
 * answered as of any revision inside it.
 *
 * Retention: at least `minEvents` events are kept whatever their age, and
 * events younger than `retentionMs` are kept up to `maxEvents` (the memory
 * bound that wins under a write storm).
 */
import type { Revision } from '../storage/interface.ts';
import type { CachedObject } from './cached-object.ts';

export type CacheEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface CacheEvent {
  readonly type: CacheEventType;
  readonly revision: Revision;
  readonly key: string;
  /** The object after the change; for DELETED the last state, presented at the delete revision. */
  readonly object: CachedObject;
  /** The object before the change; null for ADDED. */
  readonly prev: CachedObject | null;
  /** Wall-clock time the cache received the event, for retention. */
  readonly receivedAt: number;
}

export interface EventWindowOptions {
  minEvents: number;
  maxEvents: number;
  retentionMs: number;
}

export class EventWindow {
  #buf: (CacheEvent | undefined)[];
  #head = 0; // index of the oldest event
  #size = 0;
  readonly #opts: EventWindowOptions;

  constructor(opts: EventWindowOptions) {
    this.#opts = { ...opts, maxEvents: Math.max(opts.maxEvents, opts.minEvents, 1) };
    this.#buf = new Array<CacheEvent | undefined>(Math.min(1024, this.#opts.maxEvents));
  }

  get size(): number {
    return this.#size;
  }

  /** Appends an event (revisions must increase) and evicts what retention allows. */
  push(event: CacheEvent): void {
    if (this.#size === this.#buf.length) {
      if (this.#buf.length < this.#opts.maxEvents && this.#oldestIsFresh(event.receivedAt)) this.#grow();
      else this.#evictOldest();
    }
    this.#buf[(this.#head + this.#size) % this.#buf.length] = event;
    this.#size++;
    this.#trim(event.receivedAt);
  }

  /** Drops events older than retention while more than minEvents remain. */
  #trim(now: number): void {
    while (this.#size > this.#opts.minEvents) {
      const oldest = this.#buf[this.#head]!;
      if (now - oldest.receivedAt < this.#opts.retentionMs) break;
      this.#evictOldest();
    }
  }

  /** Called periodically so that a quiet resource also sheds expired events. */
  expire(now: number): void {
    this.#trim(now);
  }

  #oldestIsFresh(now: number): boolean {
    const oldest = this.#buf[this.#head];
    return oldest !== undefined && now - oldest.receivedAt < this.#opts.retentionMs;
  }

  #grow(): void {
    const next = new Array<CacheEvent | undefined>(Math.min(this.#buf.length * 2, this.#opts.maxEvents));
    for (let i = 0; i < this.#size; i++) next[i] = this.#buf[(this.#head + i) % this.#buf.length];
    this.#buf = next;
    this.#head = 0;
  }

  #evictOldest(): void {
    this.#lastEvicted = this.#buf[this.#head]!.revision;
    this.#buf[this.#head] = undefined;
    this.#head = (this.#head + 1) % this.#buf.length;
    this.#size--;
  }

  #lastEvicted: Revision = 0;
  /**
   * Revision of the newest evicted event (0 if none). The state as of any
   * revision >= this can still be rebuilt from the current state and the window.
   */
  get lastEvictedRevision(): Revision {
    return this.#lastEvicted;
  }

  /** The oldest retained event's revision, or undefined when empty. */
  get oldestRevision(): Revision | undefined {
    return this.#size === 0 ? undefined : this.#buf[this.#head]!.revision;
  }

  at(i: number): CacheEvent {
    return this.#buf[(this.#head + i) % this.#buf.length]!;
  }

  /** Index of the first event with revision > `revision` (size if none). */
  indexAfter(revision: Revision): number {
    let lo = 0;
    let hi = this.#size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.at(mid).revision <= revision) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Events with revision > `revision`, oldest first. */
  *after(revision: Revision): IterableIterator<CacheEvent> {
    for (let i = this.indexAfter(revision); i < this.#size; i++) yield this.at(i);
  }

  clear(): void {
    this.#buf = new Array<CacheEvent | undefined>(Math.min(1024, this.#opts.maxEvents));
    this.#head = 0;
    this.#size = 0;
    this.#lastEvicted = 0;
  }
}
