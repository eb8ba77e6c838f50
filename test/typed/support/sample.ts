/**
 * A well-typed object of a declared kind with every field set (nested
 * structs down to a depth), generated from the schema DSL: the widest object
 * a client can send, for round trips through every representation.
 */
import type { SchemaSet } from '../../../src/openapi/schema-set.ts';
import type { Scalar, TypeExpr } from '../../../src/openapi/schema-dsl.ts';

const SCALARS: Readonly<Record<Scalar, unknown>> = {
  string: 'a',
  int32: 7,
  int64: 9,
  double: 1.5,
  boolean: true,
  byte: 'aGk=',
  quantity: '250m',
  'int-or-string': 8080,
  time: '2024-01-02T03:04:05Z',
  'micro-time': '2024-01-02T03:04:05.123456Z',
};

export function sampleOf(set: SchemaSet, name: string, depth = 0, maxDepth = 7): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (depth > maxDepth) return out;
  for (const [field, decl] of Object.entries(set.fields(name))) {
    if (field === 'apiVersion' || field === 'kind') continue;
    const v = valueOf(set, decl.type, depth + 1, maxDepth, decl.enum?.[0]);
    if (v !== undefined) out[field] = v;
  }
  return out;
}

function valueOf(set: SchemaSet, t: TypeExpr, depth: number, maxDepth: number, enumValue: string | undefined): unknown {
  switch (t.kind) {
    case 'scalar':
      return t.scalar === 'string' && enumValue !== undefined ? enumValue : SCALARS[t.scalar];
    case 'ref':
      return sampleOf(set, t.name, depth, maxDepth);
    case 'array': {
      const item = valueOf(set, t.items, depth + 1, maxDepth, enumValue);
      return item === undefined ? [] : [item];
    }
    case 'map': {
      const value = valueOf(set, t.values, depth + 1, maxDepth, enumValue);
      return value === undefined ? {} : { k: value };
    }
    default:
      // An OPAQUE or ANY field: an empty object is a valid value of whatever type it stands for (fields
      // the original's type lacks are dropped by the decoder, as the original drops them).
      return {};
  }
}
