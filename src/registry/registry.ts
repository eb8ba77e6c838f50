/**
 * ResourceRegistry holds every served resource type, resolved from catalog
 * definitions, and answers the lookups the server needs: by URL
 * (group/version/resource), by kind, and by storage (for shards and keys).
 */
import type { ResourceSpec } from '../../shards/protocol.ts';
import { ALL_VERBS, deprecationText, type ResourceType, type ResourceTypeDef } from './resource-type.ts';
import { defaultEnabledFor } from '../versions/runtime-config.ts';

const DEFAULT_CACHE_SIZE = 100;

export interface RegistryOptions {
  /** `--default-watch-cache-size`. */
  defaultWatchCacheSize?: number;
  /** `--watch-cache-sizes` parsed: `resource[.group]` -> size. */
  watchCacheSizes?: ReadonlyMap<string, number>;
  /** `--runtime-config` decisions: returns false for a group/version that is switched off. */
  isEnabled?: (group: string, version: string, resource: string, defaultEnabled: boolean) => boolean;
}

export function resolveResourceType(def: ResourceTypeDef): ResourceType {
  const storage = def.storageOf ?? { group: def.group, resource: def.resource };
  const storageResource = `${storage.group}/${storage.resource}`;
  const subresources = def.subresources ?? [];
  return {
    group: def.group,
    version: def.version,
    resource: def.resource,
    kind: def.kind,
    singularName: def.singularName,
    namespaced: def.namespaced,
    shortNames: def.shortNames ?? [],
    categories: def.categories ?? [],
    verbs: def.verbs ?? [...ALL_VERBS],
    subresources,
    nameRule: def.nameRule ?? 'subdomain',
    allowCreateOnUpdate: def.allowCreateOnUpdate ?? false,
    tracksGeneration: def.tracksGeneration ?? false,
    virtual: def.virtual ?? false,
    storageOf: def.storageOf,
    conversion: def.conversion,
    deprecationWarning: def.deprecationWarning ?? (def.deprecated === undefined ? undefined : deprecationText(def.group, def.version, def.kind, def.deprecated)),
    deprecated: def.deprecated,
    defaultEnabled: def.defaultEnabled ?? defaultEnabledFor(def.version),
    strategy: def.strategy ?? {},
    listKind: `${def.kind}List`,
    storageResource,
    keyPrefix: storage.group === '' ? `/${storage.resource}/` : `/${storage.group}/${storage.resource}/`,
    apiVersion: def.group === '' ? def.version : `${def.group}/${def.version}`,
    hasStatus: subresources.some((s) => s.name === 'status'),
  };
}

export class ResourceRegistry {
  readonly #byGVR = new Map<string, ResourceType>();
  readonly #types: ResourceType[] = [];
  readonly #opts: RegistryOptions;

  constructor(defs: readonly ResourceTypeDef[], opts: RegistryOptions = {}) {
    this.#opts = opts;
    for (const def of defs) {
      const defaultEnabled = def.defaultEnabled ?? defaultEnabledFor(def.version);
      // Without --runtime-config decisions (tests, documents) every type is served.
      if (opts.isEnabled && !opts.isEnabled(def.group, def.version, def.resource, defaultEnabled)) continue;
      const rt = resolveResourceType(def);
      const key = gvrKey(rt.group, rt.version, rt.resource);
      if (this.#byGVR.has(key)) throw new Error(`duplicate resource type ${key}`);
      this.#byGVR.set(key, rt);
      this.#types.push(rt);
    }
  }

  /**
   * Serves one more type from now on (a custom resource, when its definition
   * is established); replaces a type already served at the same URL. Only
   * the serving thread's own CRD watch calls this, between requests.
   */
  addType(rt: ResourceType): void {
    const key = gvrKey(rt.group, rt.version, rt.resource);
    const old = this.#byGVR.get(key);
    this.#byGVR.set(key, rt);
    const at = old === undefined ? -1 : this.#types.indexOf(old);
    if (at >= 0) this.#types[at] = rt;
    else this.#types.push(rt);
  }

  /** Stops serving a type added by addType. */
  removeType(group: string, version: string, resource: string): void {
    const key = gvrKey(group, version, resource);
    const old = this.#byGVR.get(key);
    if (old === undefined) return;
    this.#byGVR.delete(key);
    const at = this.#types.indexOf(old);
    if (at >= 0) this.#types.splice(at, 1);
  }

  /** The watch cache size of a type, as the flags size it. */
  cacheSizeOf(rt: ResourceType): number {
    return this.#cacheSize(rt);
  }

  get types(): readonly ResourceType[] {
    return this.#types;
  }

  lookup(group: string, version: string, resource: string): ResourceType | undefined {
    return this.#byGVR.get(gvrKey(group, version, resource));
  }

  /** Served versions per group, in catalog order (the first is preferred). */
  groupVersions(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const rt of this.#types) {
      const versions = out.get(rt.group) ?? [];
      if (!versions.includes(rt.version)) versions.push(rt.version);
      out.set(rt.group, versions);
    }
    return out;
  }

  /** Types served at one group/version, for discovery. */
  typesAt(group: string, version: string): ResourceType[] {
    return this.#types.filter((rt) => rt.group === group && rt.version === version);
  }

  /** One type per storage resource that keeps objects: what the shards cache. */
  storedTypes(): ResourceType[] {
    const seen = new Map<string, ResourceType>();
    for (const rt of this.#types) {
      if (rt.virtual) continue;
      const existing = seen.get(rt.storageResource);
      // The type that owns the storage (no storageOf) describes it.
      if (existing === undefined || (existing.storageOf !== undefined && rt.storageOf === undefined)) seen.set(rt.storageResource, rt);
    }
    return [...seen.values()];
  }

  /** Shard resource specs for every stored type. */
  shardResources(): ResourceSpec[] {
    return this.storedTypes().map((rt) => ({
      groupResource: rt.storageResource,
      prefix: rt.keyPrefix,
      namespaced: rt.namespaced,
      kind: rt.kind,
      apiVersion: rt.apiVersion,
      cacheSize: this.#cacheSize(rt),
    }));
  }

  #cacheSize(rt: ResourceType): number {
    const sizes = this.#opts.watchCacheSizes;
    const named = sizes?.get(rt.group === '' ? rt.resource : `${rt.resource}.${rt.group}`);
    return named ?? this.#opts.defaultWatchCacheSize ?? DEFAULT_CACHE_SIZE;
  }
}

function gvrKey(group: string, version: string, resource: string): string {
  return `${group}/${version}/${resource}`;
}
