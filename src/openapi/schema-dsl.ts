/**
 * A small typed language to declare API object types once. The OpenAPI v2
 * and v3 documents are rendered from these declarations, and the same source
 * is meant to drive server-side apply (the merge markers say how lists, maps
 * and structs merge and who owns what) and Protobuf (the `proto` tags).
 *
 * A declaration lists every field of the original type. Where we stop
 * describing the inner shape, the field's type is `OPAQUE`: an object whose
 * unknown fields are preserved (`x-<product>-preserve-unknown-fields`).
 *
 * @example
 * const core = namespace('io.<product>.api.core.v1', { group: '', version: 'v1' });
 * core.struct('ContainerPort', 'A port a container listens on.', {
 *   containerPort: f(I32, 'Port number inside the container.', { required: true, proto: 3 }),
 * });
 */
import { INTERNAL_SCHEMA_PREFIX } from '../naming/index.ts';

/** Scalar shapes; the last four render as shared named components, as in the original. */
export type Scalar = 'string' | 'int32' | 'int64' | 'double' | 'boolean' | 'byte' | 'quantity' | 'int-or-string' | 'time' | 'micro-time';

export type TypeExpr =
  | { readonly kind: 'scalar'; readonly scalar: Scalar }
  | { readonly kind: 'ref'; readonly name: string }
  | { readonly kind: 'array'; readonly items: TypeExpr }
  | { readonly kind: 'map'; readonly values: TypeExpr }
  /** Any JSON value (no type). */
  | { readonly kind: 'any' }
  /** An object we do not describe further; its fields are kept as sent. */
  | { readonly kind: 'opaque' };

export type ListType = 'atomic' | 'set' | 'map';
export type PatchStrategy = 'merge' | 'replace' | 'retainKeys' | 'merge,retainKeys';
export type Granularity = 'atomic' | 'granular';

export interface FieldOptions {
  /** Must be present in a valid object (the original: no `omitempty`, no `+optional`). */
  readonly required?: boolean;
  /** `+listType`: how a list merges and who owns its items. */
  readonly listType?: ListType;
  /** `+listMapKey`: the item fields that identify an item of a `map` list. */
  readonly listMapKeys?: readonly string[];
  /** `+patchMergeKey`: the item field strategic merge patch matches items by. */
  readonly patchMergeKey?: string;
  /** `+patchStrategy` for strategic merge patch. */
  readonly patchStrategy?: PatchStrategy;
  /** `+mapType` of a map field. */
  readonly mapType?: Granularity;
  /** Allowed values of a string field. */
  readonly enum?: readonly string[];
  /** Field number in the original's generated.proto, when known. */
  readonly proto?: number;
}

export interface FieldDecl extends FieldOptions {
  readonly type: TypeExpr;
  /** One line, shown by `kubectl explain`. */
  readonly description: string;
}

export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

export interface StructDecl {
  /** Full schema name, e.g. `io.<product>.api.core.v1.Container`. */
  readonly name: string;
  readonly description: string;
  readonly fields: Readonly<Record<string, FieldDecl>>;
  /** Structs whose fields are flattened into this one in JSON (Go's inline embedding); kept apart for Protobuf. */
  readonly embeds?: readonly { readonly name: string; readonly proto?: number }[];
  /** `+structType`: `atomic` structs are replaced and owned as a whole. */
  readonly structType?: Granularity;
  /** Set for a top-level kind: the group/version/kind it is served as. */
  readonly gvk?: GroupVersionKind;
  /** Fields beyond the declared ones are kept: for kinds whose shape we do not describe. */
  readonly preserveUnknownFields?: boolean;
}

export const S: TypeExpr = { kind: 'scalar', scalar: 'string' };
export const I32: TypeExpr = { kind: 'scalar', scalar: 'int32' };
export const I64: TypeExpr = { kind: 'scalar', scalar: 'int64' };
export const F64: TypeExpr = { kind: 'scalar', scalar: 'double' };
export const B: TypeExpr = { kind: 'scalar', scalar: 'boolean' };
export const BYTES: TypeExpr = { kind: 'scalar', scalar: 'byte' };
export const QTY: TypeExpr = { kind: 'scalar', scalar: 'quantity' };
export const IOS: TypeExpr = { kind: 'scalar', scalar: 'int-or-string' };
export const TIME: TypeExpr = { kind: 'scalar', scalar: 'time' };
export const MTIME: TypeExpr = { kind: 'scalar', scalar: 'micro-time' };
export const ANY: TypeExpr = { kind: 'any' };
export const OPAQUE: TypeExpr = { kind: 'opaque' };

export function list(items: TypeExpr): TypeExpr {
  return { kind: 'array', items };
}

export function map(values: TypeExpr): TypeExpr {
  return { kind: 'map', values };
}

/** A field: its type, one line of description, markers. */
export function f(type: TypeExpr, description: string, opts: FieldOptions = {}): FieldDecl {
  return { type, description, ...opts };
}

export interface StructOptions {
  readonly embeds?: readonly { readonly name: string; readonly proto?: number }[];
  readonly structType?: Granularity;
}

/** Declarations in one schema package (`io.<product>.api.apps.v1`), served as one group/version. */
export interface Namespace {
  readonly prefix: string;
  readonly group: string;
  readonly version: string;
  /** Reference a type of this package by its short name. */
  ref(short: string): TypeExpr;
  /** Full name of a type of this package. */
  name(short: string): string;
  struct(short: string, description: string, fields: Record<string, FieldDecl>, opts?: StructOptions): StructDecl;
  /**
   * A top-level kind: `apiVersion`, `kind` and `metadata` (ObjectMeta, proto
   * field 1 as in every original kind) are added in front of `fields`.
   */
  kind(short: string, description: string, fields: Record<string, FieldDecl>, opts?: StructOptions): StructDecl;
}

export const OBJECT_META = `${INTERNAL_SCHEMA_PREFIX}.apimachinery.pkg.apis.meta.v1.ObjectMeta`;
export const LIST_META = `${INTERNAL_SCHEMA_PREFIX}.apimachinery.pkg.apis.meta.v1.ListMeta`;

/** The two TypeMeta fields every kind and list carries (no proto number: the envelope holds them). */
export function typeMetaFields(): Record<string, FieldDecl> {
  return {
    apiVersion: f(S, 'Versioned schema of this object: `v1` or `<group>/<version>`.'),
    kind: f(S, 'Type of this object, in CamelCase; fixed per resource type.'),
  };
}

export function namespace(prefix: string, gv: { group: string; version: string }): Namespace {
  const name = (short: string): string => `${prefix}.${short}`;
  const struct = (short: string, description: string, fields: Record<string, FieldDecl>, opts: StructOptions = {}): StructDecl => ({
    name: name(short),
    description,
    fields,
    ...opts,
  });
  return {
    prefix,
    group: gv.group,
    version: gv.version,
    name,
    ref: (short) => ({ kind: 'ref', name: name(short) }),
    struct,
    kind: (short, description, fields, opts = {}) => ({
      ...struct(
        short,
        description,
        {
          ...typeMetaFields(),
          metadata: f({ kind: 'ref', name: OBJECT_META }, 'Standard object metadata: name, namespace, labels, annotations and more.', { proto: 1 }),
          ...fields,
        },
        opts,
      ),
      gvk: { group: gv.group, version: gv.version, kind: short },
    }),
  };
}
