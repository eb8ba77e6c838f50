/**
 * ResourceMirror: one serving thread's copy of one resource, kept by a watch
 * of its shard (the initial state, then every change), so that code on the
 * request path (admission plugins) reads small collections — namespaces,
 * classes, limit ranges, quotas — from memory instead of a thread hop per
 * request.
 *
 * A watch that ends is started again from a fresh initial state; until that
 * state is complete the old copy keeps answering and is then replaced at
 * once. The copy lags the store by a watch event's trip: callers that must
 * see a write made a moment ago (a namespace created just before its first
 * pod) fall back to a read on a miss, as the original's admission plugins do
 * with their "live lookup".
 */
import { StringDecoder } from 'node:string_decoder';
import type { ShardAccess } from '../../shards/shard-access.ts';
import type { ResourceType } from './resource-type.ts';
import type { KObject } from './object.ts';
import { names } from '../naming/index.ts';

const RESTART_DELAY_MS = 1000;

export type MirrorChange =
  | {
      readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
      readonly namespace: string;
      readonly name: string;
      readonly object: KObject;
      /** The object as the copy held it before this change (undefined for an ADDED). */
      readonly old: KObject | undefined;
    }
  | { readonly type: 'RESYNC' };

type ByNamespace = Map<string, Map<string, KObject>>;
const EMPTY: ReadonlyMap<string, KObject> = new Map();

export class ResourceMirror {
  readonly rt: ResourceType;
  readonly #router: ShardAccess;
  /** namespace → name → object (frozen: shared by every reader). */
  #objects: ByNamespace = new Map();
  #size = 0;
  /** Objects of a fresh initial state being received; null once it is complete. */
  #staging: ByNamespace | null = null;
  #watch: { close(): void } | null = null;
  #decoder = new StringDecoder('utf8');
  #buffer = '';
  #restartTimer: NodeJS.Timeout | null = null;
  #synced = false;
  #closed = false;
  readonly #listeners = new Set<(change: MirrorChange) => void>();
  #resolveReady!: () => void;
  /** Settles once the first initial state is in. */
  readonly ready: Promise<void>;

  constructor(router: ShardAccess, rt: ResourceType) {
    this.#router = router;
    this.rt = rt;
    this.ready = new Promise((resolve) => (this.#resolveReady = resolve));
  }

  /** Starts the watch; `ready` settles when its initial state is in. */
  start(): this {
    this.#start();
    return this;
  }

  /** Whether the copy holds a complete state (the first initial state arrived). */
  get synced(): boolean {
    return this.#synced;
  }

  /** The object, or undefined when the copy does not have it (absent, or not synced yet). Do not modify it. */
  get(namespace: string, name: string): KObject | undefined {
    return this.#objects.get(namespace)?.get(name);
  }

  /** Every object (of `namespace` when given). Do not modify them. */
  list(namespace?: string): KObject[] {
    if (namespace !== undefined) return [...this.in(namespace).values()];
    const out: KObject[] = [];
    for (const objs of this.#objects.values()) for (const obj of objs.values()) out.push(obj);
    return out;
  }

  /** The objects of one namespace by name ('' for cluster-scoped ones): a live map, do not change it. */
  in(namespace: string): ReadonlyMap<string, KObject> {
    return this.#objects.get(namespace) ?? EMPTY;
  }

  /** Whether the namespace holds any object of the type. */
  has(namespace: string): boolean {
    return this.#objects.has(namespace);
  }

  /** The namespaces that hold objects of the type. */
  namespaces(): IterableIterator<string> {
    return this.#objects.keys();
  }

  get size(): number {
    return this.#size;
  }

  /** Calls `listener` after every change applied (RESYNC: the whole copy was replaced). Returns the unsubscribe. */
  onChange(listener: (change: MirrorChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  close(): void {
    this.#closed = true;
    this.#watch?.close();
    this.#watch = null;
    if (this.#restartTimer !== null) clearTimeout(this.#restartTimer);
    this.#restartTimer = null;
  }

  #start(): void {
    if (this.#closed) return;
    this.#buffer = '';
    this.#decoder = new StringDecoder('utf8');
    this.#staging = new Map();
    try {
      this.#watch = this.#router.watch(
        { resource: this.rt.storageResource, start: { kind: 'initial', read: { kind: 'any' } }, filter: {}, encoding: 'json', bookmarks: false, initialEventsEnd: true },
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
      this.#start();
    }, RESTART_DELAY_MS);
    this.#restartTimer.unref();
  }

  #onFrames(frames: Uint8Array): void {
    const text = this.#buffer + this.#decoder.write(Buffer.from(frames.buffer, frames.byteOffset, frames.byteLength));
    const lines = text.split('\n');
    this.#buffer = lines.pop()!;
    for (const line of lines) {
      if (line === '') continue;
      let ev: { type?: unknown; object?: unknown };
      try {
        ev = JSON.parse(line) as { type?: unknown; object?: unknown };
      } catch {
        // A frame we cannot read: the copy may be wrong from here on; rebuild it.
        this.#restart();
        return;
      }
      this.#apply(ev.type, ev.object);
    }
  }

  #apply(type: unknown, object: unknown): void {
    if (typeof object !== 'object' || object === null) return;
    const obj = object as KObject;
    const meta = obj.metadata;
    if (typeof meta !== 'object' || meta === null) return;
    const namespace = meta.namespace ?? '';
    const name = meta.name ?? '';
    if (this.#staging !== null) {
      if (type === 'BOOKMARK') {
        if (meta.annotations?.[names.initialEventsEndAnnotation] !== 'true') return;
        this.#objects = this.#staging;
        this.#size = 0;
        for (const objs of this.#objects.values()) this.#size += objs.size;
        this.#staging = null;
        this.#emit({ type: 'RESYNC' });
        if (!this.#synced) {
          this.#synced = true;
          this.#resolveReady();
        }
        return;
      }
      if (type === 'ADDED' || type === 'MODIFIED') put(this.#staging, namespace, name, deepFreeze(obj));
      else if (type === 'DELETED') remove(this.#staging, namespace, name);
      return;
    }
    if (type !== 'ADDED' && type !== 'MODIFIED' && type !== 'DELETED') return;
    const old = this.get(namespace, name);
    if (type === 'DELETED') {
      if (remove(this.#objects, namespace, name)) this.#size--;
    } else if (put(this.#objects, namespace, name, deepFreeze(obj))) {
      this.#size++;
    }
    this.#emit({ type, namespace, name, object: obj, old });
  }

  #emit(change: MirrorChange): void {
    for (const l of this.#listeners) {
      try {
        l(change);
      } catch {
        // One listener's bug must not stop the mirror for the others.
      }
    }
  }
}

/** Sets an object; true when it was not there before. */
function put(map: ByNamespace, namespace: string, name: string, obj: KObject): boolean {
  let objs = map.get(namespace);
  if (objs === undefined) map.set(namespace, (objs = new Map()));
  const added = !objs.has(name);
  objs.set(name, obj);
  return added;
}

/** Removes an object (and its namespace's map once empty); true when it was there. */
function remove(map: ByNamespace, namespace: string, name: string): boolean {
  const objs = map.get(namespace);
  if (objs === undefined || !objs.delete(name)) return false;
  if (objs.size === 0) map.delete(namespace);
  return true;
}

function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k]);
  }
  return v;
}
