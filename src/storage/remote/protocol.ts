/**
 * Messages between a RemoteStore (a shard's view of the store) and the
 * StoreServer in the thread that owns the store. Plain data only: they cross
 * threads by structured clone, in batches (see shards/batched-port.ts).
 */
import type { KeyValue, RangeOptions, RangeResult, Revision, StoreEvent, DeleteResult } from '../interface.ts';
import type { WireStorageError } from '../errors.ts';

export type StoreCall =
  | { op: 'create'; id: number; key: string; value: Uint8Array }
  | { op: 'update'; id: number; key: string; value: Uint8Array; expected: Revision }
  | { op: 'delete'; id: number; key: string; expected?: Revision | undefined }
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
  | { t: 'werr'; wid: number; error: WireStorageError | { code: 'Internal'; message: string } };

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
