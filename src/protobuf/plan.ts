/**
 * Per-message field tables, compiled once from the loaded .proto sources and
 * the Go presence table. Encoding and decoding walk these arrays instead of
 * asking protobufjs about types at run time.
 */
import protobuf from 'protobufjs';
import { GO_PRESENCE } from './supplement/tables.ts';
import { FIELDS_V1, INT_OR_STRING, isStringListWrapper, LIST_META, MICRO_TIME, QUANTITY, RAW_EXTENSION, TIME } from './well-known.ts';
import { WIRE_BYTES, WIRE_FIXED64, WIRE_VARINT } from './reader.ts';

/** What a field holds, as the codec handles it. */
export const enum Kind {
  String,
  Int32,
  Int64,
  Bool,
  Double,
  Bytes,
  Message,
  Time,
  MicroTime,
  IntOrString,
  Quantity,
  FieldsV1,
  RawExtension,
  StringList,
}

export const enum Card {
  Optional,
  Repeated,
  Map,
}

/**
 * How Go holds the field (see supplement/go-presence.ts): decides whether an
 * absent value is still written, and whether a zero value is printed in JSON.
 */
export const enum Presence {
  /** Value field: always written; JSON always shows it. */
  Value,
  /** Value field with omitempty: always written; JSON drops zero scalars (not structs). */
  ValueOmitEmpty,
  /** Pointer: written when set; JSON shows null when unset. */
  Pointer,
  /** Pointer with omitempty: written when set; absent from JSON when unset. */
  PointerOmitEmpty,
  /** Slice or map: JSON shows null when empty. */
  List,
  /** Slice or map with omitempty. */
  ListOmitEmpty,
  /** []byte: written when non-nil; JSON null when nil. */
  Bytes,
  /** []byte with omitempty. */
  BytesOmitEmpty,
  /** Inline embedded struct: its JSON fields sit in the host object. */
  Inline,
}

export interface FieldPlan {
  readonly name: string;
  readonly number: number;
  readonly kind: Kind;
  readonly card: Card;
  readonly presence: Presence;
  /** Key of the field (or of each element) on the wire: number << 3 | wire type. */
  readonly key: number;
  readonly wireType: number;
  /** Index into the decoder's per-message slot array. */
  readonly index: number;
  /** For Kind.Message (also as map value or list item). */
  message: MessagePlan | undefined;
}

export interface MessagePlan {
  readonly name: string;
  /** In declaration (JSON) order. */
  readonly fields: readonly FieldPlan[];
  /** Ascending field number: the order gogo-protobuf writes. */
  readonly encodeOrder: readonly FieldPlan[];
  /** Field number -> field. */
  readonly byNumber: readonly (FieldPlan | undefined)[];
  /** Encoding of an all-zero value of this message (what Go writes for an unset value struct); filled lazily. */
  zeroBytes: Uint8Array | undefined;
}

const PRESENCE_CODES: Readonly<Record<string, Presence>> = {
  v: Presence.Value,
  V: Presence.ValueOmitEmpty,
  p: Presence.Pointer,
  P: Presence.PointerOmitEmpty,
  l: Presence.List,
  L: Presence.ListOmitEmpty,
  b: Presence.Bytes,
  B: Presence.BytesOmitEmpty,
  i: Presence.Inline,
};

const SCALAR_KINDS: Readonly<Record<string, Kind>> = {
  string: Kind.String,
  int32: Kind.Int32,
  int64: Kind.Int64,
  bool: Kind.Bool,
  double: Kind.Double,
  bytes: Kind.Bytes,
};

const WELL_KNOWN_KINDS: Readonly<Record<string, Kind>> = {
  [TIME]: Kind.Time,
  [MICRO_TIME]: Kind.MicroTime,
  [INT_OR_STRING]: Kind.IntOrString,
  [QUANTITY]: Kind.Quantity,
  [FIELDS_V1]: Kind.FieldsV1,
  [RAW_EXTENSION]: Kind.RawExtension,
};

/** Compiles a plan for every message in the root. */
export function compilePlans(root: protobuf.Root): Map<string, MessagePlan> {
  const types: protobuf.Type[] = [];
  collectTypes(root, types);
  const plans = new Map<string, MessagePlan>();
  const pending: [FieldPlan, string][] = [];
  for (const t of types) {
    const name = t.fullName.slice(1);
    const presence = presenceTable(name, t);
    const fields: FieldPlan[] = t.fieldsArray.map((f, index) => {
      const typeName = f.resolvedType === null ? f.type : f.resolvedType.fullName.slice(1);
      const kind = kindOf(f, typeName);
      const card = f.map ? Card.Map : f.repeated ? Card.Repeated : Card.Optional;
      // Map entries are messages; repeated fields repeat the element's key (proto2, unpacked).
      const wireType = card === Card.Map ? WIRE_BYTES : elementWireType(kind);
      const plan: FieldPlan = {
        name: f.name,
        number: f.id,
        kind,
        card,
        presence: presence.get(f.id) ?? defaultPresence(card, kind),
        key: (f.id << 3) | wireType,
        wireType,
        index,
        message: undefined,
      };
      if (kind === Kind.Message) pending.push([plan, typeName]);
      return plan;
    });
    const byNumber: (FieldPlan | undefined)[] = [];
    for (const f of fields) byNumber[f.number] = f;
    plans.set(name, {
      name,
      fields,
      encodeOrder: [...fields].sort((a, b) => a.number - b.number),
      byNumber,
      zeroBytes: undefined,
    });
  }
  for (const [field, typeName] of pending) {
    const target = plans.get(typeName);
    if (target === undefined) throw new Error(`protobuf: no plan for ${typeName}`);
    field.message = target;
  }
  return plans;
}

/** Wire type of one value of this kind. */
export function elementWireType(kind: Kind): number {
  switch (kind) {
    case Kind.Int32:
    case Kind.Int64:
    case Kind.Bool:
      return WIRE_VARINT;
    case Kind.Double:
      return WIRE_FIXED64;
    default:
      return WIRE_BYTES;
  }
}

function collectTypes(ns: protobuf.NamespaceBase, into: protobuf.Type[]): void {
  for (const o of ns.nestedArray) {
    if (o instanceof protobuf.Type) into.push(o);
    if (o instanceof protobuf.Namespace || o instanceof protobuf.Type) collectTypes(o, into);
  }
}

function kindOf(f: protobuf.Field, typeName: string): Kind {
  const scalar = SCALAR_KINDS[typeName];
  if (scalar !== undefined) return scalar;
  if (f.resolvedType instanceof protobuf.Enum) throw new Error(`protobuf: enums are not used by this API (${f.fullName})`);
  const wellKnown = WELL_KNOWN_KINDS[typeName];
  if (wellKnown !== undefined) return wellKnown;
  if (isStringListWrapper(typeName)) return Kind.StringList;
  if (SCALAR_KINDS[f.type] === undefined && f.resolvedType === null) throw new Error(`protobuf: unresolved type ${f.type} of ${f.fullName}`);
  return Kind.Message;
}

function presenceTable(name: string, t: protobuf.Type): Map<number, Presence> {
  const out = new Map<number, Presence>();
  const codes = GO_PRESENCE[name];
  if (codes !== undefined) {
    for (const token of codes.split(' ')) {
      if (token === '') continue;
      const p = PRESENCE_CODES[token[0]!];
      if (p === undefined) throw new Error(`protobuf: bad presence code ${token} for ${name}`);
      out.set(Number(token.slice(1)), p);
    }
    return out;
  }
  // Every <Kind>List: ListMeta `json:"metadata,omitempty"` (a value) and Items `json:"items"`.
  const meta = t.fieldsById[1];
  const items = t.fieldsById[2];
  if (t.fieldsArray.length === 2 && meta?.resolvedType?.fullName === `.${LIST_META}` && items?.repeated === true) {
    out.set(1, Presence.ValueOmitEmpty);
    out.set(2, Presence.List);
  }
  return out;
}

/** Fields with no Go facts (the well-known messages, the ExtraValue wrappers): written exactly when the JSON has them. */
function defaultPresence(card: Card, kind: Kind): Presence {
  if (card !== Card.Optional) return Presence.ListOmitEmpty;
  return kind === Kind.Bytes ? Presence.BytesOmitEmpty : Presence.PointerOmitEmpty;
}
