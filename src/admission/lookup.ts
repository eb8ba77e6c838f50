/**
 * AdmissionLookup: the objects plugins check a write against (namespaces,
 * LimitRanges, ServiceAccounts, PriorityClasses, quotas...), read from the
 * owning shard's watch cache: one batched thread hop, never a store read.
 * A plugin on a hot path that needs more (every pod create reading every
 * class) keeps its own watch-fed index instead.
 */
import type { GenericStore } from '../registry/generic-store.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { ResourceType } from '../registry/resource-type.ts';
import type { KObject } from '../registry/object.ts';

export interface AdmissionLookup {
  /** The served type, or undefined when the server does not serve it (a disabled group). */
  type(group: string, version: string, resource: string): ResourceType | undefined;
  /** One object as the watch cache has it, or null. */
  get(rt: ResourceType, namespace: string, name: string): Promise<KObject | null>;
  /** Every object of the type (in `namespace` when given), from the watch cache. */
  list(rt: ResourceType, namespace?: string, labelSelector?: string): Promise<KObject[]>;
}

export class WatchCacheLookup implements AdmissionLookup {
  readonly #registry: ResourceRegistry;
  readonly #store: () => GenericStore;

  constructor(registry: ResourceRegistry, store: () => GenericStore) {
    this.#registry = registry;
    this.#store = store;
  }

  type(group: string, version: string, resource: string): ResourceType | undefined {
    return this.#registry.lookup(group, version, resource);
  }

  async get(rt: ResourceType, namespace: string, name: string): Promise<KObject | null> {
    const got = await this.#store().getObject(rt, namespace, name, { kind: 'any' });
    return got === null ? null : got.obj;
  }

  async list(rt: ResourceType, namespace?: string, labelSelector?: string): Promise<KObject[]> {
    const reply = await this.#store().list(rt, { kind: 'any' }, { namespace, labelSelector }, {});
    if (reply.count === 0) return [];
    return JSON.parse(`[${Buffer.from(reply.items).toString('utf8')}]`) as KObject[];
  }
}
