/**
 * RemoteStore is a Store whose calls travel over a MessagePort to a
 * StoreServer in another thread. Calls made in one event-loop turn share one
 * message; watch events arrive in the server's batches.
 */
import type {
  DeleteResult,
  KeyValue,
  RangeOptions,
  RangeResult,
  Revision,
  Store,
  StoreWatch,
  WatchListener,
} from '../interface.ts';
import { StoreClosedError, StorageUnavailableError, storageErrorFromWire } from '../errors.ts';
import type { SharedRevision } from '../shared-revision.ts';
import { BatchedPort, type PortLike } from '../../../shards/batched-port.ts';
import type { OkValue, StoreCall, StoreReply, WrittenKey, WrittenVia } from './protocol.ts';
import { storeClientLane } from './wire.ts';
import { copyWith } from '../../api/object-copy.ts';

type Pending = { resolve: (v: OkValue) => void; reject: (e: Error) => void };
type CallWithoutId = StoreCall extends infer C ? (C extends { id: number } ? Omit<C, 'id'> : never) : never;

function fromWire(error: Extract<StoreReply, { t: 'err' }>['error']): Error {
  if (error.code === 'Internal') return new Error(error.message);
  return storageErrorFromWire(error);
}

export class RemoteStore implements Store {
  readonly name: string;
  readonly #port: BatchedPort<StoreCall, StoreReply>;
  readonly #pending = new Map<number, Pending>();
  readonly #watches = new Map<number, WatchListener>();
  #nextId = 1;
  #closed = false;

  /** The store host's committed revision, when it publishes one: consistent reads then need no message. */
  readonly #committed: SharedRevision | undefined;

  /** Where routed writes' answers go (a shard forwards them to their writers: shards/direct-writes.ts). */
  readonly #onWritten: ((m: WrittenVia) => void) | undefined;

  constructor(port: PortLike, name = 'remote', committed?: SharedRevision, onWritten?: (m: WrittenVia) => void) {
    this.name = name;
    this.#committed = committed;
    this.#onWritten = onWritten;
    this.#port = new BatchedPort<StoreCall, StoreReply>(port, (replies) => this.#onReplies(replies), storeClientLane);
    port.on('close', () => this.#fail(new StorageUnavailableError('store thread went away')));
  }

  #onReplies(replies: StoreReply[]): void {
    for (const r of replies) {
      switch (r.t) {
        case 'ok':
        case 'err': {
          const p = this.#pending.get(r.id);
          if (p === undefined) break;
          this.#pending.delete(r.id);
          if (r.t === 'ok') p.resolve(r.value);
          else p.reject(fromWire(r.error));
          break;
        }
        case 'events':
          this.#watches.get(r.wid)?.onEvents(r.events);
          break;
        case 'progress':
          this.#watches.get(r.wid)?.onProgress(r.revision);
          break;
        case 'written':
          this.#onWritten?.(r);
          break;
        case 'werr': {
          const l = this.#watches.get(r.wid);
          this.#watches.delete(r.wid);
          l?.onError(fromWire(r.error));
          break;
        }
      }
    }
  }

  #fail(err: Error): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const p of this.#pending.values()) p.reject(err);
    this.#pending.clear();
    const listeners = [...this.#watches.values()];
    this.#watches.clear();
    for (const l of listeners) l.onError(err);
  }

  #call<T extends OkValue>(call: CallWithoutId): Promise<T> {
    if (this.#closed) return Promise.reject(new StoreClosedError());
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (v: OkValue) => void, reject });
      // Not `{ ...call, id }`: a member added after a spread is slow on Node 20 (api/object-copy.ts).
      this.#port.send(copyWith(call, 'id', id) as StoreCall);
    });
  }

  create(key: string, value: Uint8Array): Promise<KeyValue> {
    return this.#call<WrittenKey>({ op: 'create', key, value }).then((w) => written(w, value));
  }
  update(key: string, value: Uint8Array, expected: Revision): Promise<KeyValue> {
    return this.#call<WrittenKey>({ op: 'update', key, value, expected }).then((w) => written(w, value));
  }
  delete(key: string, expected?: Revision): Promise<DeleteResult> {
    return this.#call<DeleteResult>({ op: 'delete', key, expected });
  }
  get(key: string, revision?: Revision): Promise<{ kv: KeyValue | null; revision: Revision }> {
    return this.#call<{ kv: KeyValue | null; revision: Revision }>({ op: 'get', key, revision });
  }
  range(prefix: string, options?: RangeOptions): Promise<RangeResult> {
    return this.#call<RangeResult>({ op: 'range', prefix, options });
  }
  currentRevision(): Promise<Revision> {
    if (this.#committed !== undefined && !this.#closed) return Promise.resolve(this.#committed.read());
    return this.#call<Revision>({ op: 'currentRevision' });
  }
  compactedRevision(): Promise<Revision> {
    return this.#call<Revision>({ op: 'compactedRevision' });
  }
  async compact(revision: Revision): Promise<void> {
    await this.#call<null>({ op: 'compact', revision });
  }

  watch(prefix: string, afterRevision: Revision, listener: WatchListener): StoreWatch {
    const wid = this.#nextId++;
    if (this.#closed) {
      queueMicrotask(() => listener.onError(new StoreClosedError()));
      return { requestProgress() {}, close() {} };
    }
    this.#watches.set(wid, listener);
    this.#port.send({ op: 'watch', wid, prefix, after: afterRevision });
    return {
      requestProgress: () => {
        if (this.#watches.has(wid)) this.#port.send({ op: 'progress', wid });
      },
      close: () => {
        if (this.#watches.delete(wid)) this.#port.send({ op: 'unwatch', wid });
      },
    };
  }

  async close(): Promise<void> {
    this.#port.flush();
    this.#fail(new StoreClosedError());
    this.#port.close();
  }
}

/** The stored pair of a write: the store thread answers with the key and revisions only; the writer has the bytes. */
function written(w: WrittenKey, value: Uint8Array): KeyValue {
  return { key: w.key, value, createRevision: w.createRevision, modRevision: w.modRevision };
}
