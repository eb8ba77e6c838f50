/**
 * Renders struct declarations as OpenAPI schemas, in the v2 (`definitions`)
 * or v3 (`components.schemas`) dialect, the way the original shapes them:
 * v3 wraps a described reference in `allOf` (siblings of `$ref` are ignored
 * there), v2 puts the description next to `$ref`. Markers become extensions
 * in both spellings. Rendered schemas are cached: one renderer serves every
 * document of a build.
 */
import type { FieldDecl, Scalar, StructDecl, TypeExpr } from './schema-dsl.ts';
import type { SchemaSet } from './schema-set.ts';
import { setExtension, type JsonObject } from './extensions.ts';
import { gvkJson } from './gvk.ts';
import { publicSchemaName, INTERNAL_SCHEMA_PREFIX } from '../naming/index.ts';

export type Dialect = 'v2' | 'v3';

/** Scalars that, as in the original, are named components rather than inline types. */
const NAMED_SCALARS: Partial<Record<Scalar, { name: string; description: string; v2: JsonObject; v3: JsonObject }>> = {
  quantity: {
    name: `${INTERNAL_SCHEMA_PREFIX}.apimachinery.pkg.api.resource.Quantity`,
    description: 'A decimal amount with an optional SI or binary suffix, such as `100m`, `1.5`, `2Gi`.',
    v2: { type: 'string' },
    v3: { oneOf: [{ type: 'string' }, { type: 'number' }] },
  },
  'int-or-string': {
    name: `${INTERNAL_SCHEMA_PREFIX}.apimachinery.pkg.util.intstr.IntOrString`,
    description: 'Either an integer or a string, such as a port number or a port name.',
    v2: { type: 'string', format: 'int-or-string' },
    v3: { format: 'int-or-string', oneOf: [{ type: 'integer' }, { type: 'string' }] },
  },
  time: {
    name: `${INTERNAL_SCHEMA_PREFIX}.apimachinery.pkg.apis.meta.v1.Time`,
    description: 'A timestamp in RFC 3339 form, to the second.',
    v2: { type: 'string', format: 'date-time' },
    v3: { type: 'string', format: 'date-time' },
  },
  'micro-time': {
    name: `${INTERNAL_SCHEMA_PREFIX}.apimachinery.pkg.apis.meta.v1.MicroTime`,
    description: 'A timestamp in RFC 3339 form, to the microsecond.',
    v2: { type: 'string', format: 'date-time' },
    v3: { type: 'string', format: 'date-time' },
  },
};

const INLINE_SCALARS: Record<string, JsonObject> = {
  string: { type: 'string' },
  int32: { type: 'integer', format: 'int32' },
  int64: { type: 'integer', format: 'int64' },
  double: { type: 'number', format: 'double' },
  boolean: { type: 'boolean' },
  byte: { type: 'string', format: 'byte' },
};

export class SchemaRenderer {
  readonly #set: SchemaSet;
  readonly #dialect: Dialect;
  readonly #refPrefix: string;
  readonly #cache = new Map<string, JsonObject>();
  /** Named scalar components each struct uses, to add them to a document. */
  readonly #scalarsUsed = new Map<string, Set<string>>();

  constructor(set: SchemaSet, dialect: Dialect) {
    this.#set = set;
    this.#dialect = dialect;
    this.#refPrefix = dialect === 'v3' ? '#/components/schemas/' : '#/definitions/';
  }

  refTo(name: string): JsonObject {
    return { $ref: this.#refPrefix + publicSchemaName(name) };
  }

  /** Every schema a document needs for `roots`, keyed by name, in name order. */
  schemasFor(roots: Iterable<string>): Record<string, JsonObject> {
    const names = new Set(this.#set.closure(roots));
    const scalars = new Set<string>();
    for (const n of names) {
      this.#struct(n);
      for (const s of this.#scalarsUsed.get(n) ?? []) scalars.add(s);
    }
    const out: Record<string, JsonObject> = {};
    for (const n of [...names, ...scalars].sort()) out[publicSchemaName(n)] = this.#cache.get(n) ?? this.#scalarComponent(n);
    return out;
  }

  #struct(name: string): JsonObject {
    const cached = this.#cache.get(name);
    if (cached !== undefined) return cached;
    const decl = this.#set.get(name) as StructDecl;
    const used = new Set<string>();
    const properties: JsonObject = {};
    const required: string[] = [];
    for (const [field, fd] of Object.entries(this.#set.fields(name))) {
      properties[field] = this.#field(fd, used);
      if (fd.required === true) required.push(field);
    }
    const out: JsonObject = { description: decl.description, type: 'object' };
    if (required.length > 0) out['required'] = required;
    if (Object.keys(properties).length > 0) out['properties'] = properties;
    if (decl.structType !== undefined) setExtension(out, 'map-type', decl.structType);
    if (decl.preserveUnknownFields === true) setExtension(out, 'preserve-unknown-fields', true);
    if (decl.gvk !== undefined) setExtension(out, 'group-version-kind', [gvkJson(decl.gvk)]);
    this.#cache.set(name, out);
    this.#scalarsUsed.set(name, used);
    return out;
  }

  #field(fd: FieldDecl, used: Set<string>): JsonObject {
    const out = this.#described(fd.type, fd.description, used);
    if (fd.enum !== undefined) {
      const target = fd.type.kind === 'array' ? (out['items'] as JsonObject) : out;
      target['enum'] = [...fd.enum];
    }
    if (fd.listType !== undefined) setExtension(out, 'list-type', fd.listType);
    if (fd.listMapKeys !== undefined) setExtension(out, 'list-map-keys', [...fd.listMapKeys]);
    if (fd.patchMergeKey !== undefined) setExtension(out, 'patch-merge-key', fd.patchMergeKey);
    if (fd.patchStrategy !== undefined) setExtension(out, 'patch-strategy', fd.patchStrategy);
    if (fd.mapType !== undefined) setExtension(out, 'map-type', fd.mapType);
    return out;
  }

  /** A field's schema with its description attached the way the dialect allows. */
  #described(t: TypeExpr, description: string, used: Set<string>): JsonObject {
    const bare = this.#type(t, used);
    if (bare['$ref'] === undefined) return { description, ...bare };
    return this.#dialect === 'v3' ? { description, allOf: [bare] } : { description, ...bare };
  }

  /** A type without description: what array items and map values use. */
  #type(t: TypeExpr, used: Set<string>): JsonObject {
    switch (t.kind) {
      case 'scalar': {
        const named = NAMED_SCALARS[t.scalar];
        if (named !== undefined) {
          used.add(named.name);
          return this.refTo(named.name);
        }
        return { ...INLINE_SCALARS[t.scalar]! };
      }
      case 'ref':
        return this.refTo(t.name);
      case 'array':
        return { type: 'array', items: this.#type(t.items, used) };
      case 'map':
        return { type: 'object', additionalProperties: this.#type(t.values, used) };
      case 'any': {
        const out: JsonObject = {};
        setExtension(out, 'preserve-unknown-fields', true);
        return out;
      }
      case 'opaque': {
        const out: JsonObject = { type: 'object' };
        setExtension(out, 'preserve-unknown-fields', true);
        return out;
      }
    }
  }

  #scalarComponent(name: string): JsonObject {
    for (const s of Object.values(NAMED_SCALARS)) {
      if (s.name === name) return { description: s.description, ...(this.#dialect === 'v3' ? s.v3 : s.v2) };
    }
    throw new Error(`unknown schema ${name}`);
  }
}
