/**
 * ObjectSource gives authenticators the few objects they check a credential
 * against (service accounts, their token secrets, the pods bound tokens name,
 * bootstrap-token secrets) without a store read on the hot path:
 *
 * - `get` reads the owning shard's watch cache (read mode `any`), one batched
 *   thread hop, never the store;
 * - `onChange` tells of every later change of a resource, from one shared
 *   watch per resource and thread, so decision caches drop what a change
 *   revokes (a deleted service account, a deleted or replaced pod, a rotated
 *   secret) instead of re-reading per request. A `reset` says the watch was
 *   lost and restarted: events may have been missed, drop everything.
 */
import type { GenericStore } from '../registry/generic-store.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { ResourceType } from '../registry/resource-type.ts';
import type { KObject } from '../registry/object.ts';

/** The core kinds authentication looks at. */
export type AuthnResource = 'serviceaccounts' | 'secrets' | 'pods';

export type ObjectChange =
  | { readonly type: 'ADDED' | 'MODIFIED' | 'DELETED'; readonly namespace: string; readonly name: string; readonly uid: string; readonly object: KObject }
  | { readonly type: 'reset' };

export interface ObjectSource {
  /** The object as the watch cache has it now, or null. */
  get(resource: AuthnResource, namespace: string, name: string): Promise<KObject | null>;
  /** Calls `listener` for every change from now on; returns the unsubscribe. */
  onChange(resource: AuthnResource, listener: (change: ObjectChange) => void): () => void;
  /** Ends the watches. */
  close(): void;
}

const RESTART_DELAY_MS = 1000;

interface ResourceFeed {
  readonly listeners: Set<(change: ObjectChange) => void>;
  watch: { close(): void } | null;
  buffer: string;
  restartTimer: NodeJS.Timeout | null;
}

/** The ObjectSource of one serving thread, over its GenericStore (and so its shard router). */
export class WatchCacheObjectSource implements ObjectSource {
  readonly #store: GenericStore;
  readonly #types: ReadonlyMap<AuthnResource, ResourceType>;
  readonly #feeds = new Map<AuthnResource, ResourceFeed>();
  #closed = false;

  constructor(store: GenericStore, registry: ResourceRegistry) {
    this.#store = store;
    const types = new Map<AuthnResource, ResourceType>();
    for (const r of ['serviceaccounts', 'secrets', 'pods'] as const) {
      const rt = registry.lookup('', 'v1', r);
      if (rt !== undefined) types.set(r, rt);
    }
    this.#types = types;
  }

  async get(resource: AuthnResource, namespace: string, name: string): Promise<KObject | null> {
    const rt = this.#types.get(resource);
    if (rt === undefined) return null;
    const found = await this.#store.getObject(rt, namespace, name, { kind: 'any' });
    return found === null ? null : found.obj;
  }

  onChange(resource: AuthnResource, listener: (change: ObjectChange) => void): () => void {
    let feed = this.#feeds.get(resource);
    if (feed === undefined) {
      feed = { listeners: new Set(), watch: null, buffer: '', restartTimer: null };
      this.#feeds.set(resource, feed);
    }
    feed.listeners.add(listener);
    if (feed.watch === null && feed.restartTimer === null) void this.#start(resource, feed);
    return () => {
      feed.listeners.delete(listener);
    };
  }

  close(): void {
    this.#closed = true;
    for (const feed of this.#feeds.values()) {
      feed.watch?.close();
      feed.watch = null;
      if (feed.restartTimer !== null) clearTimeout(feed.restartTimer);
      feed.restartTimer = null;
    }
  }

  async #start(resource: AuthnResource, feed: ResourceFeed): Promise<void> {
    const rt = this.#types.get(resource);
    if (rt === undefined || this.#closed) return;
    feed.buffer = '';
    try {
      // Start from the cache's current revision: only changes after now matter,
      // what exists now is read by `get` when a credential needs it.
      const { revision } = await this.#store.router.get(rt.storageResource, `${rt.keyPrefix}\u0000`, { kind: 'any' });
      if (this.#closed) return;
      feed.watch = this.#store.router.watch(
        { resource: rt.storageResource, start: { kind: 'from', revision }, filter: {}, encoding: 'json', bookmarks: false, initialEventsEnd: false },
        {
          onFrames: (frames) => this.#onFrames(feed, frames),
          onEnd: () => this.#restart(resource, feed),
        },
      );
    } catch {
      this.#restart(resource, feed);
    }
  }

  #restart(resource: AuthnResource, feed: ResourceFeed): void {
    feed.watch?.close();
    feed.watch = null;
    if (this.#closed || feed.restartTimer !== null) return;
    this.#emit(feed, { type: 'reset' });
    feed.restartTimer = setTimeout(() => {
      feed.restartTimer = null;
      void this.#start(resource, feed);
    }, RESTART_DELAY_MS);
    feed.restartTimer.unref();
  }

  #onFrames(feed: ResourceFeed, frames: Uint8Array): void {
    const text = feed.buffer + Buffer.from(frames.buffer, frames.byteOffset, frames.byteLength).toString('utf8');
    const lines = text.split('\n');
    feed.buffer = lines.pop()!;
    for (const line of lines) {
      if (line === '') continue;
      let ev: { type?: unknown; object?: KObject };
      try {
        ev = JSON.parse(line) as { type?: unknown; object?: KObject };
      } catch {
        this.#emit(feed, { type: 'reset' });
        continue;
      }
      const { type, object } = ev;
      if ((type !== 'ADDED' && type !== 'MODIFIED' && type !== 'DELETED') || object === undefined) continue;
      const meta = object.metadata;
      this.#emit(feed, { type, namespace: meta.namespace ?? '', name: meta.name ?? '', uid: meta.uid ?? '', object });
    }
  }

  #emit(feed: ResourceFeed, change: ObjectChange): void {
    for (const l of feed.listeners) {
      try {
        l(change);
      } catch {
        // A listener's bug must not stop the feed for the others.
      }
    }
  }
}
