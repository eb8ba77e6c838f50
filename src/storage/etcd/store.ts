/**
 * {@link Store} on etcd v3, through the `etcd3` client.
 *
 * Each write is one etcd request: create is a transaction "if the key's
 * create revision is 0, put" (as kube-apiserver's etcd3 store does), update
 * and conditional delete compare the key's mod revision, and a failed
 * comparison reads the key in the same transaction so a conflict reports the
 * value that won. Reads at the latest revision are linearizable
 * (serializable=false) and reads at a past revision use etcd's MVCC history.
 * etcd's global revision is the store revision: stores with different
 * prefixes on one etcd share one counter, as the contract allows.
 */
import { EtcdLeaseInvalidError, type ICompare, type IRangeRequest, type IRangeResponse } from 'etcd3';
import type {
  DeleteResult,
  KeyValue,
  RangeOptions,
  RangeResult,
  Revision,
  Store,
  StoreWatch,
  WatchListener,
  WriteOptions,
} from '../interface.ts';
import {
  AlreadyExistsError,
  CompactedError,
  ConflictError,
  FutureRevisionError,
  NotFoundError,
  StorageUnavailableError,
  StoreClosedError,
} from '../errors.ts';
import type { CompactionCoordinator } from '../compactor.ts';
import { etcdCompactionCoordinator } from './compaction.ts';
import { EtcdConnection } from './connection.ts';
import { toKeyValue } from './convert.ts';
import { classify, messageOf } from './failures.ts';
import { isReserved, KeyCodec, sentinelFor } from './keys.ts';
import { progressModeFor, type ProgressMode } from './progress.ts';
import { EtcdWatch, type WatchHost } from './watch.ts';
import { LeaseManager } from './lease-manager.ts';

/** Longest a progress sentinel outlives a process that died between its put and delete. */
const SENTINEL_LEASE_TTL_S = 60;

export interface EtcdStoreOptions {
  /** Client URLs, e.g. `http://127.0.0.1:2379`. */
  readonly endpoints: readonly string[];
  /** Prefix of every key in etcd; default `/registry`, as kube-apiserver. */
  readonly prefix?: string;
  /** How long {@link EtcdStore.connect} waits for a first answer; default 5 s. */
  readonly dialTimeoutMs?: number;
  /** Deadline of each request, retries included; default 10 s. */
  readonly requestTimeoutMs?: number;
  /** A watch that cannot reach etcd this long ends with StorageUnavailableError; default 60 s. */
  readonly watchUnavailableTimeoutMs?: number;
  /** gRPC keepalive interval; default 10 s. etcd rejects pings less than 5 s apart. */
  readonly keepaliveMs?: number;
  /**
   * How watches answer requestProgress (see progress.ts). `auto` (default)
   * asks every member's version once and uses native progress requests only
   * where they are ordered with events.
   */
  readonly progressMode?: 'auto' | ProgressMode;
}

export class EtcdStore implements Store {
  readonly name = 'etcd3';
  readonly #conn: EtcdConnection;
  readonly #codec: KeyCodec;
  readonly #options: EtcdStoreOptions;
  readonly #watches = new Set<EtcdWatch>();
  readonly #watchHost: WatchHost;
  #closed = false;
  #mode: Promise<ProgressMode> | null = null;
  /** A revision known to be at or below etcd's compacted revision (it only grows). */
  #compactedFloor: Revision = 0;
  #lease: { id: string; grantedAt: number } | null = null;
  /** Leases of keys written with a TTL (events), one reused per TTL (lease-manager.ts). */
  readonly #leases = new LeaseManager(async (ttl) => (await this.#conn.client.leaseClient.leaseGrant({ TTL: ttl })).ID);
  /** etcd expires keys by their leases. */
  readonly expiresKeys = true;

  constructor(options: EtcdStoreOptions) {
    if (options.endpoints.length === 0) throw new Error('EtcdStore needs at least one endpoint');
    this.#options = options;
    this.#codec = new KeyCodec(options.prefix ?? '/registry');
    this.#conn = new EtcdConnection({
      endpoints: options.endpoints,
      requestTimeoutMs: options.requestTimeoutMs ?? 10_000,
      keepaliveMs: Math.max(5_000, options.keepaliveMs ?? 10_000),
    });
    this.#watchHost = this.#makeWatchHost();
  }

  /** A store whose etcd answered within `dialTimeoutMs`; StorageUnavailableError otherwise. */
  static async connect(options: EtcdStoreOptions): Promise<EtcdStore> {
    const store = new EtcdStore(options);
    const timeoutMs = options.dialTimeoutMs ?? 5_000;
    try {
      const deadline = Date.now() + timeoutMs;
      await store.#conn.call(
        true,
        () => store.#conn.client.kv.range({ key: store.#codec.probeKey, count_only: true }, { deadline }),
        timeoutMs,
      );
      return store;
    } catch (err) {
      await store.close();
      throw new StorageUnavailableError(
        `etcd at ${options.endpoints.join(',')} did not answer within ${timeoutMs} ms: ${messageOf(err)}`,
      );
    }
  }

  async create(key: string, value: Uint8Array, options?: WriteOptions): Promise<KeyValue> {
    const k = this.#codec.encode(key);
    const res = await this.#withLease(options, (lease) =>
      this.#call(false, 0, () =>
        this.#conn.client.kv.txn({
          compare: [{ key: k, target: 'Create', result: 'Equal', create_revision: 0 }],
          success: [{ request_put: { key: k, value: asBuffer(value), ...lease } }],
          failure: [],
        }),
      ),
    );
    if (!res.succeeded) throw new AlreadyExistsError(key);
    const revision = Number(res.header.revision);
    return { key, value, createRevision: revision, modRevision: revision };
  }

  async update(key: string, value: Uint8Array, expectedModRevision: Revision, options?: WriteOptions): Promise<KeyValue> {
    const k = this.#codec.encode(key);
    const res = await this.#withLease(options, (lease) =>
      this.#call(false, 0, () =>
        this.#conn.client.kv.txn({
          compare: this.#expect(k, expectedModRevision),
          // The keys-only read after the put yields the create revision without
          // sending the old value back.
          success: [{ request_put: { key: k, value: asBuffer(value), ...lease } }, { request_range: { key: k, keys_only: true } }],
          failure: [{ request_range: { key: k } }],
        }),
      ),
    );
    if (!res.succeeded) throw this.#refused(key, expectedModRevision, res.responses[0]?.response_range);
    const written = res.responses[1]?.response_range.kvs[0];
    const revision = Number(res.header.revision);
    return { key, value, createRevision: Number(written?.create_revision ?? revision), modRevision: revision };
  }

  async delete(key: string, expectedModRevision?: Revision): Promise<DeleteResult> {
    const k = this.#codec.encode(key);
    if (expectedModRevision === undefined) {
      const res = await this.#call(false, 0, () =>
        this.#conn.client.kv.deleteRange({ key: k, prev_kv: true }),
      );
      const prev = res.prev_kvs[0];
      if (!prev) throw new NotFoundError(key);
      return { revision: Number(res.header.revision), prev: toKeyValue(this.#codec, prev) };
    }
    const res = await this.#call(false, 0, () =>
      this.#conn.client.kv.txn({
        compare: this.#expect(k, expectedModRevision),
        success: [{ request_delete_range: { key: k, prev_kv: true } }],
        failure: [{ request_range: { key: k } }],
      }),
    );
    if (!res.succeeded) throw this.#refused(key, expectedModRevision, res.responses[0]?.response_range);
    const prev = res.responses[0]?.response_delete_range.prev_kvs[0];
    if (!prev) throw new NotFoundError(key); // unreachable: the comparison saw the key
    return { revision: Number(res.header.revision), prev: toKeyValue(this.#codec, prev) };
  }

  async get(key: string, revision?: Revision): Promise<{ kv: KeyValue | null; revision: Revision }> {
    const rev = revision ?? 0;
    const res = await this.#range({ key: this.#codec.encode(key), revision: rev }, rev);
    const kv = res.kvs[0];
    return { kv: kv ? toKeyValue(this.#codec, kv) : null, revision: rev > 0 ? rev : Number(res.header.revision) };
  }

  async range(prefix: string, options: RangeOptions = {}): Promise<RangeResult> {
    const { start, end } = this.#codec.prefixRange(prefix);
    const from = options.startKey !== undefined ? maxKey(start, this.#codec.encode(options.startKey)) : start;
    const limit = options.limit ?? 0;
    const first = await this.#range(
      { key: from, range_end: end, revision: options.revision ?? 0, limit },
      options.revision ?? 0,
    );
    // Later pages must read the same snapshot as the first.
    const revision = options.revision || Number(first.header.revision);
    const kvs: KeyValue[] = [];
    let reserved = 0;
    let page = first;
    for (;;) {
      for (const kv of page.kvs) {
        if (isReserved(kv.key)) reserved++;
        else kvs.push(toKeyValue(this.#codec, kv));
      }
      // A progress sentinel (keys.ts) took a slot of the page: fetch on to fill it.
      if (limit === 0 || kvs.length >= limit || !page.more || page.kvs.length === 0) break;
      const after = Buffer.concat([page.kvs.at(-1)!.key, Buffer.from([0])]);
      page = await this.#range({ key: after, range_end: end, revision, limit: limit - kvs.length }, revision);
    }
    return { kvs, revision, more: limit > 0 && page.more, count: Number(first.count) - reserved };
  }

  watch(prefix: string, afterRevision: Revision, listener: WatchListener): StoreWatch {
    const { start, end } = this.#codec.prefixRange(prefix);
    const { sentinel, watchStart, watchEnd } = sentinelFor(start, end);
    const watch = new EtcdWatch(this.#watchHost, { start: watchStart, end: watchEnd, sentinel }, afterRevision, listener);
    if (this.#closed) watch.fail(new StoreClosedError());
    else this.#watches.add(watch);
    return watch;
  }

  async currentRevision(): Promise<Revision> {
    const res = await this.#range({ key: this.#codec.probeKey, count_only: true }, 0);
    return Number(res.header.revision);
  }

  /**
   * etcd does not report its compacted revision, so find it: reads at a
   * revision below it fail, reads at or above succeed. Starting from the
   * highest compaction this store has seen, a readable floor answers in one
   * request; otherwise a binary search up to the current revision.
   */
  async compactedRevision(): Promise<Revision> {
    return this.#findCompacted(this.#compactedFloor);
  }

  async compact(revision: Revision): Promise<void> {
    try {
      await this.#call(true, revision, () => this.#conn.client.kv.compact({ revision, physical: false }));
    } catch (err) {
      // Compacting at or below the compacted revision is a no-op, not an error.
      if (!(err instanceof CompactedError)) throw err;
    }
    this.#compactedFloor = Math.max(this.#compactedFloor, revision);
  }

  /**
   * The cluster-wide compaction clock for a {@link Compactor}, shared with
   * every process (and kube-apiserver) using the same key on this etcd.
   */
  compactionCoordinator(key?: string): CompactionCoordinator {
    const inner = etcdCompactionCoordinator(this.#conn, key);
    return {
      claim: async (expectedClock, revision) => {
        if (this.#closed) throw new StoreClosedError();
        try {
          return await inner.claim(expectedClock, revision);
        } catch (err) {
          throw await this.#translate(err, 0);
        }
      },
    };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const watch of [...this.#watches]) watch.fail(new StoreClosedError());
    this.#watches.clear();
    this.#conn.close();
  }

  // ---- internals ----

  /** Comparisons for "the key exists with this mod revision". */
  #expect(k: Buffer, expectedModRevision: Revision): ICompare[] {
    const compare: ICompare[] = [{ key: k, target: 'Mod', result: 'Equal', mod_revision: expectedModRevision }];
    // An absent key compares as mod revision 0; it must fail, not match 0.
    if (expectedModRevision <= 0) compare.push({ key: k, target: 'Create', result: 'Greater', create_revision: 0 });
    return compare;
  }

  #refused(key: string, expected: Revision, read: IRangeResponse | undefined): Error {
    const current = read?.kvs[0];
    if (!current) return new NotFoundError(key);
    return new ConflictError(key, expected, toKeyValue(this.#codec, current));
  }

  #range(req: IRangeRequest, requested: Revision): Promise<IRangeResponse> {
    return this.#call(true, requested, () => this.#conn.client.kv.range({ ...req, serializable: false }));
  }

  /** Runs one etcd request and turns its failure into a storage error. */
  async #call<T>(idempotent: boolean, requested: Revision, fn: () => Promise<T>): Promise<T> {
    if (this.#closed) throw new StoreClosedError();
    try {
      return await this.#conn.call(idempotent, fn);
    } catch (err) {
      throw await this.#translate(err, requested);
    }
  }

  async #translate(err: unknown, requested: Revision): Promise<unknown> {
    if (this.#closed) return new StoreClosedError();
    switch (classify(err)) {
      case 'compacted':
        return new CompactedError(requested, await this.#findCompacted(requested + 1).catch(() => requested + 1));
      case 'future':
        return new FutureRevisionError(requested, await this.currentRevision().catch(() => 0));
      case 'unavailable':
        return new StorageUnavailableError(`etcd: ${messageOf(err)}`);
      case 'other':
        return err;
    }
  }

  /** Is history at `revision` still readable? */
  async #readable(revision: Revision): Promise<boolean> {
    try {
      await this.#conn.call(true, () =>
        this.#conn.client.kv.range({ key: this.#codec.probeKey, revision, count_only: true }),
      );
      return true;
    } catch (err) {
      if (classify(err) === 'compacted') return false;
      throw await this.#translate(err, revision);
    }
  }

  /** The smallest readable revision, searching upwards from `floor`; 0 if nothing was ever discarded. */
  async #findCompacted(floor: Revision): Promise<Revision> {
    if (this.#closed) throw new StoreClosedError();
    let lo = Math.max(1, floor, this.#compactedFloor);
    if (!(await this.#readable(lo))) {
      // Invariant: lo unreadable, hi readable (the current revision always is).
      let hi = await this.currentRevision();
      while (hi - lo > 1) {
        const mid = lo + Math.floor((hi - lo) / 2);
        if (await this.#readable(mid)) hi = mid;
        else lo = mid;
      }
      lo = hi;
    }
    this.#compactedFloor = Math.max(this.#compactedFloor, lo);
    return lo === 1 ? 0 : lo;
  }

  #progressMode(): Promise<ProgressMode> {
    const fixed = this.#options.progressMode;
    if (fixed && fixed !== 'auto') return Promise.resolve(fixed);
    this.#mode ??= this.#conn.versions().then(progressModeFor, () => {
      // Unknown: use sentinels (correct everywhere) now, and ask again next time.
      this.#mode = null;
      return 'sentinel' as const;
    });
    return this.#mode;
  }

  /**
   * Put then delete a progress sentinel. Listings of a prefix enclosing the
   * sentinel drop it, but their `count` includes one that exists beyond the
   * returned page, so it must exist as briefly as possible: it is deleted
   * right after the put, and the put carries a lease so that etcd removes it
   * within {@link SENTINEL_LEASE_TTL_S} even if this process dies in between.
   */
  async #pokeSentinel(key: Buffer): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const lease = await this.#sentinelLease();
      try {
        await this.#call(true, 0, () => this.#conn.client.kv.put({ key, value: Buffer.alloc(0), lease }));
        break;
      } catch (err) {
        // The lease expired meanwhile (e.g. etcd was down longer than its TTL): take a new one.
        if (attempt > 0 || !(err instanceof EtcdLeaseInvalidError)) throw err;
        this.#lease = null;
      }
    }
    void this.#call(true, 0, () => this.#conn.client.kv.deleteRange({ key })).catch(() => undefined);
  }

  /**
   * Runs a write with the lease its TTL asks for (none without one). A lease
   * that etcd no longer knows (it expired early, e.g. etcd was down) is
   * dropped and the write tried once more under a fresh one; the failed
   * transaction wrote nothing.
   */
  async #withLease<T>(options: WriteOptions | undefined, write: (lease: { lease?: string }) => Promise<T>): Promise<T> {
    const ttl = options?.ttlSeconds;
    if (ttl === undefined || !(ttl > 0)) return write({});
    for (let attempt = 0; ; attempt++) {
      const lease = await this.#call(false, 0, () => this.#leases.leaseFor(ttl));
      try {
        return await write({ lease });
      } catch (err) {
        if (attempt > 0 || !(err instanceof EtcdLeaseInvalidError)) throw err;
        this.#leases.forget(lease);
      }
    }
  }

  /** A lease for sentinels, renewed by taking a fresh one every half TTL (no keep-alive stream). */
  async #sentinelLease(): Promise<string> {
    const now = Date.now();
    if (this.#lease && now - this.#lease.grantedAt < (SENTINEL_LEASE_TTL_S * 1000) / 2) return this.#lease.id;
    const res = await this.#call(true, 0, () =>
      this.#conn.client.leaseClient.leaseGrant({ TTL: SENTINEL_LEASE_TTL_S }),
    );
    this.#lease = { id: res.ID, grantedAt: now };
    return res.ID;
  }

  #makeWatchHost(): WatchHost {
    return {
      codec: this.#codec,
      unavailableTimeoutMs: this.#options.watchUnavailableTimeoutMs ?? 60_000,
      openStream: () => {
        if (this.#closed) return Promise.reject(new StoreClosedError());
        return this.#conn.openWatchStream();
      },
      progressMode: () => this.#progressMode(),
      pokeSentinel: (key) => this.#pokeSentinel(key),
      checkStart: async (afterRevision) => {
        if (afterRevision <= 0) return; // from the beginning: etcd itself reports a compaction
        // etcd would start a watch at the compacted revision itself, but the
        // event there would lack its previous value; the contract says history
        // before the compacted revision is gone, so refuse like the embedded store.
        if (!(await this.#readable(afterRevision).catch(passFuture))) {
          throw new CompactedError(afterRevision, await this.#findCompacted(afterRevision + 1));
        }
      },
      release: (watch) => {
        this.#watches.delete(watch);
      },
    };
  }
}

/** A start revision in the future is fine for a watch: it waits. */
function passFuture(err: unknown): boolean {
  if (err instanceof FutureRevisionError) return true;
  throw err;
}

function asBuffer(value: Uint8Array): Buffer {
  return Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
}

function maxKey(a: Buffer, b: Buffer): Buffer {
  return Buffer.compare(a, b) >= 0 ? a : b;
}
