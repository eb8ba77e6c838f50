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

export type MirrorChange = { readonly type: 'ADDED' | 'MODIFIED' | 'DELETED'; readonly namespace: string; readonly name: string; readonly object: KObject } | { readonly type: 'RESYNC' };

export class ResourceMirror {
  readonly rt: ResourceType;
  readonly #router: ShardAccess;
  /** `namespace/name` → object (frozen: shared by every reader). */
  #objects = new Map<string, KObject>();
  /** Objects of a fresh initial state being received; null once it is complete. */
  #staging: Map<string, KObject> | null = null;
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
    return this.#objects.get(`${namespace}/${name}`);
  }

  /** Every object (of `namespace` when given). Do not modify them. */
  list(namespace?: string): KObject[] {
    const out: KObject[] = [];
    for (const obj of this.#objects.values()) {
      if (namespace === undefined || (obj.metadata.namespace ?? '') === namespace) out.push(obj);
    }
    return out;
  }

  get size(): number {
    return this.#objects.size;
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
    const key = `${meta.namespace ?? ''}/${meta.name ?? ''}`;
    if (this.#staging !== null) {
      if (type === 'BOOKMARK') {
        if (meta.annotations?.[names.initialEventsEndAnnotation] !== 'true') return;
        this.#objects = this.#staging;
        this.#staging = null;
        this.#emit({ type: 'RESYNC' });
        if (!this.#synced) {
          this.#synced = true;
          this.#resolveReady();
        }
        return;
      }
      if (type === 'ADDED' || type === 'MODIFIED') this.#staging.set(key, deepFreeze(obj));
      else if (type === 'DELETED') this.#staging.delete(key);
      return;
    }
    if (type === 'DELETED') this.#objects.delete(key);
    else if (type === 'ADDED' || type === 'MODIFIED') this.#objects.set(key, deepFreeze(obj));
    else return;
    this.#emit({ type, namespace: meta.namespace ?? '', name: meta.name ?? '', object: obj });
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

function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k]);
  }
  return v;
}
