/**
 * The messages between the main thread and a shard. Plain data crossing by
 * structured clone in per-turn batches; object bodies travel as bytes already
 * in their wire format (JSON now), never as object graphs.
 */
import type { Revision } from '../src/storage/interface.ts';
import type { WireStorageError } from '../src/storage/errors.ts';
import type { ListPieceQueue } from './list-pieces.ts';
import type { WrittenKey } from '../src/storage/remote/protocol.ts';
import type { ProfileSpec } from '../src/server/thread-profile.ts';

/** A resource type a shard serves. */
export interface ResourceSpec {
  /** `<group>/<resource>`, '' group for core: `/pods`, `apps/deployments`. */
  groupResource: string;
  /** Key prefix with trailing slash, e.g. `/pods/`, `/apps/deployments/`. */
  prefix: string;
  namespaced: boolean;
  kind: string;
  /** apiVersion used for bookmark objects. */
  apiVersion: string;
  /** Minimum number of events the watch cache keeps (--watch-cache-sizes / --default-watch-cache-size). */
  cacheSize: number;
  /**
   * Objects expire this many seconds after their last write (`--event-ttl` for
   * events): by etcd leases where the store expires keys, else by the owner
   * shard's sweeper (expiry-sweeper.ts). Absent: objects never expire.
   */
  ttlSeconds?: number;
}

/**
 * How a read picks its revision (the main thread maps resourceVersion and
 * resourceVersionMatch onto this):
 * - latest: consistent read of the newest state (confirmed against the store);
 * - any: whatever the cache has now;
 * - notOlderThan: the cache's state once it has reached `revision`;
 * - exact: the state as of `revision` exactly.
 */
export type ReadMode =
  | { kind: 'latest' }
  | { kind: 'any' }
  | { kind: 'notOlderThan'; revision: Revision }
  | { kind: 'exact'; revision: Revision };

/** Which objects a list or watch wants. Selectors are parsed in the shard. */
export interface Filter {
  namespace?: string | undefined;
  /** A single object (a `metadata.name=` field selector). */
  name?: string | undefined;
  labelSelector?: string | undefined;
  fieldSelector?: string | undefined;
}

export type WatchStart =
  /** Synthetic ADDED events for the current state, then live events. */
  | { kind: 'initial'; read: ReadMode }
  /** Every event after `revision`. */
  | { kind: 'from'; revision: Revision };

export type ShardRequest =
  | { op: 'get'; id: number; resource: string; key: string; read: ReadMode }
  | {
      op: 'list';
      id: number;
      resource: string;
      read: ReadMode;
      filter: Filter;
      /** First key to include (a continue token's resume key). */
      startKey?: string | undefined;
      limit?: number | undefined;
      /** The items' wire form; Protobuf only for kinds that have one. */
      encoding?: ListEncoding | undefined;
      /** Items from startKey on, as the previous page counted them (see CacheListOptions). */
      remainingFromStart?: number | undefined;
      /** The asker takes a large JSON answer in pieces (list-pieces.ts): `streamed` in the reply, then `piece` messages. */
      stream?: boolean | undefined;
    }
  | { op: 'create'; id: number; resource: string; key: string; value: Uint8Array }
  | { op: 'update'; id: number; resource: string; key: string; value: Uint8Array; expectedRevision: Revision }
  | { op: 'delete'; id: number; resource: string; key: string; expectedRevision?: Revision | undefined }
  | {
      op: 'watch';
      watchId: number;
      resource: string;
      start: WatchStart;
      filter: Filter;
      encoding: string;
      bookmarks: boolean;
      initialEventsEnd: boolean;
    }
  | { op: 'unwatch'; watchId: number; resource: string }
  /** The asker of the list answer `id`, streamed in pieces, reads no more of it: the shard stops making them. */
  | { op: 'stopPieces'; id: number }
  /**
   * The asker of the list answer `id`, streamed in pieces, ended its response cleanly: every piece went to
   * its transport, and its thread holds none of them any more (the shard may make later answers in them).
   */
  | { op: 'piecesWritten'; id: number }
  | { op: 'bookmark'; resource?: string | undefined }
  | { op: 'stats'; id: number }
  /**
   * Serve one more resource type from now on (a custom resource, served once
   * its definition is established): its cache loads, and the reply comes once
   * it is ready. Idempotent; a changed spec (scope) replaces the cache.
   */
  | { op: 'ensure'; id: number; spec: ResourceSpec }
  /** A CPU or allocation profile (`seconds` long) or heap snapshot of the shard thread (`/debug/pprof/...?shard=N`). */
  | { op: 'profile'; id: number; spec: ProfileSpec };

/** An object as returned to the main thread. */
export interface ObjectBytes {
  json: Uint8Array;
  revision: Revision;
  /** Stored through an old encryption key or provider: an update must rewrite it even when unchanged. */
  stale?: boolean;
}

/**
 * How a shard encodes list items. `json-bare`: JSON without each item's kind
 * and apiVersion (where the stored bytes start with the type's own), as the
 * original sends the items of a built-in type's list; the list names them once.
 */
export type ListEncoding = 'json' | 'json-bare' | 'protobuf';

export interface ListReply {
  /**
   * JSON: the items joined with commas (ready to sit inside `"items":[...]`).
   * Protobuf: each item as the list message's field 2 (key, length, message).
   */
  items: Uint8Array;
  /** Absent means JSON. */
  encoding?: ListEncoding | undefined;
  count: number;
  revision: Revision;
  /** Key of the last item when more items follow. */
  lastKey?: string | undefined;
  remaining?: number | undefined;
  /**
   * Set when the items follow in `piece` messages (`items` is then empty):
   * their byte length. Only for an asker that offered to take pieces.
   */
  streamed?: number | undefined;
  /** The receiving side's queue of those pieces (shard-client.ts); never on the wire. */
  pieces?: ListPieceQueue | undefined;
  /**
   * A shared answer built in pieces, as the list cache keeps it: the pieces
   * (SharedArrayBuffers; `items` is then empty and `streamed` their length).
   * Never on the wire: askers get them as `piece` messages, or joined.
   */
  kept?: readonly Uint8Array[] | undefined;
}

export interface ShardStats {
  resources: { groupResource: string; objects: number; watchers: number; revision: Revision; ready: boolean }[];
  pendingRequests: number;
  /** Shared large list answers (list-result-cache.ts). */
  listCache?: { hits: number; misses: number; entries: number; bytes: number } | undefined;
  /** List answers being sent in pieces now, and those stopped early because their asker left. */
  listStreams?: { active: number; stopped: number } | undefined;
  /** Pieces of streamed answers (list-piece-pool.ts): free in the pool, taken from it, made afresh; askers still reading. */
  listPieces?: { free: number; reused: number; made: number; readers: number } | undefined;
}

/** The profile's bytes (V8's JSON), or null when the thread is already taking one. */
export interface ProfileReply {
  profile: Uint8Array | null;
}

/**
 * A GET's answer. `slot` and `changes` when it is the cache's latest state: where the cells (read-cells.ts)
 * still show that count, the asker may give the same answer again without asking.
 */
export interface GetReply {
  object: ObjectBytes | null;
  revision: Revision;
  slot?: number | undefined;
  changes?: number | undefined;
}

export type ReplyValue = ObjectBytes | GetReply | ListReply | ShardStats | { ensured: string } | ProfileReply;

export type ShardError = WireStorageError | { code: 'Internal' | 'BadRequest' | 'NotServed'; message: string };

export type ShardMessage =
  | { t: 'ok'; id: number; value: ReplyValue }
  | { t: 'err'; id: number; error: ShardError }
  /** Frames (concatenated) for watchers `ids`, current up to `revision`. */
  | { t: 'frames'; ids: readonly number[]; frames: Uint8Array; revision: Revision }
  /** First on every channel where the store publishes its revision: the shard's ReadCells and that revision's cell. */
  | { t: 'readCells'; cells: SharedArrayBuffer; storeRevision: SharedArrayBuffer }
  /** First on a channel when serving threads write directly (direct-writes.ts): the shard's store connection and the client's slot. */
  | { t: 'routeWrites'; conn: string; client: number }
  /** A direct write's answer, forwarded once the shard's cache has it (direct-writes.ts). */
  | { t: 'written'; tag: number; id: number; value?: WrittenKey | undefined; prev?: Uint8Array | undefined; error?: ShardError | undefined }
  /** The next piece of the streamed list answer `id` (its reply came first). */
  | { t: 'piece'; id: number; bytes: Uint8Array }
  /** Watchers ended by the shard. */
  | { t: 'end'; ids: readonly number[]; error: ShardError };
