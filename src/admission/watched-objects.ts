/**
 * WatchedObjects: every object of one type, by namespace, in this thread's
 * memory — a ResourceMirror (src/registry/resource-mirror.ts: initial
 * events, then changes; rebuilt from a fresh initial list when the watch is
 * lost) started lazily. Plugins on hot paths read it synchronously:
 * LimitRanger (every pod create reads the namespace's LimitRanges) and
 * ResourceQuota (every create asks whether its namespace has a quota, which
 * must cost nothing when it has none).
 *
 * The watch starts on the first `start()`, which plugins call when the
 * thread's store exists (it is built after the chain: see plugin-table.ts).
 * Objects are shared and frozen.
 */
import type { GenericStore } from '../registry/generic-store.ts';
import type { ResourceType } from '../registry/resource-type.ts';
import type { KObject } from '../registry/object.ts';
import { ResourceMirror } from '../registry/resource-mirror.ts';

const EMPTY: ReadonlyMap<string, KObject> = new Map();

export type WatchedChange = { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: KObject; old: KObject | undefined } | { type: 'RESYNC' };

export class WatchedObjects {
  readonly #rt: ResourceType;
  readonly #store: () => GenericStore;
  #mirror: ResourceMirror | null = null;
  #closed = false;
  readonly #listeners = new Set<(change: WatchedChange) => void>();
  #resolveReady!: () => void;
  /** Settles when the first initial list is in. */
  readonly ready: Promise<void>;

  constructor(rt: ResourceType, store: () => GenericStore) {
    this.#rt = rt;
    this.#store = store;
    this.ready = new Promise((resolve) => (this.#resolveReady = resolve));
  }

  get synced(): boolean {
    return this.#mirror?.synced === true;
  }

  /** The namespace's objects (a live map: do not change it). */
  in(namespace: string): ReadonlyMap<string, KObject> {
    return this.#mirror?.in(namespace) ?? EMPTY;
  }

  /** Whether the namespace has any object of the type. */
  has(namespace: string): boolean {
    return this.#mirror?.has(namespace) ?? false;
  }

  namespaces(): IterableIterator<string> {
    return this.#mirror?.namespaces() ?? EMPTY.keys();
  }

  onChange(listener: (change: WatchedChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  start(): this {
    if (this.#mirror !== null || this.#closed) return this;
    let store: GenericStore | undefined;
    try {
      store = this.#store();
    } catch {
      store = undefined;
    }
    // No store: the thread's pipeline failed to build (or is not built yet); a later start() tries again.
    if (store === undefined) return this;
    const mirror = new ResourceMirror(store.router, this.#rt);
    this.#mirror = mirror;
    mirror.onChange((c) => {
      const change: WatchedChange = c.type === 'RESYNC' ? { type: 'RESYNC' } : { type: c.type, object: c.object, old: c.old };
      for (const l of this.#listeners) {
        try {
          l(change);
        } catch {
          // One listener's bug must not stop the index for the others.
        }
      }
    });
    void mirror.ready.then(() => this.#resolveReady());
    mirror.start();
    return this;
  }

  close(): void {
    this.#closed = true;
    this.#mirror?.close();
  }
}
