/**
 * The storage contract: an MVCC key-value store in the style of etcd v3.
 *
 * Every backend (embedded, etcd3, and any future one) implements {@link Store}
 * and passes the one shared suite in `test/conformance/storage`.
 *
 * Contract, in short:
 * - One global revision counter for the whole store. Every successful write
 *   (create, update, delete) gets a revision strictly greater than every
 *   revision handed out before it, including across restarts. Revisions need
 *   not be contiguous (a backend may skip numbers), but they are never reused.
 * - Keys are strings; values are opaque bytes. A key's `modRevision` is the
 *   revision of its last write; `createRevision` the revision of the write
 *   that created the current incarnation.
 * - Reads at the latest revision are linearizable: they reflect every write
 *   acknowledged before the read began.
 * - Reads at a past revision see exactly the state as of that revision, as
 *   long as it is not older than the compacted revision.
 * - A watch delivers, for keys under its prefix, every change with a revision
 *   greater than the start revision, in revision order, once each, with the
 *   previous value attached.
 *
 * Why revisions are plain numbers: etcd revisions are int64 counters far below
 * 2^53 in practice, and a versionstamp backend (FoundationDB) would map its
 * 8-byte commit version plus batch order onto a 53-bit number the same way
 * (commit versions advance about 10^6 per second, i.e. centuries of headroom).
 * A versionstamp backend would keep a change log keyed by versionstamp for
 * `watch` and past-revision reads, and its transactions give the
 * compare-and-swap of `update` and `delete` directly.
 */

/** A store-wide, strictly increasing version number. */
export type Revision = number;

/** One key's value at some revision. */
export interface KeyValue {
  readonly key: string;
  readonly value: Uint8Array;
  /** Revision of the write that created this incarnation of the key. */
  readonly createRevision: Revision;
  /** Revision of the last write to the key. */
  readonly modRevision: Revision;
  /**
   * The value was read through another than the current writing transformer
   * (an old encryption key or provider): the next update rewrites it even if
   * the object is unchanged. Set by encryption at rest only.
   */
  readonly stale?: boolean;
}

/** A change of one key, as delivered by {@link Store.watch}. */
export interface StoreEvent {
  readonly type: 'put' | 'delete';
  readonly key: string;
  /** The revision of this change (the key's new modRevision, or the delete's revision). */
  readonly revision: Revision;
  /** The new value; null for a delete. */
  readonly value: Uint8Array | null;
  /** createRevision of the key after a put; of the deleted incarnation for a delete. */
  readonly createRevision: Revision;
  /** The value before the change; null when the put created the key. */
  readonly prevValue: Uint8Array | null;
  /** modRevision before the change; 0 when the put created the key. */
  readonly prevModRevision: Revision;
  /** As KeyValue.stale, for `value`. */
  readonly stale?: boolean;
}

export interface RangeOptions {
  /** Read as of this revision (0 or absent: the latest). */
  readonly revision?: Revision;
  /** Maximum number of keys to return (0 or absent: no limit). */
  readonly limit?: number;
  /** Resume key: the first key to return is the smallest key >= startKey within the prefix. */
  readonly startKey?: string;
}

export interface RangeResult {
  readonly kvs: KeyValue[];
  /** The revision the range was read at (the latest revision when none was asked). */
  readonly revision: Revision;
  /** True when keys after the last returned one exist in the prefix. */
  readonly more: boolean;
  /** Number of keys in [startKey, end of prefix) at that revision, including the returned ones. */
  readonly count: number;
}

export interface DeleteResult {
  readonly revision: Revision;
  /** The value that was deleted. */
  readonly prev: KeyValue;
}

/** Receives a watch's output. Calls never overlap and arrive in revision order. */
export interface WatchListener {
  /** A batch of events in revision order. A batch is never empty. */
  onEvents(events: readonly StoreEvent[]): void;
  /**
   * Every event with a revision <= `revision` has been delivered. Sent in
   * answer to {@link StoreWatch.requestProgress}, and may be sent at other times.
   */
  onProgress(revision: Revision): void;
  /**
   * The watch ended and will deliver nothing more: a {@link CompactedError}
   * when the start revision (or a resume point) is no longer in history, a
   * {@link StorageUnavailableError} when the store went away for good, or a
   * {@link StoreClosedError} after close of the store.
   */
  onError(error: Error): void;
}

export interface StoreWatch {
  /** Ask for an `onProgress` with the store's current revision once the watch has caught up to it. */
  requestProgress(): void;
  /** Stop the watch. No listener call happens after close returns. */
  close(): void;
}

/** Options of one write. */
export interface WriteOptions {
  /**
   * The store removes the key by itself about this many seconds after the
   * write (etcd: a lease attached to the key; `--event-ttl`). Honoured only by
   * stores whose {@link Store.expiresKeys} is true; the others ignore it (the
   * shard then sweeps expired keys itself).
   */
  readonly ttlSeconds?: number;
}

export interface Store {
  /** A short name for logs and metrics, e.g. `embedded` or `etcd3`. */
  readonly name: string;

  /** The store honours {@link WriteOptions.ttlSeconds} (etcd leases). */
  readonly expiresKeys?: boolean;

  /** Create `key` if absent. Throws {@link AlreadyExistsError} otherwise. */
  create(key: string, value: Uint8Array, options?: WriteOptions): Promise<KeyValue>;

  /**
   * Replace `key`'s value if its modRevision is `expectedModRevision`.
   * Throws {@link NotFoundError} if absent, {@link ConflictError} (carrying the
   * current value) on a revision mismatch.
   */
  update(key: string, value: Uint8Array, expectedModRevision: Revision, options?: WriteOptions): Promise<KeyValue>;

  /**
   * Delete `key`, if `expectedModRevision` is given only when it matches.
   * Throws {@link NotFoundError} if absent, {@link ConflictError} on a mismatch.
   */
  delete(key: string, expectedModRevision?: Revision): Promise<DeleteResult>;

  /**
   * Read one key at the latest revision or at `revision`. Null when absent.
   * Throws {@link CompactedError} or {@link FutureRevisionError} for a revision
   * outside the retained history.
   */
  get(key: string, revision?: Revision): Promise<{ kv: KeyValue | null; revision: Revision }>;

  /** List keys starting with `prefix` in key order. Same revision errors as `get`. */
  range(prefix: string, options?: RangeOptions): Promise<RangeResult>;

  /**
   * Watch keys starting with `prefix` for changes with revision > `afterRevision`.
   * A start revision at or below the compacted revision fails with a
   * {@link CompactedError} through `onError` (asynchronously).
   */
  watch(prefix: string, afterRevision: Revision, listener: WatchListener): StoreWatch;

  /** The latest revision, read linearizably. */
  currentRevision(): Promise<Revision>;

  /** The revision at or below which history has been discarded (0 if none). */
  compactedRevision(): Promise<Revision>;

  /** Discard the history of revisions <= `revision` (at most the current revision). */
  compact(revision: Revision): Promise<void>;

  /** Release resources. Pending watches get a {@link StoreClosedError}. */
  close(): Promise<void>;
}
