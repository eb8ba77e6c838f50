/**
 * ResourceQuota admission, as the original's quota evaluator:
 *
 * - A namespace without quota costs nothing: a per-thread index of the
 *   quotas (watch-fed, watched-objects.ts) answers synchronously, no
 *   promise, no thread hop.
 * - With quotas, requests of one namespace are checked in batches (one at a
 *   time per namespace and thread, as the original's per-namespace work
 *   queue): each against the quotas as the previous ones left them; the
 *   quotas whose usage changed are then written to status.used with
 *   compare-and-swap on the resourceVersion read. On a conflict (another
 *   thread or another server charged first) the quotas are read again,
 *   from storage, and the requests still waiting are checked again; a
 *   request is admitted only once a write carrying its charge succeeded, so
 *   any number of servers on one store never admit past a quota.
 * - Dry-run requests are checked and never charged.
 *
 * The usage itself is recomputed from the objects by the quota controller
 * (src/controllers/resource-quota-controller.ts), which also releases what
 * deleted objects used.
 */
import { cloneJson } from '../../../patch/json-value.ts';
import type { AdmissionAttributes, AdmissionPlugin } from '../../types.ts';
import type { AdmissionPluginFactory } from '../../plugin-table.ts';
import type { GenericStore } from '../../../registry/generic-store.ts';
import { parseObject } from '../../../registry/generic-store.ts';
import type { ResourceType } from '../../../registry/resource-type.ts';
import type { KObject } from '../../../registry/object.ts';
import { StatusError, errors } from '../../../api/status.ts';
import { WatchedObjects } from '../../watched-objects.ts';
import { evaluatorFor, ignoredByQuota, type Evaluator } from './evaluators.ts';
import { checkRequest, quotaState, type QuotaState } from './check.ts';
import { equals, resourceListJson } from './resource-list.ts';
import { admissionForbidden, readyWithin } from '../../admission-errors.ts';

/** Conflicted rounds before a request fails with the conflict (the original retries 3 times; several servers contend more). */
export const QUOTA_RETRIES = 8;

/** Where the plugin reads and writes quotas. */
export interface QuotaAccess {
  /** Whether the index is ready; until then requests wait for `ready`. */
  readonly synced: boolean;
  readonly ready: Promise<void>;
  /** Whether the namespace has any quota (synchronous: the cost rule). */
  has(namespace: string): boolean;
  /** The namespace's quotas as this thread knows them (the index, or a newer one this thread wrote). */
  cached(namespace: string): KObject[];
  /** The namespace's quotas read from storage (after a conflict). */
  latest(namespace: string): Promise<KObject[]>;
  /** Writes status with the object's resourceVersion as precondition; answers the stored object. */
  updateStatus(quota: KObject): Promise<KObject>;
}

interface Waiter {
  readonly req: { attrs: AdmissionAttributes; evaluator: Evaluator; now: Date };
  /** undefined: still waiting for a successful write (the original's default deny). */
  result: Error | null | undefined;
  /** Answers the request: admitted when `result` is null. */
  settle(): void;
}

const NOT_ADMITTED = (): StatusError => errors.internal('resource quota evaluation timed out');

export class QuotaEvaluator {
  readonly #access: QuotaAccess;
  readonly #queues = new Map<string, Waiter[]>();
  readonly #evaluators = new Map<string, Evaluator>();
  readonly #now: () => Date;

  constructor(access: QuotaAccess, now: () => Date = () => new Date()) {
    this.#access = access;
    this.#now = now;
  }

  plugin(): AdmissionPlugin {
    return {
      name: 'ResourceQuota',
      handles: (rt, sub, op) => this.handles(rt, sub, op),
      validate: (attrs) => this.validate(attrs),
    };
  }

  handles(rt: ResourceType, sub: string, op: string): boolean {
    if (sub !== '' || !rt.namespaced || ignoredByQuota(rt.group, rt.resource, rt.virtual)) return false;
    return op === 'CREATE' || (op === 'UPDATE' && this.#evaluator(rt).handles('UPDATE'));
  }

  validate(attrs: AdmissionAttributes): Promise<void> | void {
    if (attrs.namespace === '') return;
    if (!this.#access.synced) {
      return readyWithin(this.#access.ready).then((ok) => {
        if (!ok) throw admissionForbidden(attrs, 'not yet ready to handle request');
        return this.validate(attrs);
      });
    }
    // The cost rule: no quota in the namespace, nothing to do, synchronously.
    if (!this.#access.has(attrs.namespace)) return;
    const evaluator = this.#evaluator(attrs.resourceType);
    if (!evaluator.handles(attrs.operation)) return;
    return this.#enqueue(attrs, evaluator);
  }

  #evaluator(rt: ResourceType): Evaluator {
    const key = `${rt.group}/${rt.resource}`;
    let e = this.#evaluators.get(key);
    if (e === undefined) this.#evaluators.set(key, (e = evaluatorFor(rt.group, rt.resource)));
    return e;
  }

  #enqueue(attrs: AdmissionAttributes, evaluator: Evaluator): Promise<void> {
    let settle = (): void => undefined;
    const done = new Promise<void>((resolve, reject) => {
      settle = () => (waiter.result === null ? resolve() : reject(waiter.result ?? NOT_ADMITTED()));
    });
    const waiter: Waiter = { req: { attrs, evaluator, now: this.#now() }, result: undefined, settle: () => settle() };
    const ns = attrs.namespace;
    const queue = this.#queues.get(ns);
    if (queue !== undefined) {
      queue.push(waiter);
      return done;
    }
    this.#queues.set(ns, [waiter]);
    void this.#drain(ns);
    return done;
  }

  /** Checks the namespace's waiting requests batch after batch until none is left. */
  async #drain(ns: string): Promise<void> {
    // Let requests that arrive together join the first batch.
    await new Promise<void>((r) => setImmediate(r));
    for (;;) {
      const batch = this.#queues.get(ns)!;
      if (batch.length === 0) {
        this.#queues.delete(ns);
        return;
      }
      this.#queues.set(ns, []);
      try {
        const quotas = this.#access.cached(ns).map(quotaState);
        await this.#checkQuotas(quotas, batch, QUOTA_RETRIES);
      } catch (err) {
        for (const w of batch) if (w.result === undefined) w.result = err instanceof Error ? err : new Error(String(err));
      }
      for (const w of batch) w.settle();
    }
  }

  async #checkQuotas(start: QuotaState[], waiters: readonly Waiter[], retries: number): Promise<void> {
    let quotas = start;
    const original = start.map((q) => q.used);
    let changed = false;
    for (const w of waiters) {
      if (w.result !== undefined) continue;
      let next: QuotaState[];
      try {
        next = checkRequest(quotas, w.req);
      } catch (err) {
        w.result = err instanceof Error ? err : new Error(String(err));
        continue;
      }
      // Dry run: checked, never charged.
      if (w.req.attrs.dryRun) {
        w.result = null;
        continue;
      }
      const mine = next.some((q, j) => !equals(q.used, quotas[j]!.used));
      if (mine) changed = true;
      else w.result = null;
      quotas = next;
    }
    if (!changed) return;
    const failed: QuotaState[] = [];
    let lastErr: Error | undefined;
    for (let i = 0; i < quotas.length; i++) {
      const q = quotas[i]!;
      if (equals(original[i]!, q.used)) continue;
      const body: KObject = { ...q.object, status: { hard: resourceListJson(q.hard), used: resourceListJson(q.used) } };
      try {
        await this.#access.updateStatus(body);
      } catch (err) {
        failed.push(q);
        lastErr = err instanceof Error ? err : new Error(String(err));
      }
    }
    if (failed.length === 0) {
      for (const w of waiters) if (w.result === undefined) w.result = null;
      return;
    }
    const fail = (): void => {
      for (const w of waiters) if (w.result === undefined) w.result = lastErr!;
    };
    if (retries <= 0) return fail();
    // Read the quotas whose write failed again; an unchanged resourceVersion means the write failed for another reason than a race.
    const fresh = await this.#access.latest(failed[0]!.object.metadata.namespace ?? '');
    const toCheck: QuotaState[] = [];
    for (const f of failed) {
      const now = fresh.find((o) => o.metadata.name === f.name);
      if (now === undefined) continue;
      if (now.metadata.resourceVersion === f.object.metadata.resourceVersion) return fail();
      toCheck.push(quotaState(now));
    }
    await this.#checkQuotas(toCheck, waiters, retries - 1);
  }
}

/** QuotaAccess over this thread's index and store. */
export class StoreQuotaAccess implements QuotaAccess {
  readonly #index: WatchedObjects;
  readonly #rt: ResourceType;
  readonly #store: () => GenericStore;
  /** Quotas this thread wrote that its index may not show yet, by `ns/name`. */
  readonly #written = new Map<string, KObject>();

  constructor(index: WatchedObjects, rt: ResourceType, store: () => GenericStore) {
    this.#index = index;
    this.#rt = rt;
    this.#store = store;
    index.onChange((c) => {
      if (c.type === 'DELETED') this.#written.delete(`${c.object.metadata.namespace ?? ''}/${c.object.metadata.name ?? ''}`);
      else if (c.type === 'RESYNC') this.#written.clear();
    });
  }

  get synced(): boolean {
    return this.#index.synced;
  }

  get ready(): Promise<void> {
    return this.#index.ready;
  }

  has(namespace: string): boolean {
    return this.#index.has(namespace);
  }

  cached(namespace: string): KObject[] {
    const out: KObject[] = [];
    for (const q of this.#index.in(namespace).values()) {
      const key = `${namespace}/${q.metadata.name ?? ''}`;
      const mine = this.#written.get(key);
      if (mine !== undefined && mine.metadata.uid === q.metadata.uid && Number(mine.metadata.resourceVersion) > Number(q.metadata.resourceVersion)) {
        out.push(mine);
      } else {
        if (mine !== undefined) this.#written.delete(key);
        out.push(q);
      }
    }
    return out.sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
  }

  async latest(namespace: string): Promise<KObject[]> {
    const reply = await this.#store().list(this.#rt, { kind: 'latest' }, { namespace }, {});
    if (reply.count === 0) return [];
    return JSON.parse(`[${Buffer.from(reply.items).toString('utf8')}]`) as KObject[];
  }

  async updateStatus(quota: KObject): Promise<KObject> {
    const ns = quota.metadata.namespace ?? '';
    const name = quota.metadata.name ?? '';
    // The store binds names into the body it is given: never hand it an object shared with the index.
    const res = await this.#store().update(this.#rt, ns, name, cloneJson(quota), { user: undefined, dryRun: false }, 'status');
    const stored = parseObject(res.body);
    this.#written.set(`${ns}/${name}`, stored);
    return stored;
  }
}

export const resourceQuotaFactory: AdmissionPluginFactory = {
  name: 'ResourceQuota',
  create(deps) {
    const rt = deps.lookup.type('', 'v1', 'resourcequotas');
    if (rt === undefined) return { name: 'ResourceQuota', handles: () => false };
    const index = new WatchedObjects(rt, deps.store);
    // The store exists once the chain does: start the watch right after.
    setImmediate(() => index.start());
    deps.onClose(() => index.close());
    return new QuotaEvaluator(new StoreQuotaAccess(index, rt, deps.store)).plugin();
  },
};
