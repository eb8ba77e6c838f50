/**
 * ResourceType describes one served resource: its names, scope, verbs and
 * subresources (what discovery shows), how it is stored, and the strategy
 * that gives it its behaviour. Adding a built-in type is adding one of these
 * to a catalog file, not a new code path.
 */
import type { Strategy } from './strategy.ts';
import type { KObject } from './object.ts';

export type Verb = 'create' | 'delete' | 'deletecollection' | 'get' | 'list' | 'patch' | 'update' | 'watch';

export const ALL_VERBS: readonly Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
/** Verbs of a subresource that reads and replaces a part of its parent (status, approval). */
export const SUBRESOURCE_VERBS: readonly Verb[] = ['get', 'patch', 'update'];

export interface SubresourceType {
  /** `status`, `scale`, `approval`, `finalize`, `binding`, `eviction`, ... */
  name: string;
  kind: string;
  /** When the subresource's kind lives in another group/version (Scale is autoscaling/v1). */
  group?: string;
  version?: string;
  verbs: readonly Verb[];
}

/** Converts objects between a served version and the version they are stored in. */
export interface Conversion {
  toStorage(obj: KObject): KObject;
  fromStorage(obj: KObject): KObject;
  /**
   * Conversions that call out (a custom resource's conversion webhook),
   * batched: when set, the store and the watch use these instead.
   */
  toStorageMany?(objs: KObject[]): Promise<KObject[]>;
  fromStorageMany?(objs: KObject[]): Promise<KObject[]>;
}

/** The part of a resource type a catalog file writes. */
export interface ResourceTypeDef {
  group: string;
  version: string;
  /** Plural lower-case name used in URLs. */
  resource: string;
  kind: string;
  singularName: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  /** Defaults to every verb; virtual types (reviews) list only `create`. */
  verbs?: Verb[];
  subresources?: SubresourceType[];
  /** Names must be DNS-1123 labels (namespaces, services) rather than subdomains. */
  nameRule?: 'subdomain' | 'label' | 'dns1035-label' | 'path-segment';
  /** PUT of an absent object creates it (the original allows this for a few types). */
  allowCreateOnUpdate?: boolean;
  /** metadata.generation is kept and bumped on spec changes. */
  tracksGeneration?: boolean;
  /** Objects are not stored: the request is answered by the strategy (reviews). */
  virtual?: boolean;
  /** Share storage with another resource type (same group/resource), converted on the way. */
  storageOf?: { group: string; resource: string };
  /** With storageOf: converts between this type's shape and the stored type's shape. */
  conversion?: Conversion;
  /** Behaviour beyond the generic rules. */
  strategy?: Strategy;
  /** The API version's stability for discovery (`v1`, `v1beta1`, ...) is in `version`. */
  /** Deprecated API: the Warning header text. */
  deprecationWarning?: string;
}

/** A resource type as the server uses it, with derived fields filled. */
export interface ResourceType extends Required<Omit<ResourceTypeDef, 'storageOf' | 'deprecationWarning' | 'strategy' | 'conversion'>> {
  storageOf: { group: string; resource: string } | undefined;
  conversion: Conversion | undefined;
  deprecationWarning: string | undefined;
  strategy: Strategy;
  listKind: string;
  /** `<group>/<resource>` of the storage this type lives in (sharding and keys). */
  storageResource: string;
  /** Key prefix in the store, with trailing slash: `/pods/`, `/apps/deployments/`. */
  keyPrefix: string;
  /** `v1` or `<group>/<version>`. */
  apiVersion: string;
  hasStatus: boolean;
}
