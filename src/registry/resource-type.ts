/**
 * ResourceType describes one served resource: its names, scope, verbs and
 * subresources (what discovery shows), how it is stored, and the strategy
 * that gives it its behaviour. Adding a built-in type is adding one of these
 * to a catalog file, not a new code path.
 */
import type { Strategy } from './strategy.ts';
import type { KObject } from './object.ts';
import type { Relabel } from './conversions/relabel.ts';

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
   * Set when the versions differ only in apiVersion: reads splice it into the
   * stored bytes (conversions/relabel.ts) instead of parsing, and Protobuf
   * list items (the same messages) pass through.
   */
  readonly relabel?: Relabel;
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
  /** Deprecated API: the Warning header text (derived from `deprecated` when that is given). */
  deprecationWarning?: string;
  /** Deprecated API: when, until when, and what replaces it (the Warning header, audit annotation and metric follow). */
  deprecated?: Deprecation;
  /**
   * Served when `--runtime-config` says nothing of it. Defaults to true but for
   * alpha versions; betas new since 1.24 are off by default in the original.
   */
  defaultEnabled?: boolean;
}

/** The original's deprecation facts of a served version (`+k8s:prerelease-lifecycle-gen` tags). */
export interface Deprecation {
  /** Release it was deprecated in: `1.21`. */
  readonly since: string;
  /** Release it is (or was) removed in: `1.25`; absent for a deprecated version with no removal set. */
  readonly removed?: string;
  /** What to use instead. */
  readonly replacement?: { readonly group: string; readonly version: string; readonly kind: string };
}

/** The original's Warning text: `batch/v1beta1 CronJob is deprecated in v1.21+, unavailable in v1.25+; use batch/v1 CronJob`. */
export function deprecationText(group: string, version: string, kind: string, d: Deprecation): string {
  const gv = (g: string, v: string): string => (g === '' ? v : `${g}/${v}`);
  let text = `${gv(group, version)} ${kind} is deprecated in v${d.since}+`;
  if (d.removed !== undefined) text += `, unavailable in v${d.removed}+`;
  if (d.replacement !== undefined) text += `; use ${gv(d.replacement.group, d.replacement.version)} ${d.replacement.kind}`;
  return text;
}

/** A resource type as the server uses it, with derived fields filled. */
export interface ResourceType extends Required<Omit<ResourceTypeDef, 'storageOf' | 'deprecationWarning' | 'strategy' | 'conversion' | 'deprecated'>> {
  storageOf: { group: string; resource: string } | undefined;
  deprecated: Deprecation | undefined;
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
