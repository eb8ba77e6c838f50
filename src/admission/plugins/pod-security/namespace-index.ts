/**
 * The labels of every namespace, kept by one list-then-watch per serving
 * thread, so that a pod write reads its namespace's policy without a thread
 * hop. This is the original's arrangement (a namespace informer's lister,
 * with a live GET only when the lister misses): a namespace the watch has
 * not delivered yet (created a moment ago), or any read while the index is
 * (re)starting, falls back to a watch-cache read. Like the informer, the
 * index may trail a label change by the watch's latency.
 *
 * Memory: one labels object per namespace. A lost watch clears the index
 * and starts over after a second; reads fall back meanwhile.
 */
import type { GenericStore } from '../../../registry/generic-store.ts';
import type { KObject } from '../../../registry/object.ts';
import type { ResourceType } from '../../../registry/resource-type.ts';

type Labels = Readonly<Record<string, string>>;

const RESTART_DELAY_MS = 1000;
const NO_LABELS: Labels = Object.freeze({});

export class NamespaceLabelIndex {
  readonly #store: () => GenericStore;
  readonly #rt: ResourceType;
  readonly #fallback: (name: string) => Promise<Labels | null>;
  readonly #labels = new Map<string, Labels>();
  #ready = false;
  #started = false;
  #closed = false;
  #watch: { close(): void } | null = null;
  #buffer = '';
  #restartTimer: NodeJS.Timeout | null = null;
  /** Bumped on every (re)start: frames of an older watch are ignored. */
  #generation = 0;

  constructor(store: () => GenericStore, namespaces: ResourceType, fallback: (name: string) => Promise<Labels | null>) {
    this.#store = store;
    this.#rt = namespaces;
    this.#fallback = fallback;
  }

  /** Whether the index answers reads (tests and metrics). */
  get ready(): boolean {
    return this.#ready;
  }

  /** The namespace's labels, or null when it does not exist. */
  labels(name: string): Promise<Labels | null> | Labels {
    if (!this.#started) {
      this.#started = true;
      void this.#start();
    }
    if (this.#ready) {
      const l = this.#labels.get(name);
      if (l !== undefined) return l;
    }
    return this.#fallback(name);
  }

  close(): void {
    this.#closed = true;
    this.#ready = false;
    this.#watch?.close();
    this.#watch = null;
    if (this.#restartTimer !== null) clearTimeout(this.#restartTimer);
    this.#restartTimer = null;
    this.#labels.clear();
  }

  async #start(): Promise<void> {
    if (this.#closed) return;
    const generation = ++this.#generation;
    this.#buffer = '';
    try {
      const store = this.#store();
      const reply = await store.list(this.#rt, { kind: 'any' }, {}, {});
      if (this.#closed || generation !== this.#generation) return;
      const items = reply.count === 0 ? [] : (JSON.parse(`[${Buffer.from(reply.items).toString('utf8')}]`) as KObject[]);
      this.#labels.clear();
      for (const ns of items) this.#set(ns);
      this.#watch = store.router.watch(
        { resource: this.#rt.storageResource, start: { kind: 'from', revision: reply.revision }, filter: {}, encoding: 'json', bookmarks: false, initialEventsEnd: false },
        {
          onFrames: (frames) => {
            if (generation === this.#generation) this.#onFrames(frames);
          },
          onEnd: () => {
            if (generation === this.#generation) this.#restart();
          },
        },
      );
      this.#ready = true;
    } catch {
      this.#restart();
    }
  }

  #restart(): void {
    this.#ready = false;
    this.#labels.clear();
    this.#watch?.close();
    this.#watch = null;
    this.#generation++;
    if (this.#closed || this.#restartTimer !== null) return;
    this.#restartTimer = setTimeout(() => {
      this.#restartTimer = null;
      void this.#start();
    }, RESTART_DELAY_MS);
    this.#restartTimer.unref();
  }

  #set(ns: KObject): void {
    const name = ns.metadata?.name;
    if (typeof name !== 'string') return;
    const labels = ns.metadata.labels;
    this.#labels.set(name, labels !== undefined && labels !== null && typeof labels === 'object' ? labels : NO_LABELS);
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
        // A frame we cannot read may have been a label change: stop trusting the index.
        this.#restart();
        return;
      }
      const { type, object } = ev;
      if (object === undefined || object === null || typeof object !== 'object') continue;
      if (type === 'ADDED' || type === 'MODIFIED') this.#set(object);
      else if (type === 'DELETED' && typeof object.metadata?.name === 'string') this.#labels.delete(object.metadata.name);
    }
  }
}
