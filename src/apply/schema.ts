/**
 * The schema server-side apply works with, shaped like the original's
 * `schema` package: every type is an atom that may accept a scalar, a list
 * and/or a map. Lists are atomic or associative (a `set` when they have no
 * keys, a `map` list when they do); maps (structs included) are atomic or
 * separable ("granular"). Structs are maps with declared fields; their other
 * keys take the element type, or are not allowed when there is none.
 *
 * Two shared types stand for values nobody described, as in the original:
 * UNTYPED_ATOMIC (replaced as a whole at every level) and DEDUCED (maps are
 * granular, lists atomic: what custom resources without a schema get).
 *
 * `schema-dsl-adapter.ts` builds these from our declarations.
 */
import type { Json } from './value.ts';

/** What a scalar must be; `untyped` takes any scalar (int-or-string, quantities, times). */
export type ScalarKind = 'string' | 'numeric' | 'boolean' | 'untyped';

export interface SchemaType {
  /** Set when the type accepts scalars. */
  readonly scalar?: ScalarKind | undefined;
  readonly list?: ListSchema | undefined;
  readonly map?: MapSchema | undefined;
}

export interface ListSchema {
  /** Replaced and owned as a whole. */
  readonly atomic: boolean;
  /**
   * For an associative list: the item fields that identify an item (a `map`
   * list), or none (a `set` of scalars). Ignored when atomic.
   */
  readonly keys: readonly string[];
  readonly element: SchemaType;
}

export interface MapSchema {
  /** Replaced and owned as a whole. */
  readonly atomic: boolean;
  /** The declared field `name`, or undefined. */
  field(name: string): SchemaType | undefined;
  /** Default of a declared field: a missing list-map key takes it. */
  fieldDefault(name: string): Json | undefined;
  /** The type of keys that are not declared fields; undefined: such keys are not allowed. */
  readonly element: SchemaType | undefined;
  /** No declared fields and DEDUCED elements: the original skips these when reconciling topology. */
  readonly deduced: boolean;
}

const NO_FIELD = (): undefined => undefined;

/** A scalar type. */
export function scalarType(kind: ScalarKind): SchemaType {
  return { scalar: kind };
}

export interface ListOptions {
  readonly atomic?: boolean;
  readonly keys?: readonly string[];
}

/** A list of `element`: associative unless `atomic`; a map list when it has `keys`. */
export function listType(element: SchemaType, opts: ListOptions = {}): SchemaType {
  return { list: { atomic: opts.atomic ?? false, keys: opts.keys ?? [], element } };
}

export interface MapOptions {
  readonly atomic?: boolean;
  /** Declared fields, resolved on first use (types may be recursive). */
  readonly fields?: (name: string) => SchemaType | undefined;
  readonly defaults?: (name: string) => Json | undefined;
  readonly element?: SchemaType;
}

/** A map or struct. */
export function mapType(opts: MapOptions): SchemaType {
  return {
    map: {
      atomic: opts.atomic ?? false,
      field: opts.fields ?? NO_FIELD,
      fieldDefault: opts.defaults ?? NO_FIELD,
      element: opts.element,
      deduced: opts.fields === undefined && opts.element === DEDUCED,
    },
  };
}

/** The same type with its map or list made atomic or granular (a field-level marker overriding the type's own). */
export function withAtomic(t: SchemaType, atomic: boolean): SchemaType {
  if (t.map !== undefined) return { ...t, map: { ...t.map, atomic } };
  if (t.list !== undefined) return { ...t, list: { ...t.list, atomic } };
  return t;
}

interface MutableType {
  scalar?: ScalarKind;
  list?: ListSchema;
  map?: MapSchema;
}

/** Any value, replaced as a whole at every level (the original's `__untyped_atomic_`). */
export const UNTYPED_ATOMIC: SchemaType = (() => {
  const t: MutableType = { scalar: 'untyped' };
  t.list = { atomic: true, keys: [], element: t };
  t.map = { atomic: true, field: NO_FIELD, fieldDefault: NO_FIELD, element: t, deduced: false };
  return t;
})();

/** Any value: maps are granular with keys as fields, lists atomic (the original's `__untyped_deduced_`). */
export const DEDUCED: SchemaType = (() => {
  const t: MutableType = { scalar: 'untyped', list: { atomic: true, keys: [], element: UNTYPED_ATOMIC } };
  t.map = { atomic: false, field: NO_FIELD, fieldDefault: NO_FIELD, element: t, deduced: true };
  return t;
})();
