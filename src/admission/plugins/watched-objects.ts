/**
 * WatchedObjects keeps every object of one resource type in this serving
 * thread's memory, fed by one watch on the thread's shard router: the
 * initial state, then every change (the pattern of src/authz/rbac/index.ts).
 * For plugins that read a type on every request of a hot path (Priority
 * reads every PriorityClass on every pod create): no store read, no thread
 * hop per request.
 *
 * Started on first use, not at construction: the chain (and so the plugin)
 * is built before the thread's store exists. A watch that ends is started
 * again from a fresh initial state; until that state is complete the old one
 * keeps answering.
 */
import { StringDecoder } from 'node:string_decoder';
import type { GenericStore } from '../../registry/generic-store.ts';
import type { ResourceType } from '../../registry/resource-type.ts';
import type { KObject } from '../../registry/object.ts';
import { names } from '../../naming/index.ts';

const RESTART_DELAY_MS = 1000;

export class WatchedObjects {
  readonly #rt: ResourceType;
  readonly #store: () => GenericStore;
  #objects = new Map<string, KObject>();
  #staging: Map<string, KObject> | null = null;
  #watch: { close(): void } | null = null;
  #decoder = new StringDecoder('utf8');
  #buffer = '';
  #restartTimer: NodeJS.Timeout | null = null;
  #started = false;
  #closed = false;
  #ready: Promise<void> | null = null;
  #resolveReady: (() => void) | null = null;
  /** Bumped on every change: a caller may cache what it derives from the objects until it moves. */
  generation = 0;

  constructor(rt: ResourceType, store: () => GenericStore) {
    this.#rt = rt;
    this.#store = store;
  }

  /** Resolves once the initial state is in (starting the watch on the first call). */
  ready(): Promise<void> {
    if (this.#ready === null) {
      this.#ready = new Promise((resolve) => (this.#resolveReady = resolve));
      this.#start();
    }
    return this.#ready;
  }

  /** Whether the initial state is in (callers then skip the promise). */
  get synced(): boolean {
    return this.#started && this.#resolveReady === null;
  }

  get(namespace: string, name: string): KObject | undefined {
    return this.#objects.get(`${namespace}/${name}`);
  }

  values(): IterableIterator<KObject> {
    return this.#objects.values();
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
    this.#started = true;
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
    if (typeof object !== 'object' || object === null || typeof object.metadata !== 'object' || object.metadata === null) return;
    const meta = object.metadata;
    const k = `${meta.namespace ?? ''}/${meta.name ?? ''}`;
    if (this.#staging !== null) {
      if (type === 'BOOKMARK') {
        if (meta.annotations?.[names.initialEventsEndAnnotation] !== 'true') return;
        this.#objects = this.#staging;
        this.#staging = null;
        this.generation++;
        const resolve = this.#resolveReady;
        this.#resolveReady = null;
        resolve?.();
        return;
      }
      if (type === 'ADDED' || type === 'MODIFIED') this.#staging.set(k, object);
      else if (type === 'DELETED') this.#staging.delete(k);
      return;
    }
    if (type === 'ADDED' || type === 'MODIFIED') this.#objects.set(k, object);
    else if (type === 'DELETED') this.#objects.delete(k);
    else return;
    this.generation++;
  }
}
