/**
 * NamespaceController finishes namespace deletion, as the original's
 * namespace controller does: once a namespace has a deletionTimestamp it
 * deletes every namespaced object in it, waits until none is left (objects
 * with finalizers go when their finalizers do), then removes the `orch`
 * finalizer through namespaces/<name>/finalize, and the namespace goes.
 *
 * It runs in the API server itself so a single binary behaves like a cluster
 * (the issue asks for it); it acts with the server's own identity.
 */
import type { GenericStore } from '../registry/generic-store.ts';
import { parseObject } from '../registry/generic-store.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { ResourceType } from '../registry/resource-type.ts';
import { isPlainObject, type KObject } from '../registry/object.ts';
import type { UserInfo } from '../server/context.ts';
import { StatusError } from '../api/status.ts';
import { names } from '../naming/index.ts';

export const NAMESPACE_FINALIZER = names.namespaceFinalizer;
const CONTROLLER_USER: UserInfo = { name: `system:serviceaccount:${names.systemNamespace}:namespace-controller`, groups: ['system:serviceaccounts', 'system:authenticated'] };

export interface Logger {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

export class NamespaceController {
  readonly #store: GenericStore;
  readonly #registry: ResourceRegistry;
  readonly #namespaces: ResourceType;
  readonly #log: Logger;
  readonly #queue = new Set<string>();
  readonly #retryTimers = new Map<string, NodeJS.Timeout>();
  #watch: { close(): void } | null = null;
  #running = false;
  #stopped = false;
  #buffer = '';

  constructor(store: GenericStore, registry: ResourceRegistry, log: Logger) {
    this.#store = store;
    this.#registry = registry;
    const ns = registry.lookup('', 'v1', 'namespaces');
    if (ns === undefined) throw new Error('namespaces are not served');
    this.#namespaces = ns;
    this.#log = log;
  }

  start(): void {
    this.#watch = this.#store.router.watch(
      { resource: this.#namespaces.storageResource, start: { kind: 'initial', read: { kind: 'latest' } }, filter: {}, encoding: 'json', bookmarks: false, initialEventsEnd: false },
      {
        onFrames: (frames) => this.#onFrames(frames),
        onEnd: () => {
          // The watch ended (shard reload, compaction): start over from a fresh state.
          if (!this.#stopped) setTimeout(() => this.#restart(), 1000).unref();
        },
      },
    );
  }

  #restart(): void {
    this.#watch?.close();
    this.#buffer = '';
    this.start();
  }

  #onFrames(frames: Uint8Array): void {
    const text = this.#buffer + Buffer.from(frames).toString('utf8');
    const lines = text.split('\n');
    this.#buffer = lines.pop()!;
    for (const line of lines) {
      if (line === '') continue;
      const ev = JSON.parse(line) as { type: string; object: KObject };
      if (ev.type === 'DELETED' || ev.type === 'BOOKMARK') continue;
      if (ev.object.metadata.deletionTimestamp) this.enqueue(ev.object.metadata.name!);
    }
  }

  enqueue(name: string): void {
    this.#queue.add(name);
    void this.#drain();
  }

  async #drain(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    try {
      while (this.#queue.size > 0 && !this.#stopped) {
        const name = this.#queue.values().next().value!;
        this.#queue.delete(name);
        try {
          const done = await this.#sync(name);
          if (!done) this.#retry(name);
        } catch (err) {
          this.#log.warn({ namespace: name, err: err instanceof Error ? err.message : String(err) }, 'namespace cleanup failed; retrying');
          this.#retry(name);
        }
      }
    } finally {
      this.#running = false;
    }
  }

  #retry(name: string): void {
    if (this.#stopped || this.#retryTimers.has(name)) return;
    const t = setTimeout(() => {
      this.#retryTimers.delete(name);
      this.enqueue(name);
    }, 1000);
    t.unref();
    this.#retryTimers.set(name, t);
  }

  /** One pass over a terminating namespace; true when it is finished. */
  async #sync(name: string): Promise<boolean> {
    const cur = await this.#store.getObject(this.#namespaces, '', name, { kind: 'latest' });
    if (cur === null || !cur.obj.metadata.deletionTimestamp) return true;
    let remaining = 0;
    for (const rt of this.#registry.storedTypes()) {
      if (!rt.namespaced) continue;
      await this.#store.deleteCollection(rt, name, {}, { user: CONTROLLER_USER, dryRun: false });
      const left = await this.#store.list(rt, { kind: 'latest' }, { namespace: name }, { limit: 1 });
      remaining += left.count;
    }
    if (remaining > 0) return false;
    await this.#store.guaranteedUpdate(this.#namespaces, '', name, { user: CONTROLLER_USER, dryRun: false }, 'finalize', (ns) => {
      if (ns === null) throw new StatusError(404, 'NotFound', `namespaces "${name}" not found`);
      const spec = isPlainObject(ns['spec']) ? ns['spec'] : {};
      const finalizers = Array.isArray(spec['finalizers']) ? (spec['finalizers'] as string[]).filter((f) => f !== NAMESPACE_FINALIZER) : [];
      return { update: { ...ns, spec: { ...spec, finalizers } } };
    }).catch((err: unknown) => {
      if (err instanceof StatusError && err.code === 404) return null;
      throw err;
    });
    this.#log.info({ namespace: name }, 'namespace content deleted and finalized');
    return true;
  }

  stop(): void {
    this.#stopped = true;
    this.#watch?.close();
    for (const t of this.#retryTimers.values()) clearTimeout(t);
  }
}

/** Creates the namespaces every cluster starts with, if absent. */
export async function ensureSystemNamespaces(store: GenericStore, registry: ResourceRegistry, names: readonly string[]): Promise<void> {
  const rt = registry.lookup('', 'v1', 'namespaces')!;
  for (const name of names) {
    const existing = await store.getObject(rt, '', name, { kind: 'latest' });
    if (existing !== null) continue;
    try {
      await store.create(rt, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, { user: CONTROLLER_USER, dryRun: false });
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 409)) throw err;
    }
  }
}

export { parseObject };
