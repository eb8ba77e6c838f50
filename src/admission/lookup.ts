/**
 * AdmissionLookup: the objects plugins check a write against (namespaces,
 * LimitRanges, ServiceAccounts, PriorityClasses, quotas...).
 *
 * Small collections that writes are checked against all the time
 * (MIRRORED_RESOURCES) are read from this thread's ResourceMirror of them,
 * started on first use; everything else, and a mirror's miss (the object may
 * have been written a moment ago, ahead of the watch event), is read from the
 * owning shard's watch cache: one batched thread hop, never a store read.
 * Objects answered are shared and frozen: copy before changing.
 */
import type { GenericStore } from '../registry/generic-store.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { ResourceType } from '../registry/resource-type.ts';
import type { KObject } from '../registry/object.ts';
import { ResourceMirror } from '../registry/resource-mirror.ts';
import { apiGroup } from '../naming/index.ts';

export interface AdmissionLookup {
  /** The served type, or undefined when the server does not serve it (a disabled group). */
  type(group: string, version: string, resource: string): ResourceType | undefined;
  /**
   * One object, or null. Do not modify it. `live` skips this thread's
   * mirror: for checks that must see a write answered a moment ago (a
   * namespace's deletion mark).
   */
  get(rt: ResourceType, namespace: string, name: string, opts?: { live?: boolean }): Promise<KObject | null>;
  /** Every object of the type (in `namespace` when given). Do not modify them. */
  list(rt: ResourceType, namespace?: string, labelSelector?: string): Promise<KObject[]>;
}

/** `<group>/<resource>` of the collections kept in memory per thread: few objects, read by many writes. */
export const MIRRORED_RESOURCES: ReadonlySet<string> = new Set([
  '/namespaces',
  // Read by every pod create (the ServiceAccount plugin), as the original reads its service account lister.
  '/serviceaccounts',
  '/limitranges',
  '/resourcequotas',
  `${apiGroup('scheduling')}/priorityclasses`,
  `${apiGroup('storage')}/storageclasses`,
  `${apiGroup('networking')}/ingressclasses`,
  `${apiGroup('node')}/runtimeclasses`,
]);

export class WatchCacheLookup implements AdmissionLookup {
  readonly #registry: ResourceRegistry;
  readonly #store: () => GenericStore;
  readonly #mirrors = new Map<string, ResourceMirror>();
  #closed = false;

  constructor(registry: ResourceRegistry, store: () => GenericStore) {
    this.#registry = registry;
    this.#store = store;
  }

  type(group: string, version: string, resource: string): ResourceType | undefined {
    return this.#registry.lookup(group, version, resource);
  }

  async get(rt: ResourceType, namespace: string, name: string, opts?: { live?: boolean }): Promise<KObject | null> {
    const mirror = opts?.live === true ? undefined : this.#mirror(rt);
    const hit = mirror?.synced === true ? mirror.get(namespace, name) : undefined;
    if (hit !== undefined) return hit;
    const got = await this.#store().getObject(rt, namespace, name, { kind: 'any' });
    return got === null ? null : got.obj;
  }

  async list(rt: ResourceType, namespace?: string, labelSelector?: string): Promise<KObject[]> {
    const mirror = this.#mirror(rt);
    if (mirror?.synced === true && labelSelector === undefined) return mirror.list(namespace);
    const reply = await this.#store().list(rt, { kind: 'any' }, { namespace, labelSelector }, {});
    if (reply.count === 0) return [];
    return JSON.parse(`[${Buffer.from(reply.items).toString('utf8')}]`) as KObject[];
  }

  /** The mirror of a type kept in memory (started on first use), or undefined for the others. */
  mirror(rt: ResourceType): ResourceMirror | undefined {
    return this.#mirror(rt);
  }

  close(): void {
    this.#closed = true;
    for (const m of this.#mirrors.values()) m.close();
    this.#mirrors.clear();
  }

  #mirror(rt: ResourceType): ResourceMirror | undefined {
    // Mirrors hold objects in their stored shape: only for the type that owns the storage.
    if (this.#closed || rt.storageOf !== undefined || !MIRRORED_RESOURCES.has(`${rt.group}/${rt.resource}`)) return undefined;
    let m = this.#mirrors.get(rt.storageResource);
    if (m === undefined) {
      const store = this.#store() as GenericStore | undefined;
      if (store === undefined) return undefined;
      m = new ResourceMirror(store.router, rt).start();
      this.#mirrors.set(rt.storageResource, m);
    }
    return m;
  }
}

