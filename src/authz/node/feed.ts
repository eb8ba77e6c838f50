/**
 * A list-then-watch of one stored resource through the serving thread's
 * shard router: the current objects arrive as ADDED events, then every
 * change. The authorizers that keep state from the store (the node graph)
 * build it from this, so a request never reads the store.
 *
 * When the watch ends (shard reload, compaction) the listener gets `reset`
 * (drop what you hold for this resource) and the feed starts over after a
 * short delay, replaying the current state.
 */
import type { GenericStore } from '../../registry/generic-store.ts';
import type { ResourceType } from '../../registry/resource-type.ts';
import type { KObject } from '../../registry/object.ts';

export type FeedEvent = { readonly type: 'ADDED' | 'MODIFIED' | 'DELETED'; readonly object: KObject } | { readonly type: 'reset' };

const RESTART_DELAY_MS = 1000;

export class ListWatchFeed {
  readonly #store: GenericStore;
  readonly #rt: ResourceType;
  readonly #listener: (ev: FeedEvent) => void;
  #watch: { close(): void } | null = null;
  #timer: NodeJS.Timeout | null = null;
  #buffer = '';
  #closed = false;

  constructor(store: GenericStore, rt: ResourceType, listener: (ev: FeedEvent) => void) {
    this.#store = store;
    this.#rt = rt;
    this.#listener = listener;
  }

  start(): void {
    if (this.#closed) return;
    this.#buffer = '';
    try {
      this.#watch = this.#store.router.watch(
        { resource: this.#rt.storageResource, start: { kind: 'initial', read: { kind: 'latest' } }, filter: {}, encoding: 'json', bookmarks: false, initialEventsEnd: false },
        { onFrames: (frames) => this.#onFrames(frames), onEnd: () => this.#restart() },
      );
    } catch {
      this.#restart();
    }
  }

  close(): void {
    this.#closed = true;
    this.#watch?.close();
    this.#watch = null;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }

  #restart(): void {
    this.#watch?.close();
    this.#watch = null;
    if (this.#closed || this.#timer !== null) return;
    this.#emit({ type: 'reset' });
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.start();
    }, RESTART_DELAY_MS);
    this.#timer.unref();
  }

  #onFrames(frames: Uint8Array): void {
    const text = this.#buffer + Buffer.from(frames.buffer, frames.byteOffset, frames.byteLength).toString('utf8');
    const lines = text.split('\n');
    this.#buffer = lines.pop()!;
    for (const line of lines) {
      if (line === '') continue;
      let ev: { type?: unknown; object?: unknown };
      try {
        ev = JSON.parse(line) as { type?: unknown; object?: unknown };
      } catch {
        // A frame we cannot read means we may have lost a change: start over.
        this.#restart();
        return;
      }
      const { type, object } = ev;
      if (type !== 'ADDED' && type !== 'MODIFIED' && type !== 'DELETED') continue;
      if (typeof object !== 'object' || object === null || typeof (object as KObject).metadata !== 'object') continue;
      this.#emit({ type, object: object as KObject });
    }
  }

  #emit(ev: FeedEvent): void {
    try {
      this.#listener(ev);
    } catch {
      // A bug in the listener must not stop the feed.
    }
  }
}
