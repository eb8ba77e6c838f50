/**
 * What strategic merge patch needs to know about a type: for each field, its
 * patch strategy and merge key, and the schema below it. This is the
 * original's LookupPatchMeta (there read from Go struct tags); ours is read
 * from the declarations in src/openapi (`patchStrategy`, `patchMergeKey`).
 * `listType`/`listMapKeys`/`mapType` do not matter here: they drive
 * server-side apply, and a list without `patchStrategy: merge` is replaced
 * whole by a strategic merge patch even when it is a `map` list.
 */
import type { SchemaSet } from '../openapi/schema-set.ts';
import type { StructDecl, TypeExpr } from '../openapi/schema-dsl.ts';
import { hasOwn } from './json-value.ts';
import { unclassifiedPatchError } from './patch-error.ts';

export interface PatchMeta {
  /** `patchStrategy` split on commas: [], ['merge'], ['replace'], ['retainKeys'], ['merge', 'retainKeys']. */
  readonly strategies: readonly string[];
  /** `patchMergeKey`; '' when the field has none. */
  readonly mergeKey: string;
}

export interface FieldLookup {
  readonly meta: PatchMeta;
  /** Schema of the field's value; for a list, of its items; for a map, of its values. */
  readonly schema: SchemaLookup;
}

export interface SchemaLookup {
  /**
   * `struct`: a declared type, whose unknown fields are an error (as in the
   * original); `map`: every key has the same value schema; `unknown`: no
   * metadata at this level or below (opaque objects, free-form JSON).
   */
  readonly kind: 'struct' | 'map' | 'unknown';
  /** Name used in error messages (the original prints the Go kind: `struct`, `map`). */
  readonly name: string;
  /** Looks up field `key`; throws a PatchError for a field a struct does not declare. */
  field(key: string): FieldLookup;
}

export const NO_PATCH_META: PatchMeta = { strategies: [], mergeKey: '' };

/** A schema that knows nothing: every field merges as a plain map and replaces lists whole. */
export const UNKNOWN_SCHEMA: SchemaLookup = {
  kind: 'unknown',
  name: 'interface',
  field: () => ({ meta: NO_PATCH_META, schema: UNKNOWN_SCHEMA }),
};

/** Follows a path of field names (list items and map values need no step of their own). */
export function lookupPath(schema: SchemaLookup, path: readonly string[]): FieldLookup {
  let found: FieldLookup = { meta: NO_PATCH_META, schema };
  for (const key of path) found = found.schema.field(key);
  return found;
}

/**
 * The lookup for a declared schema (`io.<product>.api.core.v1.Pod`) of a schema
 * set, e.g. `servedSchemas(...).set` with `kindSchema(gvk)`. Structs marked
 * `preserveUnknownFields` (kinds we do not describe) answer `unknown` for
 * fields they do not list instead of failing.
 */
export function schemaLookupFor(set: SchemaSet, rootSchemaName: string): SchemaLookup {
  if (set.get(rootSchemaName) === undefined) throw new Error(`unknown schema ${rootSchemaName}`);
  const structs = new Map<string, SchemaLookup>();
  const forType = (t: TypeExpr): SchemaLookup => {
    switch (t.kind) {
      case 'ref':
        return forStruct(t.name);
      case 'array':
        return forType(t.items);
      case 'map': {
        const values = forType(t.values);
        return { kind: 'map', name: 'map', field: () => ({ meta: NO_PATCH_META, schema: values }) };
      }
      default:
        return UNKNOWN_SCHEMA;
    }
  };
  const forStruct = (name: string): SchemaLookup => {
    const cached = structs.get(name);
    if (cached !== undefined) return cached;
    const decl = set.get(name)!;
    const fields = set.fields(name);
    const lookup: SchemaLookup = {
      kind: 'struct',
      name: 'struct',
      field: (key) => {
        if (!hasOwn(fields, key)) {
          if (decl.preserveUnknownFields === true) return { meta: NO_PATCH_META, schema: UNKNOWN_SCHEMA };
          throw unclassifiedPatchError(`unable to find api field in struct ${shortName(decl)} for the json field "${key}"`);
        }
        const f = fields[key]!;
        return {
          meta: { strategies: f.patchStrategy === undefined ? [] : f.patchStrategy.split(','), mergeKey: f.patchMergeKey ?? '' },
          schema: forType(f.type),
        };
      },
    };
    structs.set(name, lookup);
    return lookup;
  };
  return forStruct(rootSchemaName);
}

/** Go's reflect type name: the last segment of `io.<product>.api.core.v1.PodSpec`. */
function shortName(decl: StructDecl): string {
  const dot = decl.name.lastIndexOf('.');
  return dot < 0 ? decl.name : decl.name.slice(dot + 1);
}
