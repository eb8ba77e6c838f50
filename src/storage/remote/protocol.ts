/**
 * Messages between a RemoteStore (a shard's view of the store) and the
 * StoreServer in the thread that owns the store. Plain data only: they cross
 * threads by structured clone, in batches (see shards/batched-port.ts).
 */
import type { KeyValue, RangeOptions, RangeResult, Revision, StoreEvent, DeleteResult } from '../interface.ts';
import type { WireStorageError } from '../errors.ts';

export type StoreCall =
  | { op: 'create'; id: number; key: string; value: Uint8Array; via?: StoreVia | undefined }
  | { op: 'update'; id: number; key: string; value: Uint8Array; expected: Revision; via?: StoreVia | undefined }
  | { op: 'delete'; id: number; key: string; expected?: Revision | undefined; via?: StoreVia | undefined }
  | { op: 'get'; id: number; key: string; revision?: Revision | undefined }
  | { op: 'range'; id: number; prefix: string; options?: RangeOptions | undefined }
  | { op: 'currentRevision'; id: number }
  | { op: 'compactedRevision'; id: number }
  | { op: 'compact'; id: number; revision: Revision }
  | { op: 'watch'; wid: number; prefix: string; after: Revision }
  | { op: 'progress'; wid: number }
  | { op: 'unwatch'; wid: number };

export type StoreReply =
  | { t: 'ok'; id: number; value: OkValue }
  | { t: 'err'; id: number; error: WireStorageError | { code: 'Internal'; message: string } }
  | { t: 'events'; wid: number; events: readonly StoreEvent[] }
  | { t: 'progress'; wid: number; revision: Revision }
  | { t: 'werr'; wid: number; error: WireStorageError | { code: 'Internal'; message: string } }
  | WrittenVia;

/**
 * A write a serving thread sends straight to the store host whose answer
 * goes back through the owner shard (shards/direct-writes.ts): on the
 * connection named `conn` (the shard's), after the write's watch events, so
 * the shard's cache has the write before the writer hears of it. The other
 * fields the shard and the writer use to match the answer to the write.
 */
export interface StoreVia {
  /** The shard's connection to the store host (its name, unique per shard thread started). */
  readonly conn: string;
  /** The writer's client slot in that shard. */
  readonly client: number;
  /** The writer's shard index and its ShardClient's tag (a slot can pass to another thread). */
  readonly shard: number;
  readonly tag: number;
  /** `<group>/<resource>`: the shard waits for that cache to reach the write. */
  readonly resource: string;
}

/** A routed write's answer: on the shard's connection, or on the writer's own when the shard's is gone. */
export interface WrittenVia {
  readonly t: 'written';
  readonly via: StoreVia;
  readonly id: number;
  /** The key and its revisions: for a delete, `modRevision` is the deletion's revision. */
  readonly value?: WrittenKey | undefined;
  /** A delete's: the value it deleted (the writer answers with it, as of the deletion). */
  readonly prev?: Uint8Array | undefined;
  readonly error?: WireStorageError | { code: 'Internal'; message: string } | undefined;
}

/**
 * A create's or update's answer: the stored value is the caller's own bytes,
 * so it does not travel back (a copy of every written object saved).
 */
export interface WrittenKey {
  readonly key: string;
  readonly createRevision: Revision;
  readonly modRevision: Revision;
}

export type OkValue = WrittenKey | KeyValue | DeleteResult | RangeResult | { kv: KeyValue | null; revision: Revision } | Revision | null;
