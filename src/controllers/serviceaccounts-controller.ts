/**
 * ServiceAccountsController: a `default` ServiceAccount in every active
 * namespace, as the original's serviceaccounts controller keeps one (spec
 * 2.8). The ServiceAccount admission plugin gives pods without an account
 * `default` and rejects pods whose account is missing, so without this a
 * pod could not be created in a new namespace.
 *
 * It watches namespaces (an active one gets its account) and service
 * accounts (a deleted `default` in an active namespace comes back). A create
 * that finds the account there (409) is success, so two servers on one etcd
 * may both run it without harm and without a lease.
 *
 * Minimal on purpose: issue 15 (the built-in controllers) owns the full one.
 */
import { StringDecoder } from 'node:string_decoder';
import type { GenericStore } from '../registry/generic-store.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { ResourceType } from '../registry/resource-type.ts';
import type { KObject } from '../registry/object.ts';
import type { UserInfo } from '../server/context.ts';
import { StatusError } from '../api/status.ts';
import { names } from '../naming/index.ts';

const CONTROLLER_USER: UserInfo = {
  name: `system:serviceaccount:${names.systemNamespace}:service-account-controller`,
  groups: ['system:serviceaccounts', `system:serviceaccounts:${names.systemNamespace}`, 'system:authenticated'],
};
const DEFAULT_ACCOUNT = 'default';
const RETRY_MS = 1000;

export interface ControllerLogger {
  warn(obj: object, msg: string): void;
}

interface Feed {
  readonly rt: ResourceType;
  watch: { close(): void } | null;
  decoder: StringDecoder;
  buffer: string;
}

export class ServiceAccountsController {
  readonly #store: GenericStore;
  readonly #namespaces: ResourceType;
  readonly #accounts: ResourceType;
  readonly #log: ControllerLogger;
  readonly #feeds: Feed[] = [];
  /** Namespaces known active (deleted ones leave). */
  readonly #active = new Set<string>();
  readonly #queue = new Set<string>();
  readonly #timers = new Set<NodeJS.Timeout>();
  #running = false;
  #stopped = false;

  constructor(store: GenericStore, registry: ResourceRegistry, log: ControllerLogger) {
    this.#store = store;
    const ns = registry.lookup('', 'v1', 'namespaces');
    const sa = registry.lookup('', 'v1', 'serviceaccounts');
    if (ns === undefined || sa === undefined) throw new Error('namespaces and serviceaccounts must be served');
    this.#namespaces = ns;
    this.#accounts = sa;
    this.#log = log;
  }

  start(): void {
    for (const rt of [this.#namespaces, this.#accounts]) {
      const feed: Feed = { rt, watch: null, decoder: new StringDecoder('utf8'), buffer: '' };
      this.#feeds.push(feed);
      this.#watch(feed);
    }
  }

  stop(): void {
    this.#stopped = true;
    for (const f of this.#feeds) f.watch?.close();
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
  }

  #watch(feed: Feed): void {
    if (this.#stopped) return;
    feed.buffer = '';
    feed.decoder = new StringDecoder('utf8');
    // From the initial state: every existing namespace is checked (the accounts' initial ADDED events are ignored).
    const start = { kind: 'initial', read: { kind: 'latest' } } as const;
    try {
      feed.watch = this.#store.router.watch(
        { resource: feed.rt.storageResource, start, filter: {}, encoding: 'json', bookmarks: false, initialEventsEnd: false },
        { onFrames: (frames) => this.#onFrames(feed, frames), onEnd: () => this.#later(() => this.#watch(feed)) },
      );
    } catch {
      this.#later(() => this.#watch(feed));
    }
  }

  #later(fn: () => void): void {
    if (this.#stopped) return;
    const t = setTimeout(() => {
      this.#timers.delete(t);
      fn();
    }, RETRY_MS);
    t.unref();
    this.#timers.add(t);
  }

  #onFrames(feed: Feed, frames: Uint8Array): void {
    const text = feed.buffer + feed.decoder.write(Buffer.from(frames.buffer, frames.byteOffset, frames.byteLength));
    const lines = text.split('\n');
    feed.buffer = lines.pop()!;
    for (const line of lines) {
      if (line === '') continue;
      let ev: { type?: string; object?: KObject };
      try {
        ev = JSON.parse(line) as { type?: string; object?: KObject };
      } catch {
        continue;
      }
      const meta = ev.object?.metadata;
      if (meta === undefined || typeof meta.name !== 'string') continue;
      if (feed.rt === this.#namespaces) {
        if (ev.type === 'DELETED' || meta.deletionTimestamp) {
          this.#active.delete(meta.name);
        } else if (ev.type === 'ADDED' || ev.type === 'MODIFIED') {
          if (!this.#active.has(meta.name)) {
            this.#active.add(meta.name);
            this.#enqueue(meta.name);
          }
        }
      } else if (ev.type === 'DELETED' && meta.name === DEFAULT_ACCOUNT && typeof meta.namespace === 'string' && this.#active.has(meta.namespace)) {
        this.#enqueue(meta.namespace);
      }
    }
  }

  #enqueue(namespace: string): void {
    this.#queue.add(namespace);
    void this.#drain();
  }

  async #drain(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    try {
      while (this.#queue.size > 0 && !this.#stopped) {
        const ns = this.#queue.values().next().value!;
        this.#queue.delete(ns);
        if (!this.#active.has(ns)) continue;
        try {
          await this.#ensure(ns);
        } catch (err) {
          this.#log.warn({ namespace: ns, err: err instanceof Error ? err.message : String(err) }, 'creating the default service account failed; retrying');
          this.#later(() => this.#enqueue(ns));
        }
      }
    } finally {
      this.#running = false;
    }
  }

  async #ensure(namespace: string): Promise<void> {
    const existing = await this.#store.getObject(this.#accounts, namespace, DEFAULT_ACCOUNT, { kind: 'any' });
    if (existing !== null) return;
    try {
      await this.#store.create(
        this.#accounts,
        namespace,
        { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: DEFAULT_ACCOUNT, namespace } },
        { user: CONTROLLER_USER, dryRun: false },
      );
    } catch (err) {
      // 409: someone (another server) made it; 403/404: the namespace is going or gone.
      if (err instanceof StatusError && (err.code === 409 || err.code === 403 || err.code === 404)) return;
      throw err;
    }
  }
}
