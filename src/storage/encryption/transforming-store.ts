/**
 * TransformingStore: encryption at rest as a Store decorator. Values are
 * sealed on their way into the store (create, update) and opened on their
 * way out (get, range, watch, delete, conflicts), per resource, so that the
 * WAL, the snapshots and etcd hold only sealed bytes and the watch caches
 * above hold plain objects in memory only.
 *
 * A value that does not open (a key removed from the configuration, damaged
 * bytes) is passed on as it is stored: it is not JSON, so the watch cache
 * fails that one object (object-errors.ts) and nothing else; the reason is
 * reported through `onOpenFailure`, never the bytes.
 */
import type { DeleteResult, KeyValue, RangeOptions, RangeResult, Revision, Store, StoreEvent, StoreWatch, WatchListener, WriteOptions } from '../interface.ts';
import { ConflictError } from '../errors.ts';
import type { ResourceTransformers } from './transformers.ts';

export interface TransformingStoreOptions {
  /** The transformers of the resource a storage key belongs to. */
  readonly forKey: (key: string) => ResourceTransformers;
  readonly onOpenFailure?: (key: string, reason: string) => void;
}

export class TransformingStore implements Store {
  readonly #inner: Store;
  readonly #forKey: (key: string) => ResourceTransformers;
  readonly #onOpenFailure: (key: string, reason: string) => void;

  constructor(inner: Store, opts: TransformingStoreOptions) {
    this.#inner = inner;
    this.#forKey = opts.forKey;
    this.#onOpenFailure = opts.onOpenFailure ?? (() => undefined);
  }

  get name(): string {
    return this.#inner.name;
  }

  get expiresKeys(): boolean {
    return this.#inner.expiresKeys === true;
  }

  async create(key: string, value: Uint8Array, options?: WriteOptions): Promise<KeyValue> {
    const kv = await this.#inner.create(key, await this.#forKey(key).seal(value, key), options);
    return { ...kv, value };
  }

  async update(key: string, value: Uint8Array, expectedModRevision: Revision, options?: WriteOptions): Promise<KeyValue> {
    try {
      const kv = await this.#inner.update(key, await this.#forKey(key).seal(value, key), expectedModRevision, options);
      return { ...kv, value };
    } catch (err) {
      throw await this.#openConflict(err);
    }
  }

  async delete(key: string, expectedModRevision?: Revision): Promise<DeleteResult> {
    try {
      const res = await this.#inner.delete(key, expectedModRevision);
      return { ...res, prev: await this.#openKv(res.prev) };
    } catch (err) {
      throw await this.#openConflict(err);
    }
  }

  async get(key: string, revision?: Revision): Promise<{ kv: KeyValue | null; revision: Revision }> {
    const res = await this.#inner.get(key, revision);
    return res.kv === null ? res : { ...res, kv: await this.#openKv(res.kv) };
  }

  async range(prefix: string, options?: RangeOptions): Promise<RangeResult> {
    const res = await this.#inner.range(prefix, options);
    const kvs = await Promise.all(res.kvs.map((kv) => this.#openKv(kv)));
    return { ...res, kvs };
  }

  watch(prefix: string, afterRevision: Revision, listener: WatchListener): StoreWatch {
    // Opening may be asynchronous (KMS): batches are opened in order, one at a time, so the listener still sees them in revision order.
    let chain: Promise<void> = Promise.resolve();
    let ended = false;
    const inner = this.#inner.watch(prefix, afterRevision, {
      onEvents: (events) => {
        chain = chain.then(async () => {
          const opened = await Promise.all(events.map((e) => this.#openEvent(e)));
          if (!ended) listener.onEvents(opened);
        });
      },
      onProgress: (revision) => {
        chain = chain.then(() => {
          if (!ended) listener.onProgress(revision);
        });
      },
      onError: (error) => {
        chain = chain.then(() => {
          if (ended) return;
          ended = true;
          listener.onError(error);
        });
      },
    });
    return {
      requestProgress: () => inner.requestProgress(),
      close: () => {
        ended = true;
        inner.close();
      },
    };
  }

  currentRevision(): Promise<Revision> {
    return this.#inner.currentRevision();
  }

  compactedRevision(): Promise<Revision> {
    return this.#inner.compactedRevision();
  }

  compact(revision: Revision): Promise<void> {
    return this.#inner.compact(revision);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  async #open(key: string, value: Uint8Array): Promise<{ plain: Uint8Array; stale: boolean }> {
    try {
      return await this.#forKey(key).open(value, key);
    } catch (err) {
      this.#onOpenFailure(key, err instanceof Error ? err.message : String(err));
      return { plain: value, stale: false };
    }
  }

  async #openKv(kv: KeyValue): Promise<KeyValue> {
    const { plain, stale } = await this.#open(kv.key, kv.value);
    return stale ? { ...kv, value: plain, stale } : { ...kv, value: plain };
  }

  async #openEvent(e: StoreEvent): Promise<StoreEvent> {
    const value = e.value === null ? null : await this.#open(e.key, e.value);
    const prev = e.prevValue === null ? null : (await this.#open(e.key, e.prevValue)).plain;
    const out: StoreEvent = { ...e, value: value === null ? null : value.plain, prevValue: prev };
    return value?.stale === true ? { ...out, stale: true } : out;
  }

  async #openConflict(err: unknown): Promise<unknown> {
    if (!(err instanceof ConflictError)) return err;
    return new ConflictError(err.key, err.expectedModRevision, await this.#openKv(err.current));
  }
}
