/**
 * A watch of every CustomResourceDefinition through one thread's shard
 * router: the current definitions first (synthetic ADDED events), then
 * changes. When the watch ends (a shard restart that lost its history, a
 * store failure) it starts again from the current state after a pause, and
 * the listener gets the whole set again (`sync` with the definitions that
 * exist, so it can drop the ones that went meanwhile).
 */
import type { ShardAccess } from '../../shards/shard-access.ts';
import type { ResourceType } from '../registry/resource-type.ts';
import type { KObject } from '../registry/object.ts';
import { names } from '../naming/index.ts';

export interface CrdListener {
  /** A definition was added or changed (`deleted` false) or is gone (`deleted` true). */
  onChange(crd: KObject, deleted: boolean): void;
  /** After a (re)start: these are all the definitions there are now. */
  onSync(names: ReadonlySet<string>): void;
}

const RESTART_DELAY_MS = 1000;

export class CrdWatch {
  readonly #router: ShardAccess;
  readonly #rt: ResourceType;
  readonly #listener: CrdListener;
  #watch: { close(): void } | null = null;
  #timer: NodeJS.Timeout | null = null;
  #closed = false;
  #buffer = '';
  #initial: Set<string> | null = null;
  #synced: (() => void) | null = null;

  constructor(router: ShardAccess, crdType: ResourceType, listener: CrdListener) {
    this.#router = router;
    this.#rt = crdType;
    this.#listener = listener;
  }

  /** Starts watching; resolves once the definitions that exist now were delivered (or the first attempt failed). */
  start(): Promise<void> {
    return new Promise((resolve) => {
      this.#synced = resolve;
      this.#begin();
    });
  }

  #begin(): void {
    if (this.#closed) return;
    this.#buffer = '';
    this.#initial = new Set();
    try {
      this.#watch = this.#router.watch(
        { resource: this.#rt.storageResource, start: { kind: 'initial', read: { kind: 'latest' } }, filter: {}, encoding: 'json', bookmarks: true, initialEventsEnd: true },
        { onFrames: (frames) => this.#onFrames(frames), onEnd: () => this.#restart() },
      );
    } catch {
      this.#restart();
    }
  }

  #restart(): void {
    this.#watch?.close();
    this.#watch = null;
    this.#done();
    if (this.#closed || this.#timer !== null) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#begin();
    }, RESTART_DELAY_MS);
    this.#timer.unref();
  }

  #done(): void {
    const s = this.#synced;
    this.#synced = null;
    s?.();
  }

  #onFrames(frames: Uint8Array): void {
    const text = this.#buffer + Buffer.from(frames.buffer, frames.byteOffset, frames.byteLength).toString('utf8');
    const lines = text.split('\n');
    this.#buffer = lines.pop()!;
    for (const line of lines) {
      if (line === '') continue;
      let ev: { type?: unknown; object?: KObject };
      try {
        ev = JSON.parse(line) as { type?: unknown; object?: KObject };
      } catch {
        continue;
      }
      const object = ev.object;
      if (object === undefined || typeof object !== 'object' || object === null) continue;
      if (ev.type === 'BOOKMARK') {
        const annotations = object.metadata?.annotations ?? {};
        if (this.#initial !== null && annotations[names.initialEventsEndAnnotation] === 'true') {
          const names = this.#initial;
          this.#initial = null;
          this.#safe(() => this.#listener.onSync(names));
          this.#done();
        }
        continue;
      }
      if (ev.type !== 'ADDED' && ev.type !== 'MODIFIED' && ev.type !== 'DELETED') continue;
      // Stored definitions are v1 objects (v1 owns the storage).
      const crd = object;
      if (this.#initial !== null && ev.type === 'ADDED') this.#initial.add(crd.metadata.name ?? '');
      this.#safe(() => this.#listener.onChange(crd, ev.type === 'DELETED'));
    }
  }

  #safe(f: () => void): void {
    try {
      f();
    } catch {
      // One definition that cannot be served must not stop the feed for the others.
    }
  }

  close(): void {
    this.#closed = true;
    this.#watch?.close();
    this.#watch = null;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    this.#done();
  }
}
