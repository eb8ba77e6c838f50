/**
 * Seed objects for every served kind, generated from the schema DSL the
 * OpenAPI documents come from (src/openapi/types): each field gets a value of
 * its declared type, required fields always, optional ones near the top at
 * random. The values are well-typed, not necessarily valid (validation may
 * still answer 422): they are the starting points the mutators change.
 */
import fc from 'fast-check';
import type { FieldDecl, Scalar, TypeExpr } from '../../../src/openapi/schema-dsl.ts';
import { SchemaSet } from '../../../src/openapi/schema-set.ts';
import { servedSchemas } from '../../../src/openapi/served-schemas.ts';
import type { ResourceType } from '../../../src/registry/resource-type.ts';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** Below this depth optional fields may appear; deeper, only required ones (keeps seeds small). */
const OPTIONAL_DEPTH = 2;
/** Past this depth a struct is empty even if it has required fields (recursive types). */
const MAX_DEPTH = 7;

/** A short DNS-label-ish word: most names, keys and values in seeds. */
export const word = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}[a-z0-9]$/);

/** A few object names shared by all cases, so that creates collide and updates find their target. */
export const NAMES = ['fuzz-a', 'fuzz-b', 'fuzz-c'] as const;
export const nameArb = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...NAMES) }, { weight: 1, arbitrary: word });

const base64 = fc.uint8Array({ maxLength: 24 }).map((b) => Buffer.from(b).toString('base64'));

function scalarArb(s: Scalar): fc.Arbitrary<Json> {
  switch (s) {
    case 'string':
      return fc.oneof(word, fc.constantFrom('', 'nginx', 'TCP', 'True', 'Always'));
    case 'int32':
    case 'int64':
      return fc.integer({ min: 0, max: 100 });
    case 'double':
      return fc.double({ min: 0, max: 100, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'byte':
      return base64;
    case 'quantity':
      return fc.constantFrom('1', '100m', '1Gi', '0.5', '2');
    case 'int-or-string':
      return fc.oneof(fc.integer({ min: 1, max: 65535 }), fc.constantFrom('80', 'http', '25%'));
    case 'time':
      return fc.constant('2024-01-02T03:04:05Z');
    case 'micro-time':
      return fc.constant('2024-01-02T03:04:05.000006Z');
  }
}

const smallJson: fc.Arbitrary<Json> = fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>;

export class SeedSchemas {
  readonly #set: SchemaSet;
  readonly #schemaOf = new Map<ResourceType, string>();
  readonly #memo = new Map<string, fc.Arbitrary<Json>>();

  constructor(types: readonly ResourceType[]) {
    const served = servedSchemas(types);
    this.#set = served.set;
    for (const rt of types) this.#schemaOf.set(rt, served.kindSchema({ group: rt.group, version: rt.version, kind: rt.kind }));
  }

  /** A well-typed object of `rt`'s kind with the given metadata. */
  objectOf(rt: ResourceType, metadata: fc.Arbitrary<JsonObject>): fc.Arbitrary<JsonObject> {
    const schema = this.#schemaOf.get(rt);
    const body = schema === undefined ? fc.constant({} as JsonObject) : (this.#struct(schema, 0) as fc.Arbitrary<JsonObject>);
    return fc.tuple(body, metadata).map(([b, m]) => ({ ...b, apiVersion: rt.apiVersion, kind: rt.kind, metadata: m }));
  }

  #struct(name: string, depth: number): fc.Arbitrary<Json> {
    const key = `${name}@${depth}`;
    const cached = this.#memo.get(key);
    if (cached !== undefined) return cached;
    if (depth >= MAX_DEPTH) return fc.constant({});
    const decl = this.#set.get(name);
    if (decl === undefined) return fc.constant({});
    const fields = this.#set.fields(name);
    const model: Record<string, fc.Arbitrary<Json>> = {};
    const required: string[] = [];
    for (const [field, fd] of Object.entries(fields)) {
      if (field === 'apiVersion' || field === 'kind' || field === 'metadata') continue;
      if (fd.required) required.push(field);
      else if (depth >= OPTIONAL_DEPTH) continue;
      model[field] = fc.constant(null).chain(() => this.#field(fd, depth + 1));
    }
    const arb = fc.record(model, { requiredKeys: required }) as fc.Arbitrary<Json>;
    this.#memo.set(key, arb);
    return arb;
  }

  #field(fd: FieldDecl, depth: number): fc.Arbitrary<Json> {
    if (fd.enum !== undefined && fd.enum.length > 0) return fc.constantFrom(...fd.enum);
    return this.#type(fd.type, depth);
  }

  #type(t: TypeExpr, depth: number): fc.Arbitrary<Json> {
    switch (t.kind) {
      case 'scalar':
        return scalarArb(t.scalar);
      case 'ref':
        return this.#struct(t.name, depth);
      case 'array':
        return fc.array(this.#type(t.items, depth + 1), { maxLength: depth < OPTIONAL_DEPTH + 1 ? 2 : 1 });
      case 'map':
        return fc.dictionary(word, this.#type(t.values, depth + 1), { maxKeys: 2 }) as fc.Arbitrary<Json>;
      case 'any':
        return smallJson;
      case 'opaque':
        return fc.dictionary(word, smallJson, { maxKeys: 2 }) as fc.Arbitrary<Json>;
    }
  }
}

/** Metadata a client would send: a name from the shared pool, sometimes labels and annotations. */
export const metadataArb: fc.Arbitrary<JsonObject> = fc.record(
  {
    name: nameArb,
    labels: fc.dictionary(word, word, { maxKeys: 2 }),
    annotations: fc.dictionary(word, fc.string({ maxLength: 20 }), { maxKeys: 2 }),
  },
  { requiredKeys: ['name'] },
) as fc.Arbitrary<JsonObject>;
