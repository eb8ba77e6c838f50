/**
 * Serving custom resources in one serving thread: a watch of the definitions
 * (crd-watch.ts) turns each established one into resource types in this
 * thread's registry (custom-resource.ts), after its shard serves the storage
 * (`ensureResource`), and asks the thread to rebuild discovery and OpenAPI
 * (coalesced: a burst of definitions rebuilds once). The main thread and
 * every front-end worker run one each, so every thread serves the same types
 * shortly after a definition is established. A request for a built-in type
 * never comes here.
 */
import type { ShardAccess } from '../../shards/shard-access.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { ResourceType } from '../registry/resource-type.ts';
import { isPlainObject, type KObject } from '../registry/object.ts';
import { StatusError } from '../api/status.ts';
import { CrdWatch } from './crd-watch.ts';
import { crdInfo, customResourceTypes } from './custom-resource.ts';
import { findCondition } from './conditions.ts';
import { APIEXTENSIONS_GROUP, CRD_RESOURCE } from './crd-types.ts';

export interface CustomResourceServingDeps {
  readonly registry: ResourceRegistry;
  readonly router: ShardAccess;
  /** Rebuild discovery and OpenAPI from the registry (called after a burst of changes). */
  readonly rebuild: () => void;
  /** Told of definitions that could not be served. */
  readonly onError?: ((err: unknown, what: string) => void) | undefined;
}

interface Served {
  fingerprint: string;
  types: ResourceType[];
}

const REBUILD_DELAY_MS = 20;

export function isEstablished(crd: KObject): boolean {
  const status = isPlainObject(crd['status']) ? crd['status'] : {};
  return findCondition(status, 'Established')?.status === 'True';
}

export class CustomResourceServing {
  readonly #deps: CustomResourceServingDeps;
  readonly #served = new Map<string, Served>();
  /** Per definition, the last change applied (changes to one definition apply in order). */
  readonly #queue = new Map<string, Promise<void>>();
  #watch: CrdWatch | null = null;
  #rebuildTimer: NodeJS.Timeout | null = null;
  #closed = false;

  constructor(deps: CustomResourceServingDeps) {
    this.#deps = deps;
  }

  /** Starts the watch; resolves once the definitions that exist now are served here. */
  async start(): Promise<void> {
    const crdType = this.#deps.registry.lookup(APIEXTENSIONS_GROUP, 'v1', CRD_RESOURCE);
    if (crdType === undefined) return;
    this.#watch = new CrdWatch(this.#deps.router, crdType, {
      onChange: (crd, deleted) => this.#enqueue(crd.metadata.name ?? '', () => this.#apply(crd, deleted)),
      onSync: (names) => {
        for (const name of [...this.#served.keys()]) if (!names.has(name)) this.#enqueue(name, () => this.#drop(name));
      },
    });
    await this.#watch.start();
    await Promise.all([...this.#queue.values()]);
  }

  #enqueue(name: string, f: () => Promise<void> | void): void {
    const prev = this.#queue.get(name) ?? Promise.resolve();
    const next = prev.then(f).catch((err: unknown) => this.#deps.onError?.(err, `custom resources of ${name}`));
    this.#queue.set(name, next);
    void next.finally(() => {
      if (this.#queue.get(name) === next) this.#queue.delete(name);
    });
  }

  async #apply(crd: KObject, deleted: boolean): Promise<void> {
    const name = crd.metadata.name ?? '';
    if (deleted || !isEstablished(crd)) return this.#drop(name);
    const info = crdInfo(crd);
    const terminating = Boolean(crd.metadata.deletionTimestamp);
    const fingerprint = JSON.stringify([crd['spec'], isPlainObject(crd['status']) ? crd['status']['acceptedNames'] : null, terminating]);
    if (this.#served.get(name)?.fingerprint === fingerprint) return;
    const types = customResourceTypes(info, this.#deps.router);
    if (terminating) for (const rt of types) refuseCreates(rt);
    const owner = types.find((t) => t.storageOf === undefined) ?? types[0];
    if (owner !== undefined && this.#deps.router.ensureResource !== undefined) {
      await this.#deps.router.ensureResource({
        groupResource: owner.storageResource,
        prefix: owner.keyPrefix,
        namespaced: owner.namespaced,
        kind: owner.kind,
        apiVersion: `${info.group}/${info.versions.find((v) => v.storage)?.name ?? owner.version}`,
        cacheSize: this.#deps.registry.cacheSizeOf(owner),
      });
    }
    if (this.#closed) return;
    const old = this.#served.get(name);
    for (const rt of old?.types ?? []) this.#deps.registry.removeType(rt.group, rt.version, rt.resource);
    for (const rt of types) this.#deps.registry.addType(rt);
    this.#served.set(name, { fingerprint, types });
    this.#scheduleRebuild();
  }

  #drop(name: string): void {
    const old = this.#served.get(name);
    if (old === undefined) return;
    this.#served.delete(name);
    for (const rt of old.types) {
      // Only if the registry still holds this very type (another definition may have taken the URL since).
      if (this.#deps.registry.lookup(rt.group, rt.version, rt.resource) === rt) this.#deps.registry.removeType(rt.group, rt.version, rt.resource);
    }
    this.#scheduleRebuild();
  }

  #scheduleRebuild(): void {
    if (this.#rebuildTimer !== null || this.#closed) return;
    this.#rebuildTimer = setTimeout(() => {
      this.#rebuildTimer = null;
      try {
        this.#deps.rebuild();
      } catch (err) {
        this.#deps.onError?.(err, 'rebuilding discovery and OpenAPI');
      }
    }, REBUILD_DELAY_MS);
  }

  /** The definitions served here now (tests). */
  servedNames(): string[] {
    return [...this.#served.keys()];
  }

  close(): void {
    this.#closed = true;
    this.#watch?.close();
    if (this.#rebuildTimer !== null) clearTimeout(this.#rebuildTimer);
    this.#rebuildTimer = null;
  }
}

/** While its definition is being deleted, a custom resource cannot be created (the original's 405). */
function refuseCreates(rt: ResourceType): void {
  rt.strategy = {
    ...rt.strategy,
    prepareForCreate(): void {
      throw new StatusError(405, 'MethodNotAllowed', 'create not allowed while custom resource definition is terminating', { group: rt.group, kind: rt.resource });
    },
  };
}
