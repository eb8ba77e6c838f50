/**
 * A watch-fed local copy of one resource (the original's shared informer and
 * lister): a list at the latest revision, then a watch from that revision;
 * when the watch ends (compaction, shard restart) it lists again and reports
 * the difference (objects gone in the gap come as DELETED). Controllers read
 * this copy instead of the store, and act on its events.
 */
import type { GenericStore } from '../registry/generic-store.ts';
import type { ResourceType } from '../registry/resource-type.ts';
import type { KObject } from '../registry/object.ts';
import type { Filter } from '../../shards/protocol.ts';

export type InformerEvent = 'ADDED' | 'MODIFIED' | 'DELETED';
export type InformerHandler = (type: InformerEvent, obj: KObject, old: KObject | undefined) => void;

const RELIST_DELAY_MS = 1000;

export function objectKeyOf(obj: KObject): string {
  const m = obj.metadata;
  return m.namespace ? `${m.namespace}/${m.name ?? ''}` : (m.name ?? '');
}

export class Informer {
  readonly #store: GenericStore;
  readonly #rt: ResourceType;
  readonly #filter: Filter;
  readonly #items = new Map<string, KObject>();
  readonly #handlers: InformerHandler[] = [];
  #watch: { close(): void } | null = null;
  #buffer = '';
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  #synced = false;

  constructor(store: GenericStore, rt: ResourceType, filter: Filter = {}) {
    this.#store = store;
    this.#rt = rt;
    this.#filter = filter;
  }

  get resourceType(): ResourceType {
    return this.#rt;
  }

  get hasSynced(): boolean {
    return this.#synced;
  }

  onEvent(handler: InformerHandler): void {
    this.#handlers.push(handler);
  }

  get(namespace: string, name: string): KObject | undefined {
    return this.#items.get(namespace ? `${namespace}/${name}` : name);
  }

  list(namespace?: string): KObject[] {
    const out: KObject[] = [];
    for (const o of this.#items.values()) if (namespace === undefined || o.metadata.namespace === namespace) out.push(o);
    return out;
  }

  /** Resolves once the first list is in (a failed list is retried in the background). */
  async start(): Promise<void> {
    this.#stopped = false;
    await this.#relist();
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#watch?.close();
    this.#watch = null;
    // A later start() begins afresh: every object comes as ADDED again.
    this.#items.clear();
    this.#synced = false;
  }

  #emit(type: InformerEvent, obj: KObject, old: KObject | undefined): void {
    for (const h of this.#handlers) {
      try {
        h(type, obj, old);
      } catch {
        // A handler's fault must not stop the feed (handlers only enqueue).
      }
    }
  }

  #later(): void {
    if (this.#stopped) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#relist(), RELIST_DELAY_MS);
    this.#timer.unref();
  }

  #served(obj: KObject): KObject {
    return this.#rt.conversion === undefined ? obj : this.#rt.conversion.fromStorage(obj);
  }

  async #relist(): Promise<void> {
    if (this.#stopped) return;
    this.#watch?.close();
    this.#watch = null;
    let reply;
    try {
      reply = await this.#store.router.list(this.#rt.storageResource, { kind: 'latest' }, this.#filter, {});
    } catch {
      this.#later();
      return;
    }
    if (this.#stopped) return;
    const items = reply.count === 0 ? [] : (JSON.parse(`[${Buffer.from(reply.items).toString('utf8')}]`) as KObject[]);
    const seen = new Set<string>();
    for (const raw of items) {
      const obj = this.#served(raw);
      const key = objectKeyOf(obj);
      seen.add(key);
      const old = this.#items.get(key);
      this.#items.set(key, obj);
      if (old === undefined) this.#emit('ADDED', obj, undefined);
      else if (old.metadata.resourceVersion !== obj.metadata.resourceVersion) this.#emit('MODIFIED', obj, old);
    }
    for (const [key, old] of [...this.#items]) {
      if (!seen.has(key)) {
        this.#items.delete(key);
        this.#emit('DELETED', old, old);
      }
    }
    this.#synced = true;
    this.#buffer = '';
    try {
      this.#watch = this.#store.router.watch(
        { resource: this.#rt.storageResource, start: { kind: 'from', revision: reply.revision }, filter: this.#filter, encoding: 'json', bookmarks: false, initialEventsEnd: false },
        { onFrames: (frames) => this.#onFrames(frames), onEnd: () => this.#later() },
      );
    } catch {
      this.#later();
    }
  }

  #onFrames(frames: Uint8Array): void {
    const text = this.#buffer + Buffer.from(frames.buffer, frames.byteOffset, frames.byteLength).toString('utf8');
    const lines = text.split('\n');
    this.#buffer = lines.pop()!;
    for (const line of lines) {
      if (line === '') continue;
      let ev: { type?: string; object?: KObject };
      try {
        ev = JSON.parse(line) as { type?: string; object?: KObject };
      } catch {
        continue;
      }
      if (ev.object?.metadata === undefined || typeof ev.object.metadata.name !== 'string') continue;
      const obj = this.#served(ev.object);
      const key = objectKeyOf(obj);
      const old = this.#items.get(key);
      if (ev.type === 'DELETED') {
        this.#items.delete(key);
        this.#emit('DELETED', obj, old);
      } else if (ev.type === 'ADDED' || ev.type === 'MODIFIED') {
        this.#items.set(key, obj);
        this.#emit(old === undefined ? 'ADDED' : 'MODIFIED', obj, old);
      }
    }
  }
}
