/**
 * The Protobuf model: every message with its fields, numbers and types, built
 * from the schema DSL (src/openapi/types), the supplement for what the DSL
 * leaves OPAQUE, a `<Kind>List` for every kind, and the well-known messages.
 * scripts/gen-proto.ts renders it to proto/; the codec reads those files back.
 */
import type { StructDecl, TypeExpr } from '../openapi/schema-dsl.ts';
import { ALL_TYPES } from '../openapi/types/index.ts';
import { KINDS_WITHOUT_LIST, OPAQUE_FIELD_TYPES, SUPPLEMENT_MESSAGES } from './supplement/tables.ts';
import { LIST_META, STRING_LIST_WRAPPER, WELL_KNOWN_BY_ALIAS, WELL_KNOWN_MESSAGES } from './well-known.ts';

export type Cardinality = 'optional' | 'repeated' | 'map';

export interface ProtoField {
  /** The JSON name (for an inline embedded struct: a name of our choosing; JSON does not show it). */
  readonly name: string;
  readonly number: number;
  readonly cardinality: Cardinality;
  /** A scalar (`string`, `int32`, `int64`, `bool`, `double`, `bytes`) or a message's full name. */
  readonly type: string;
  /** Go's inline embedding: the message's JSON fields sit in the host object. */
  readonly inline: boolean;
}

export interface ProtoMessage {
  /** Full name, such as `io.<product>.api.core.v1.Pod`; the package is everything before the last dot. */
  readonly name: string;
  readonly fields: readonly ProtoField[];
  readonly comment?: string;
}

const SCALARS: Readonly<Record<string, string>> = {
  string: 'string',
  int32: 'int32',
  int64: 'int64',
  boolean: 'bool',
  double: 'double',
  byte: 'bytes',
};
const PROTO_SCALARS = new Set(['string', 'int32', 'int64', 'bool', 'double', 'bytes']);

export function packageOf(fullName: string): string {
  return fullName.slice(0, fullName.lastIndexOf('.'));
}

function shortName(fullName: string): string {
  return fullName.slice(fullName.lastIndexOf('.') + 1);
}

function lowerFirst(s: string): string {
  return s.length === 0 ? s : s[0]!.toLowerCase() + s.slice(1);
}

/** Builds the model; throws on anything the generator could not render faithfully. */
export function buildProtoModel(decls: readonly StructDecl[] = ALL_TYPES): Map<string, ProtoMessage> {
  const out = new Map<string, ProtoMessage>();
  const add = (m: ProtoMessage): void => {
    if (out.has(m.name)) throw new Error(`protobuf model: message ${m.name} defined twice`);
    out.set(m.name, m);
  };
  const wrappers = new Set<string>();

  for (const d of decls) {
    add({ name: d.name, comment: d.description, fields: structFields(d, wrappers) });
    if (d.gvk !== undefined && !KINDS_WITHOUT_LIST.has(d.name)) {
      add({
        name: `${d.name}List`,
        comment: `A list of ${d.gvk.kind} objects.`,
        fields: [
          { name: 'metadata', number: 1, cardinality: 'optional', type: LIST_META, inline: false },
          { name: 'items', number: 2, cardinality: 'repeated', type: d.name, inline: false },
        ],
      });
    }
  }
  for (const w of wrappers) {
    add({
      name: w,
      comment: 'A list of strings (Go: a named []string); JSON shows the array itself.',
      fields: [{ name: 'items', number: 1, cardinality: 'repeated', type: 'string', inline: false }],
    });
  }
  for (const [name, rows] of Object.entries(SUPPLEMENT_MESSAGES)) {
    add({
      name,
      comment: 'Not described by the schema DSL; shape from the supplement table.',
      fields: rows.map(([fieldName, number, type]) => ({ name: fieldName, number, ...parseRowType(type), inline: false })),
    });
  }
  for (const m of WELL_KNOWN_MESSAGES) add(m);
  check(out);
  return out;
}

function structFields(d: StructDecl, wrappers: Set<string>): ProtoField[] {
  const own: ProtoField[] = [];
  for (const [name, decl] of Object.entries(d.fields)) {
    // apiVersion and kind have no number: the envelope carries them.
    if (decl.proto === undefined) continue;
    own.push({ name, number: decl.proto, ...fieldType(d, name, decl.type, wrappers), inline: false });
  }
  // Go declares an embedded struct where its number falls; JSON key order follows Go's.
  const fields = [...own];
  for (const e of d.embeds ?? []) {
    if (e.proto === undefined) throw new Error(`protobuf model: ${d.name} embeds ${e.name} without a field number`);
    const field: ProtoField = { name: lowerFirst(shortName(e.name)), number: e.proto, cardinality: 'optional', type: e.name, inline: true };
    const at = fields.findIndex((f) => f.number > e.proto!);
    fields.splice(at === -1 ? fields.length : at, 0, field);
  }
  return fields;
}

function fieldType(d: StructDecl, field: string, t: TypeExpr, wrappers: Set<string>): Pick<ProtoField, 'cardinality' | 'type'> {
  if (t.kind === 'opaque' || t.kind === 'any' || ((t.kind === 'array' || t.kind === 'map') && (inner(t).kind === 'opaque' || inner(t).kind === 'any'))) {
    const row = OPAQUE_FIELD_TYPES[d.name]?.[field];
    if (row === undefined) throw new Error(`protobuf model: ${d.name}.${field} is OPAQUE and the supplement has no type for it`);
    return parseRowType(row);
  }
  if (t.kind === 'array' || t.kind === 'map') {
    const cardinality = t.kind === 'array' ? 'repeated' : 'map';
    const item = inner(t);
    if (item.kind === 'array') {
      // map[string]ExtraValue: the original wraps the inner list in a message.
      if (item.items.kind !== 'scalar' || item.items.scalar !== 'string') throw new Error(`protobuf model: ${d.name}.${field}: nested list of non-strings`);
      const wrapper = `${packageOf(d.name)}.${STRING_LIST_WRAPPER}`;
      wrappers.add(wrapper);
      return { cardinality, type: wrapper };
    }
    if (item.kind === 'map') throw new Error(`protobuf model: ${d.name}.${field}: nested map`);
    return { cardinality, type: singleType(d, field, item) };
  }
  return { cardinality: 'optional', type: singleType(d, field, t) };
}

function inner(t: TypeExpr): TypeExpr {
  return t.kind === 'array' ? t.items : t.kind === 'map' ? t.values : t;
}

function singleType(d: StructDecl, field: string, t: TypeExpr): string {
  if (t.kind === 'ref') return t.name;
  if (t.kind === 'scalar') return SCALARS[t.scalar] ?? WELL_KNOWN_BY_ALIAS[t.scalar] ?? fail(`${d.name}.${field}: scalar ${t.scalar}`);
  return fail(`${d.name}.${field}: type ${t.kind}`);
}

function parseRowType(type: string): Pick<ProtoField, 'cardinality' | 'type'> {
  const cardinality: Cardinality = type.startsWith('[]') ? 'repeated' : type.startsWith('{}') ? 'map' : 'optional';
  const bare = cardinality === 'optional' ? type : type.slice(2);
  return { cardinality, type: WELL_KNOWN_BY_ALIAS[bare] ?? bare };
}

function check(messages: Map<string, ProtoMessage>): void {
  for (const m of messages.values()) {
    const numbers = new Set<number>();
    for (const f of m.fields) {
      if (numbers.has(f.number)) throw new Error(`protobuf model: ${m.name} uses field number ${f.number} twice`);
      numbers.add(f.number);
      if (!PROTO_SCALARS.has(f.type) && !messages.has(f.type)) throw new Error(`protobuf model: ${m.name}.${f.name} references unknown ${f.type}`);
    }
  }
}

function fail(what: string): never {
  throw new Error(`protobuf model: cannot map ${what}`);
}
