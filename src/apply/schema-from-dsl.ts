/**
 * Builds apply schemas from our type declarations (src/openapi), with the
 * rules the original's OpenAPI-to-SMD converter applies to its schemas:
 *
 * - `listType` decides: `atomic`; `set` (associative, no keys); `map`
 *   (associative, keyed by `listMapKeys`). Without one, the legacy
 *   `patchStrategy: merge` reads as a map list keyed by `patchMergeKey` (a set
 *   when there is no merge key); `retainKeys` alone, or nothing, is atomic.
 * - A struct is a map of its declared fields (embedded structs flattened),
 *   atomic when `structType: atomic`; a field's `mapType` overrides the
 *   referenced type's own marker. Structs that keep unknown fields give those
 *   keys the DEDUCED type.
 * - `map(values)` fields are granular maps unless `mapType: atomic`.
 * - `OPAQUE` and `ANY` values are DEDUCED: keys act like struct fields and
 *   lists are atomic, as for custom resources without a schema.
 * - int-or-string, quantities and timestamps are untyped scalars.
 *
 * Types are built lazily and cached per schema set: struct fields resolve on
 * first use, so recursive declarations are fine.
 */
import type { SchemaSet } from '../openapi/schema-set.ts';
import type { FieldDecl, Scalar, TypeExpr } from '../openapi/schema-dsl.ts';
import { DEDUCED, listType, mapType, scalarType, withAtomic, type ScalarKind, type SchemaType } from './schema.ts';
import type { Json } from './value.ts';

/**
 * Defaults of list-map key fields, which our declarations have no marker
 * for. The original declares them with `+default`, and a list item that
 * omits such a key is identified with the default filled in
 * (`k:{"containerPort":80,"protocol":"TCP"}`).
 */
const KEY_DEFAULTS: Readonly<Record<string, Readonly<Record<string, Json>>>> = {
  ContainerPort: { protocol: 'TCP' },
  ServicePort: { protocol: 'TCP' },
};

const SCALARS: Readonly<Record<Scalar, ScalarKind>> = {
  string: 'string',
  byte: 'string',
  int32: 'numeric',
  int64: 'numeric',
  double: 'numeric',
  boolean: 'boolean',
  quantity: 'untyped',
  'int-or-string': 'untyped',
  time: 'untyped',
  'micro-time': 'untyped',
};

class DslAdapter {
  readonly #set: SchemaSet;
  readonly #structs = new Map<string, SchemaType>();

  constructor(set: SchemaSet) {
    this.#set = set;
  }

  struct(name: string): SchemaType {
    const cached = this.#structs.get(name);
    if (cached !== undefined) return cached;
    const decl = this.#set.get(name);
    if (decl === undefined) throw new Error(`unknown schema ${name}`);
    const fields = this.#set.fields(name);
    // null: looked up, not declared. One map lookup per field on the hot path.
    const resolved = new Map<string, SchemaType | null>();
    const defaults = KEY_DEFAULTS[shortName(name)];
    const t = mapType({
      atomic: decl.structType === 'atomic',
      fields: (field) => {
        let ft = resolved.get(field);
        if (ft === undefined) {
          const fd = Object.prototype.hasOwnProperty.call(fields, field) ? fields[field] : undefined;
          ft = fd === undefined ? null : this.field(fd);
          resolved.set(field, ft);
        }
        return ft ?? undefined;
      },
      defaults: (field) => (defaults !== undefined && Object.prototype.hasOwnProperty.call(defaults, field) ? defaults[field] : undefined),
      ...(decl.preserveUnknownFields === true ? { element: DEDUCED } : {}),
    });
    this.#structs.set(name, t);
    return t;
  }

  field(fd: FieldDecl): SchemaType {
    const t = fd.type;
    switch (t.kind) {
      case 'array':
        return listType(this.type(t.items), listMarkers(fd));
      case 'map':
        return mapType({ atomic: fd.mapType === 'atomic', element: this.type(t.values) });
      case 'ref': {
        const st = this.struct(t.name);
        return fd.mapType === undefined ? st : withAtomic(st, fd.mapType === 'atomic');
      }
      default:
        return this.type(t);
    }
  }

  /** A type without field markers: list items, map values, lists of lists. */
  type(t: TypeExpr): SchemaType {
    switch (t.kind) {
      case 'scalar':
        return scalarType(SCALARS[t.scalar]);
      case 'ref':
        return this.struct(t.name);
      case 'array':
        return listType(this.type(t.items), { atomic: true });
      case 'map':
        return mapType({ element: this.type(t.values) });
      default:
        return DEDUCED;
    }
  }
}

/** The original's list rules: listType first, then the legacy patch strategy, else atomic. */
function listMarkers(fd: FieldDecl): { atomic: boolean; keys?: readonly string[] } {
  switch (fd.listType) {
    case 'atomic':
      return { atomic: true };
    case 'set':
      return { atomic: false };
    case 'map':
      return { atomic: false, keys: fd.listMapKeys ?? [] };
    default:
      break;
  }
  const strategies = fd.patchStrategy?.split(',') ?? [];
  if (strategies.includes('merge')) return fd.patchMergeKey === undefined ? { atomic: false } : { atomic: false, keys: [fd.patchMergeKey] };
  return { atomic: true };
}

function shortName(name: string): string {
  return name.slice(name.lastIndexOf('.') + 1);
}

const adapters = new WeakMap<SchemaSet, DslAdapter>();

/**
 * The apply schema of a declared struct, e.g. `schemaFromDsl(served.set,
 * served.kindSchema(gvk))`. Cached per schema set.
 */
export function schemaFromDsl(set: SchemaSet, schemaName: string): SchemaType {
  let a = adapters.get(set);
  if (a === undefined) {
    a = new DslAdapter(set);
    adapters.set(set, a);
  }
  return a.struct(schemaName);
}
