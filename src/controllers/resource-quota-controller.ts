/**
 * ResourceQuotaController keeps every quota's status as the original's
 * resource quota controller does: status.hard = spec.hard, and status.used
 * recomputed from the objects in the namespace (pods by scope and compute
 * resources, services, claims, object counts), written with compare-and-swap
 * on the quota's resourceVersion so it never overwrites a charge made by
 * admission in between (on a conflict it reads again and recomputes).
 *
 * A quota is recomputed when it is created, when its spec.hard changes,
 * when an object it tracks is deleted (or a pod ends: its compute usage is
 * released), and every `resyncMs` (the original's --resource-quota-sync-period,
 * 5m). It runs once per process, in the API server itself, as the
 * namespace controller does.
 */
import { cloneJson } from '../patch/json-value.ts';
import { StringDecoder } from 'node:string_decoder';
import type { GenericStore } from '../registry/generic-store.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { ResourceType } from '../registry/resource-type.ts';
import type { KObject } from '../registry/object.ts';
import { obj } from '../registry/strategies/util.ts';
import { StatusError } from '../api/status.ts';
import { WatchedObjects } from '../admission/watched-objects.ts';
import { evaluatorFor, ignoredByQuota, scopeSelectorsOf, type Evaluator } from '../admission/plugins/resource-quota/evaluators.ts';
import { add, equals, mask, resourceListFrom, resourceListJson, type ResourceList } from '../admission/plugins/resource-quota/resource-list.ts';
import { quantityOf } from '../registry/validation/quantity-format.ts';

export interface Logger {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

const RETRY_MS = 500;
const RESTART_DELAY_MS = 1000;
export const DEFAULT_QUOTA_RESYNC_MS = 5 * 60_000;

interface Tracked {
  readonly rt: ResourceType;
  readonly evaluator: Evaluator;
}

/** The usage of the namespace's objects that a quota tracks; exported for tests. */
export function calculateUsage(quota: KObject, types: readonly Tracked[], objects: (rt: ResourceType) => Promise<KObject[]>, now: Date): Promise<ResourceList> {
  return (async () => {
    const hardNames = Object.keys(obj(obj(quota['spec']))?.['hard'] ?? {});
    const selectors = scopeSelectorsOf(quota);
    let usage: ResourceList = new Map();
    const matched = new Set<string>();
    for (const t of types) {
      const names = t.evaluator.matchingResources(hardNames);
      if (names.length === 0) continue;
      for (const n of names) matched.add(n);
      let used: ResourceList = new Map(names.map((n) => [n, quantityOf(0)]));
      for (const o of await objects(t.rt)) {
        if (!selectors.every((s) => t.evaluator.matchesScope(s, o))) continue;
        used = add(used, mask(t.evaluator.usage(o, now), names));
      }
      usage = add(usage, used);
    }
    return mask(usage, matched);
  })();
}

export class ResourceQuotaController {
  readonly #store: GenericStore;
  readonly #registry: ResourceRegistry;
  readonly #rt: ResourceType;
  readonly #log: Logger;
  readonly #resyncMs: number;
  readonly #quotas: WatchedObjects;
  readonly #queue = new Set<string>();
  readonly #retryTimers = new Map<string, NodeJS.Timeout>();
  readonly #feeds = new Map<string, { watch: { close(): void } | null; timer: NodeJS.Timeout | null }>();
  #resyncTimer: NodeJS.Timeout | null = null;
  #running = false;
  #stopped = false;

  constructor(store: GenericStore, registry: ResourceRegistry, log: Logger, resyncMs = DEFAULT_QUOTA_RESYNC_MS) {
    this.#store = store;
    this.#registry = registry;
    const rt = registry.lookup('', 'v1', 'resourcequotas');
    if (rt === undefined) throw new Error('resourcequotas are not served');
    this.#rt = rt;
    this.#log = log;
    this.#resyncMs = resyncMs;
    this.#quotas = new WatchedObjects(rt, () => store);
  }

  #typesCache: Tracked[] | null = null;

  /** The namespaced types quota can count, one per group and resource. */
  #types(): Tracked[] {
    if (this.#typesCache !== null) return this.#typesCache;
    const seen = new Map<string, Tracked>();
    for (const rt of this.#registry.types) {
      if (!rt.namespaced || ignoredByQuota(rt.group, rt.resource, rt.virtual)) continue;
      const key = `${rt.group}/${rt.resource}`;
      if (!seen.has(key)) seen.set(key, { rt, evaluator: evaluatorFor(rt.group, rt.resource) });
    }
    return (this.#typesCache = [...seen.values()]);
  }

  async start(): Promise<void> {
    this.#quotas.onChange((c) => {
      if (c.type === 'RESYNC') {
        this.#enqueueAll();
        return;
      }
      const key = `${c.object.metadata.namespace ?? ''}/${c.object.metadata.name ?? ''}`;
      if (c.type === 'DELETED') return;
      const spec = obj(c.object['spec']) ?? {};
      const status = obj(c.object['status']) ?? {};
      // Status writes are this controller's and admission's: only a new quota or a changed spec needs a recount.
      const hard = resourceListFrom(spec['hard']);
      const specChanged = c.old === undefined || !equals(resourceListFrom(obj(c.old['spec'])?.['hard']), hard);
      if (specChanged || !equals(resourceListFrom(status['hard']), hard) || status['used'] === undefined) this.enqueue(key);
      // Status writes (one per admitted charge) change nothing the feeds depend on.
      if (specChanged) this.#ensureFeeds([...hard.keys()]);
    });
    this.#quotas.start();
    await this.#quotas.ready;
    const hard = new Set<string>();
    for (const ns of this.#quotas.namespaces()) {
      for (const q of this.#quotas.in(ns).values()) for (const k of Object.keys(obj(obj(q['spec'])?.['hard']) ?? {})) hard.add(k);
    }
    this.#ensureFeeds([...hard]);
    this.#resyncTimer = setInterval(() => this.#enqueueAll(), this.#resyncMs);
    this.#resyncTimer.unref();
  }

  #enqueueAll(): void {
    for (const ns of this.#quotas.namespaces()) for (const name of this.#quotas.in(ns).keys()) this.enqueue(`${ns}/${name}`);
  }

  /** Every quota of the namespace that tracks something of the evaluator. */
  #replenish(namespace: string, evaluator: Evaluator): void {
    for (const [name, q] of this.#quotas.in(namespace)) {
      const hard = Object.keys(obj(obj(q['status'])?.['hard']) ?? {});
      if (evaluator.matchingResources(hard).length > 0) this.enqueue(`${namespace}/${name}`);
    }
  }

  /** Watches deletions of every type that quota resource names `hard` track (each started once). */
  #ensureFeeds(hard: readonly string[]): void {
    if (hard.length === 0) return;
    for (const t of this.#types()) {
      const key = `${t.rt.group}/${t.rt.resource}`;
      if (this.#feeds.has(key) || t.evaluator.matchingResources(hard).length === 0) continue;
      const feed = { watch: null as { close(): void } | null, timer: null as NodeJS.Timeout | null };
      this.#feeds.set(key, feed);
      void this.#startFeed(t, feed);
    }
  }

  async #startFeed(t: Tracked, feed: { watch: { close(): void } | null; timer: NodeJS.Timeout | null }): Promise<void> {
    if (this.#stopped) return;
    const restart = (): void => {
      feed.watch?.close();
      feed.watch = null;
      if (this.#stopped || feed.timer !== null) return;
      feed.timer = setTimeout(() => {
        feed.timer = null;
        // Changes may have been missed: recount what this type feeds.
        for (const ns of this.#quotas.namespaces()) this.#replenish(ns, t.evaluator);
        void this.#startFeed(t, feed);
      }, RESTART_DELAY_MS);
      feed.timer.unref();
    };
    try {
      const { revision } = await this.#store.router.get(t.rt.storageResource, `${t.rt.keyPrefix}\u0000`, { kind: 'latest' });
      if (this.#stopped) return;
      const decoder = new StringDecoder('utf8');
      let buffer = '';
      const isPods = t.rt.group === '' && t.rt.resource === 'pods';
      feed.watch = this.#store.router.watch(
        { resource: t.rt.storageResource, start: { kind: 'from', revision }, filter: {}, encoding: 'json', bookmarks: false, initialEventsEnd: false },
        {
          onFrames: (frames) => {
            const text = buffer + decoder.write(Buffer.from(frames.buffer, frames.byteOffset, frames.byteLength));
            const lines = text.split('\n');
            buffer = lines.pop()!;
            for (const line of lines) {
              if (line === '') continue;
              let ev: { type?: unknown; object?: KObject };
              try {
                ev = JSON.parse(line) as { type?: unknown; object?: KObject };
              } catch {
                restart();
                return;
              }
              const ns = ev.object?.metadata?.namespace;
              if (ns === undefined || !this.#quotas.has(ns)) continue;
              // Deleted objects release usage; pods also when they end or start terminating.
              const pod = ev.object!;
              const podReleases = isPods && ev.type === 'MODIFIED' && (pod.metadata.deletionTimestamp !== undefined || ['Succeeded', 'Failed'].includes(String(obj(pod['status'])?.['phase'])));
              if (ev.type === 'DELETED' || podReleases) this.#replenish(ns, t.evaluator);
            }
          },
          onEnd: restart,
        },
      );
    } catch {
      restart();
    }
  }

  enqueue(key: string): void {
    this.#queue.add(key);
    void this.#drain();
  }

  async #drain(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    try {
      while (this.#queue.size > 0 && !this.#stopped) {
        const key = this.#queue.values().next().value!;
        this.#queue.delete(key);
        try {
          await this.#sync(key);
        } catch (err) {
          const conflict = err instanceof StatusError && err.code === 409;
          if (!conflict) this.#log.warn({ quota: key, err: err instanceof Error ? err.message : String(err) }, 'resource quota recount failed; retrying');
          this.#retry(key, conflict ? 0 : RETRY_MS);
        }
      }
    } finally {
      this.#running = false;
    }
  }

  #retry(key: string, delay: number): void {
    if (this.#stopped || this.#retryTimers.has(key)) return;
    const t = setTimeout(() => {
      this.#retryTimers.delete(key);
      this.enqueue(key);
    }, delay);
    t.unref();
    this.#retryTimers.set(key, t);
  }

  /** Recounts one quota and writes its status when it changed. */
  async #sync(key: string): Promise<void> {
    const slash = key.indexOf('/');
    const ns = key.slice(0, slash);
    const name = key.slice(slash + 1);
    const cur = await this.#store.getObject(this.#rt, ns, name, { kind: 'latest' });
    if (cur === null) return;
    const quota = cur.obj;
    const spec = obj(quota['spec']) ?? {};
    const status = obj(quota['status']) ?? {};
    const hard = resourceListFrom(spec['hard']);
    const oldUsed = resourceListFrom(status['used']);
    const lists = new Map<string, Promise<KObject[]>>();
    const objects = (rt: ResourceType): Promise<KObject[]> => {
      let p = lists.get(rt.storageResource + rt.resource);
      if (p === undefined) {
        p = this.#store.list(rt, { kind: 'latest' }, { namespace: ns }, {}).then((reply) =>
          reply.count === 0 ? [] : (JSON.parse(`[${Buffer.from(reply.items).toString('utf8')}]`) as KObject[]),
        );
        lists.set(rt.storageResource + rt.resource, p);
      }
      return p;
    };
    const computed = await calculateUsage(quota, this.#types(), objects, new Date());
    // Keep earlier observations of what cannot be counted, drop what is no longer limited.
    const used = mask(new Map([...oldUsed, ...computed]), hard.keys());
    const dirty = status['hard'] === undefined || status['used'] === undefined || !equals(resourceListFrom(status['hard']), hard) || !equals(used, oldUsed);
    if (!dirty) return;
    const next: KObject = { ...quota, status: { hard: resourceListJson(hard), used: resourceListJson(used) } };
    // The store binds names into the body it is given: never hand it an object shared with the index.
    await this.#store.update(this.#rt, ns, name, cloneJson(next), { user: undefined, dryRun: false }, 'status');
  }

  stop(): void {
    this.#stopped = true;
    this.#quotas.close();
    if (this.#resyncTimer !== null) clearInterval(this.#resyncTimer);
    for (const t of this.#retryTimers.values()) clearTimeout(t);
    for (const f of this.#feeds.values()) {
      f.watch?.close();
      if (f.timer !== null) clearTimeout(f.timer);
    }
  }
}
