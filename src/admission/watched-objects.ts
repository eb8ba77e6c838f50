/**
 * WatchedObjects: every object of one type, by namespace, in this thread's
 * memory, kept by a watch of the owning shard (initial events, then changes;
 * on a lost watch the state is rebuilt from a fresh initial list). Plugins
 * on hot paths read it synchronously: LimitRanger (every pod create reads the
 * namespace's LimitRanges) and ResourceQuota (every create asks whether its
 * namespace has a quota, which must cost nothing when it has none).
 *
 * The watch starts on the first `start()`, which plugins call when the
 * thread's store exists (it is built after the chain: see plugin-table.ts).
 */
import { StringDecoder } from 'node:string_decoder';
import type { GenericStore } from '../registry/generic-store.ts';
import type { ResourceType } from '../registry/resource-type.ts';
import type { KObject } from '../registry/object.ts';
import { names } from '../naming/index.ts';

const RESTART_DELAY_MS = 1000;
const EMPTY: ReadonlyMap<string, KObject> = new Map();

export type WatchedChange = { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: KObject; old: KObject | undefined } | { type: 'RESYNC' };

export class WatchedObjects {
  readonly #rt: ResourceType;
  readonly #store: () => GenericStore;
  #byNamespace = new Map<string, Map<string, KObject>>();
  #staging: Map<string, Map<string, KObject>> | null = null;
  #watch: { close(): void } | null = null;
  #decoder = new StringDecoder('utf8');
  #buffer = '';
  #restartTimer: NodeJS.Timeout | null = null;
  #started = false;
  #closed = false;
  #synced = false;
  #resolveReady!: () => void;
  readonly #listeners = new Set<(change: WatchedChange) => void>();
  /** Settles when the first initial list is in. */
  readonly ready: Promise<void>;

  constructor(rt: ResourceType, store: () => GenericStore) {
    this.#rt = rt;
    this.#store = store;
    this.ready = new Promise((resolve) => (this.#resolveReady = resolve));
  }

  get synced(): boolean {
    return this.#synced;
  }

  /** The namespace's objects (a live map: do not change it). */
  in(namespace: string): ReadonlyMap<string, KObject> {
    return this.#byNamespace.get(namespace) ?? EMPTY;
  }

  /** Whether the namespace has any object of the type. */
  has(namespace: string): boolean {
    return this.#byNamespace.has(namespace);
  }

  namespaces(): IterableIterator<string> {
    return this.#byNamespace.keys();
  }

  onChange(listener: (change: WatchedChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  start(): this {
    if (this.#started || this.#closed) return this;
    this.#started = true;
    this.#begin();
    return this;
  }

  close(): void {
    this.#closed = true;
    this.#watch?.close();
    this.#watch = null;
    if (this.#restartTimer !== null) clearTimeout(this.#restartTimer);
    this.#restartTimer = null;
  }

  #begin(): void {
    if (this.#closed) return;
    this.#buffer = '';
    this.#decoder = new StringDecoder('utf8');
    this.#staging = new Map();
    try {
      this.#watch = this.#store().router.watch(
        { resource: this.#rt.storageResource, start: { kind: 'initial', read: { kind: 'latest' } }, filter: {}, encoding: 'json', bookmarks: false, initialEventsEnd: true },
        { onFrames: (frames) => this.#onFrames(frames), onEnd: () => this.#restart() },
      );
    } catch {
      this.#restart();
    }
  }

  #restart(): void {
    this.#watch?.close();
    this.#watch = null;
    if (this.#closed || this.#restartTimer !== null) return;
    this.#restartTimer = setTimeout(() => {
      this.#restartTimer = null;
      this.#begin();
    }, RESTART_DELAY_MS);
    this.#restartTimer.unref();
  }

  #onFrames(frames: Uint8Array): void {
    const text = this.#buffer + this.#decoder.write(Buffer.from(frames.buffer, frames.byteOffset, frames.byteLength));
    const lines = text.split('\n');
    this.#buffer = lines.pop()!;
    for (const line of lines) {
      if (line === '') continue;
      let ev: { type?: unknown; object?: KObject };
      try {
        ev = JSON.parse(line) as { type?: unknown; object?: KObject };
      } catch {
        this.#restart();
        return;
      }
      this.#apply(ev.type, ev.object);
    }
  }

  #apply(type: unknown, object: KObject | undefined): void {
    if (object === undefined || object === null || typeof object !== 'object' || typeof object.metadata !== 'object' || object.metadata === null) return;
    if (this.#staging !== null) {
      if (type === 'BOOKMARK') {
        if (object.metadata.annotations?.[names.initialEventsEndAnnotation] !== 'true') return;
        this.#byNamespace = this.#staging;
        this.#staging = null;
        if (!this.#synced) {
          this.#synced = true;
          this.#resolveReady();
        }
        this.#emit({ type: 'RESYNC' });
        return;
      }
      if (type === 'ADDED' || type === 'MODIFIED') put(this.#staging, object);
      else if (type === 'DELETED') remove(this.#staging, object);
      return;
    }
    if (type !== 'ADDED' && type !== 'MODIFIED' && type !== 'DELETED') return;
    const old = this.#byNamespace.get(object.metadata.namespace ?? '')?.get(object.metadata.name ?? '');
    if (type === 'DELETED') remove(this.#byNamespace, object);
    else put(this.#byNamespace, object);
    this.#emit({ type, object, old });
  }

  #emit(change: WatchedChange): void {
    for (const l of this.#listeners) {
      try {
        l(change);
      } catch {
        // One listener's bug must not stop the index for the others.
      }
    }
  }
}

function put(index: Map<string, Map<string, KObject>>, object: KObject): void {
  const ns = object.metadata.namespace ?? '';
  let m = index.get(ns);
  if (m === undefined) index.set(ns, (m = new Map()));
  m.set(object.metadata.name ?? '', object);
}

function remove(index: Map<string, Map<string, KObject>>, object: KObject): void {
  const ns = object.metadata.namespace ?? '';
  const m = index.get(ns);
  if (m === undefined) return;
  m.delete(object.metadata.name ?? '');
  if (m.size === 0) index.delete(ns);
}
