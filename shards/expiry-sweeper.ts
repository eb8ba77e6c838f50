/**
 * Expiry of keys written with a TTL (`--event-ttl`) on stores that cannot
 * expire keys themselves (the embedded store; etcd uses leases instead). The
 * owner shard sees every write of its resource, so it notes each key's
 * deadline (write time + TTL) and its revision, and deletes keys past their
 * deadline with a compare-and-swap on that revision: a key written again
 * meanwhile has a newer revision and a newer deadline, so it is never
 * deleted early.
 *
 * Keys that exist when the shard starts get a full TTL from then: the
 * deadline of a write before a restart is not stored, so an event lives at
 * most one TTL longer across a restart, never shorter.
 */
import type { Revision, Store } from '../src/storage/interface.ts';
import { ConflictError, NotFoundError } from '../src/storage/errors.ts';

interface Deadline {
  readonly at: number;
  readonly revision: Revision;
}

export interface ExpirySweeperOptions {
  readonly store: Store;
  /** Key prefix of the resource (trailing slash). */
  readonly prefix: string;
  readonly ttlSeconds: number;
  /** Sweep interval; default the TTL / 10 between 1 s and 60 s. */
  readonly intervalMs?: number;
  readonly now?: () => number;
  readonly onError?: (err: unknown) => void;
}

/** Keys read per page when the sweeper learns what exists at start. */
const PAGE = 1000;

export class ExpirySweeper {
  readonly #opts: ExpirySweeperOptions;
  readonly #now: () => number;
  readonly #deadlines = new Map<string, Deadline>();
  #timer: NodeJS.Timeout | null = null;
  #sweeping = false;
  #closed = false;

  constructor(opts: ExpirySweeperOptions) {
    this.#opts = opts;
    this.#now = opts.now ?? Date.now;
  }

  /** Reads the keys that exist (each gets a full TTL from now) and starts sweeping. */
  async start(): Promise<void> {
    const at = this.#now() + this.#opts.ttlSeconds * 1000;
    let startKey: string | undefined;
    let revision: Revision | undefined;
    for (;;) {
      const page = await this.#opts.store.range(this.#opts.prefix, { limit: PAGE, ...(startKey === undefined ? {} : { startKey }), ...(revision === undefined ? {} : { revision }) });
      revision = page.revision;
      // A write that the shard saw while this page was in flight has the newer deadline: keep it.
      for (const kv of page.kvs) if (!this.#deadlines.has(kv.key)) this.#deadlines.set(kv.key, { at, revision: kv.modRevision });
      if (!page.more || page.kvs.length === 0) break;
      startKey = `${page.kvs.at(-1)!.key}\0`;
    }
    if (this.#closed) return;
    const interval = this.#opts.intervalMs ?? Math.min(60_000, Math.max(1_000, (this.#opts.ttlSeconds * 1000) / 10));
    this.#timer = setInterval(() => void this.sweep(), interval);
    this.#timer.unref();
  }

  /** A write of `key` at `revision` went through the shard: its TTL starts now. */
  written(key: string, revision: Revision): void {
    this.#deadlines.set(key, { at: this.#now() + this.#opts.ttlSeconds * 1000, revision });
  }

  /** Number of keys with a deadline (for tests). */
  get size(): number {
    return this.#deadlines.size;
  }

  /** Deletes every key past its deadline; one sweep at a time. */
  async sweep(): Promise<number> {
    if (this.#sweeping || this.#closed) return 0;
    this.#sweeping = true;
    let deleted = 0;
    try {
      const now = this.#now();
      const due: Array<[string, Deadline]> = [];
      for (const entry of this.#deadlines) if (entry[1].at <= now) due.push(entry);
      for (const [key, deadline] of due) {
        if (this.#closed) break;
        // Rewritten since the sweep began: its new deadline stands.
        if (this.#deadlines.get(key) !== deadline) continue;
        try {
          await this.#opts.store.delete(key, deadline.revision);
          deleted++;
          if (this.#deadlines.get(key) === deadline) this.#deadlines.delete(key);
        } catch (err) {
          if (err instanceof NotFoundError) {
            if (this.#deadlines.get(key) === deadline) this.#deadlines.delete(key);
          } else if (err instanceof ConflictError) {
            // Written by a path the shard did not see (cannot happen with one owner shard): a fresh TTL.
            if (this.#deadlines.get(key) === deadline) this.#deadlines.set(key, { at: now + this.#opts.ttlSeconds * 1000, revision: err.current.modRevision });
          } else {
            this.#opts.onError?.(err);
            break;
          }
        }
      }
    } finally {
      this.#sweeping = false;
    }
    return deleted;
  }

  close(): void {
    this.#closed = true;
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }
}
