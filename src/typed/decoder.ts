/**
 * Typed decoding: a JSON object checked against its kind's declared schema
 * (src/openapi/types) the way the original decodes a body into its Go
 * struct, before any strategy sees it. A value of the wrong JSON type, an
 * integer out of its range, bad base64, a time that is not RFC 3339, a
 * quantity that does not parse: a TypedDecodeError with the original's
 * message. Fields the schema does not declare are dropped (the original's
 * struct has nowhere to keep them) and reported for `fieldValidation`.
 * `OPAQUE`/`ANY` values and kinds that preserve unknown fields stay as sent;
 * where the Protobuf supplement knows the original's type of an OPAQUE field
 * (a volume source, an Ingress spec), it is decoded as that type (checked,
 * unknown fields dropped), or the object could not be served as Protobuf.
 *
 * One checker per struct is compiled once from the declarations (the server
 * compiles every kind at start, see PatchSchemas); a decode is one walk over
 * the object with no allocation unless something is wrong.
 */
import type { SchemaSet } from '../openapi/schema-set.ts';
import type { Scalar, TypeExpr } from '../openapi/schema-dsl.ts';
import { parseRfc3339 } from '../protobuf/time.ts';
import { OPAQUE_FIELD_TYPES, SUPPLEMENT_MESSAGES, GO_PRESENCE } from '../protobuf/supplement/tables.ts';
import { MAX_NESTING_DEPTH, valueDepthExceeded } from './depth.ts';
import {
  base64Error,
  canonicalBase64,
  goShortName,
  goStructName,
  goValueWord,
  QUANTITY_MESSAGE,
  QUANTITY_PATTERN,
  RFC3339_LAYOUT,
  RFC3339_MICRO_LAYOUT,
  timeParseMessage,
  unmarshalTypeMessage,
} from './go-json.ts';
import { pushAll } from '../api/push-all.ts';

/** A value the kind's schema cannot hold; the message is the original's decoder error. */
export class TypedDecodeError extends Error {}

/** Walk state: where we are (for messages) and what was dropped. */
const NO_REPLACEMENT: unique symbol = Symbol('no replacement');

class Cursor {
  /** Field names and item indices from the root. */
  readonly path: (string | number)[] = [];
  /** The innermost struct, as Go names it in errors. */
  struct = '';
  readonly unknown: string[] = [];
  /**
   * A value the last check wants in place of the one it was given (a
   * quantity sent as a JSON number becomes its string, as the original's
   * Quantity stores it); NO_REPLACEMENT otherwise. Containers take it.
   */
  replacement: unknown = NO_REPLACEMENT;

  typeError(v: unknown, goType: string, withNumber = false): TypedDecodeError {
    return new TypedDecodeError(unmarshalTypeMessage(goValueWord(v, withNumber), this.struct, this.fieldPath(), goType));
  }

  /** Go's error path: field names only, dot-joined. */
  fieldPath(): string {
    let p = '';
    for (const s of this.path) if (typeof s === 'string') p = p === '' ? s : `${p}.${s}`;
    return p;
  }

  /** sigs.k8s.io/json's unknown-field path: `spec.containers[0].foo`. */
  fullPath(last: string): string {
    let p = '';
    for (const s of this.path) p += typeof s === 'number' ? `[${s}]` : p === '' ? s : `.${s}`;
    return p === '' ? last : `${p}.${last}`;
  }

  checkDepth(v: unknown): void {
    if (typeof v === 'object' && v !== null && valueDepthExceeded(v, this.path.length)) {
      throw new TypedDecodeError(`json: ${this.fieldPath() || 'the object'} is nested more than ${MAX_NESTING_DEPTH} levels deep`);
    }
  }
}

type Check = (v: unknown, c: Cursor) => void;

export interface KindDecoder {
  /**
   * Checks `obj` in place against the kind's schema and removes the fields
   * the schema does not declare; returns their paths. Throws
   * TypedDecodeError when a value cannot be held.
   */
  decode(obj: Record<string, unknown>): string[];
}

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
/** 2^63: int64 holds [-2^63, 2^63). */
const INT64_LIMIT = 9223372036854775808;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Compiles and keeps one checker per declared struct. */
export class TypedDecoders {
  readonly #set: SchemaSet;
  readonly #structs = new Map<string, Check>();
  readonly #kinds = new Map<string, KindDecoder>();

  constructor(set: SchemaSet) {
    this.#set = set;
  }

  /** The decoder of a top-level schema (a kind), built on first use and kept. */
  forSchema(name: string): KindDecoder {
    let d = this.#kinds.get(name);
    if (d === undefined) {
      const check = this.#struct(name);
      d = {
        decode(obj: Record<string, unknown>): string[] {
          const c = new Cursor();
          check(obj, c);
          return c.unknown;
        },
      };
      this.#kinds.set(name, d);
    }
    return d;
  }

  /** Compiles every declared kind now (the server calls this at start). */
  compileAll(names: Iterable<string>): void {
    for (const n of names) this.forSchema(n);
  }

  #struct(name: string): Check {
    const known = this.#structs.get(name);
    if (known !== undefined) return known;
    const decl = this.#set.get(name);
    if (decl === undefined) throw new Error(`unknown schema ${name}`);
    let fields: Map<string, Check> | undefined;
    const resolve = (): Map<string, Check> => {
      const m = new Map<string, Check>();
      for (const [field, fd] of Object.entries(this.#set.fields(name))) {
        const original = this.#opaqueType(name, field);
        m.set(field, original !== undefined ? this.#row(original) : this.#type(fd.type));
      }
      fields = m;
      return m;
    };
    const check = structCheck(name, decl.preserveUnknownFields === true, () => fields ?? resolve());
    this.#structs.set(name, check);
    // Registered first, so a recursive reference finds this checker while its fields compile.
    resolve();
    return check;
  }

  /** The original's type of an OPAQUE field, as the Protobuf supplement records it (embedded structs included). */
  #opaqueType(name: string, field: string): string | undefined {
    const own = OPAQUE_FIELD_TYPES[name]?.[field];
    if (own !== undefined) return own;
    for (const e of this.#set.get(name)?.embeds ?? []) {
      const t = this.#opaqueType(e.name, field);
      if (t !== undefined) return t;
    }
    return undefined;
  }

  /** A type of the Protobuf supplement's rows: `[]T`, `{}T`, a scalar or well-known name, or a message. */
  #row(type: string): Check {
    if (type.startsWith('[]')) return arrayCheck(this.#row(type.slice(2)), `[]${rowGoType(type.slice(2))}`, this.#rowZero(type.slice(2)));
    if (type.startsWith('{}')) return mapCheck(this.#row(type.slice(2)), `map[string]${rowGoType(type.slice(2))}`, this.#rowZero(type.slice(2)));
    const scalar = ROW_SCALARS[type];
    if (scalar !== undefined) return scalarCheck(scalar);
    if (type === 'fields-v1' || type === 'raw-extension') return depthOnly;
    if (this.#set.get(type) !== undefined) return this.#struct(type);
    const rows = SUPPLEMENT_MESSAGES[type];
    if (rows === undefined) return depthOnly;
    const known = this.#structs.get(type);
    if (known !== undefined) return known;
    let fields: Map<string, Check> | undefined;
    const resolve = (): Map<string, Check> => {
      fields = new Map(this.#supplementFields(type));
      return fields;
    };
    // Undescribed in the DSL but known to the Protobuf supplement (the original's generated.proto, every
    // field): fields it does not list are dropped and reported as for any struct, or JSON would keep what
    // Protobuf cannot carry and the two representations of one object would differ.
    const check = structCheck(type, false, () => fields ?? resolve());
    this.#structs.set(type, check);
    resolve();
    return check;
  }

  /**
   * The JSON fields of a supplement message: its rows, except that a row Go
   * embeds inline (presence code `i`, e.g. IngressRule's IngressRuleValue)
   * contributes its own message's fields, which sit in the host object.
   */
  #supplementFields(type: string): Array<readonly [string, Check]> {
    const inline = new Set((GO_PRESENCE[type] ?? '').split(' ').filter((t) => t.startsWith('i')).map((t) => Number(t.slice(1))));
    const out: Array<readonly [string, Check]> = [];
    for (const [field, number, t] of SUPPLEMENT_MESSAGES[type] ?? []) {
      if (inline.has(number) && SUPPLEMENT_MESSAGES[t] !== undefined) pushAll(out, this.#supplementFields(t));
      else out.push([field, this.#row(t)]);
    }
    return out;
  }

  /** The zero value Go leaves for a null element of a supplement row type. */
  #rowZero(type: string): ZeroOf {
    if (type.startsWith('[]') || type.startsWith('{}')) return KEEP_NULL;
    const scalar = ROW_SCALARS[type];
    if (scalar !== undefined) return scalarZero(scalar);
    if (this.#set.get(type) !== undefined || SUPPLEMENT_MESSAGES[type] !== undefined) return () => ({});
    return KEEP_NULL;
  }

  #type(t: TypeExpr): Check {
    switch (t.kind) {
      case 'scalar':
        return scalarCheck(t.scalar);
      case 'ref':
        return this.#struct(t.name);
      case 'array':
        return arrayCheck(this.#type(t.items), `[]${goTypeOf(t.items)}`, typeZero(t.items));
      case 'map':
        return mapCheck(this.#type(t.values), `map[string]${goTypeOf(t.values)}`, typeZero(t.values));
      case 'any':
      case 'opaque':
        return depthOnly;
    }
  }
}

const depthOnly: Check = (v, c) => c.checkDepth(v);

/** The zero value Go leaves for a null element of a DSL type (see ZeroOf). */
function typeZero(t: TypeExpr): ZeroOf {
  if (t.kind === 'scalar') return scalarZero(t.scalar);
  if (t.kind === 'ref') return () => ({});
  return KEEP_NULL;
}

function scalarZero(s: Scalar): ZeroOf {
  switch (s) {
    case 'string':
      return () => '';
    case 'int32':
    case 'int64':
    case 'double':
    case 'int-or-string':
      return () => 0;
    case 'boolean':
      return () => false;
    case 'quantity':
      return () => '0';
    default:
      // []byte, metav1.Time, MicroTime: Go's zero marshals as null.
      return KEEP_NULL;
  }
}

/** Protobuf supplement scalar names → DSL scalars. */
const ROW_SCALARS: Readonly<Record<string, Scalar>> = {
  string: 'string',
  int32: 'int32',
  int64: 'int64',
  bool: 'boolean',
  double: 'double',
  bytes: 'byte',
  quantity: 'quantity',
  'int-or-string': 'int-or-string',
  time: 'time',
  'micro-time': 'micro-time',
};

function rowGoType(type: string): string {
  if (type.startsWith('[]')) return `[]${rowGoType(type.slice(2))}`;
  if (type.startsWith('{}')) return `map[string]${rowGoType(type.slice(2))}`;
  const scalar = ROW_SCALARS[type];
  if (scalar !== undefined) return GO_SCALARS[scalar];
  if (type === 'fields-v1') return 'v1.FieldsV1';
  if (type === 'raw-extension') return 'runtime.RawExtension';
  return goStructName(type);
}

/**
 * What Go leaves in an element or map value that was JSON `null`: the zero
 * value of the element type ("" for a string, {} for a struct), which is what
 * the original then stores and serves; `null` where Go keeps a nil (slices,
 * maps, pointers, untyped values).
 */
type ZeroOf = () => unknown;
const KEEP_NULL: ZeroOf = () => null;

function arrayCheck(item: Check, goType: string, zero: ZeroOf = KEEP_NULL): Check {
  return (v, c) => {
    if (v === null || v === undefined) return;
    if (!Array.isArray(v)) throw c.typeError(v, goType);
    for (let i = 0; i < v.length; i++) {
      if (v[i] === null) v[i] = zero();
      c.path.push(i);
      item(v[i], c);
      c.path.pop();
      if (c.replacement !== NO_REPLACEMENT) {
        v[i] = c.replacement;
        c.replacement = NO_REPLACEMENT;
      }
    }
  };
}

function mapCheck(value: Check, goType: string, zero: ZeroOf = KEEP_NULL): Check {
  return (v, c) => {
    if (v === null || v === undefined) return;
    if (!isPlainObject(v)) throw c.typeError(v, goType);
    // Go names the map field, not the key, in errors.
    for (const k in v) {
      if (v[k] === null) v[k] = zero();
      value(v[k], c);
      if (c.replacement !== NO_REPLACEMENT) {
        v[k] = c.replacement;
        c.replacement = NO_REPLACEMENT;
      }
    }
  };
}

/** A struct: declared fields checked, others dropped (reported) or, when `preserve`, kept. */
function structCheck(name: string, preserve: boolean, fieldsOf: () => Map<string, Check>): Check {
  const goType = goStructName(name);
  const structName = goShortName(name);
  return (v, c) => {
      if (v === null || v === undefined) return;
      if (!isPlainObject(v)) throw c.typeError(v, goType);
      const fs = fieldsOf();
      const outer = c.struct;
      for (const k in v) {
        const f = fs.get(k);
        if (f === undefined) {
          if (preserve) {
            c.path.push(k);
            c.checkDepth(v[k]);
            c.path.pop();
          } else {
            c.unknown.push(c.fullPath(k));
            delete v[k];
          }
          continue;
        }
        c.struct = structName;
        c.path.push(k);
        f(v[k], c);
        c.path.pop();
        if (c.replacement !== NO_REPLACEMENT) {
          v[k] = c.replacement;
          c.replacement = NO_REPLACEMENT;
        }
      }
      c.struct = outer;
  };
}

/** The Go type named in errors for a declared type. */
function goTypeOf(t: TypeExpr): string {
  switch (t.kind) {
    case 'scalar':
      return GO_SCALARS[t.scalar];
    case 'ref':
      return goStructName(t.name);
    case 'array':
      return `[]${goTypeOf(t.items)}`;
    case 'map':
      return `map[string]${goTypeOf(t.values)}`;
    default:
      return 'interface {}';
  }
}

const GO_SCALARS: Readonly<Record<Scalar, string>> = {
  string: 'string',
  int32: 'int32',
  int64: 'int64',
  double: 'float64',
  boolean: 'bool',
  byte: '[]uint8',
  quantity: 'resource.Quantity',
  'int-or-string': 'intstr.IntOrString',
  time: 'v1.Time',
  'micro-time': 'v1.MicroTime',
};

const checkString: Check = (v, c) => {
  if (typeof v !== 'string' && v !== null && v !== undefined) throw c.typeError(v, 'string');
};

const checkBool: Check = (v, c) => {
  if (typeof v !== 'boolean' && v !== null && v !== undefined) throw c.typeError(v, 'bool');
};

const checkDouble: Check = (v, c) => {
  if (typeof v !== 'number' && v !== null && v !== undefined) throw c.typeError(v, 'float64');
};

const checkInt32: Check = (v, c) => {
  if (v === null || v === undefined) return;
  if (typeof v !== 'number') throw c.typeError(v, 'int32');
  if (!Number.isInteger(v) || v < INT32_MIN || v > INT32_MAX) throw c.typeError(v, 'int32', true);
};

const checkInt64: Check = (v, c) => {
  if (v === null || v === undefined) return;
  if (typeof v !== 'number') throw c.typeError(v, 'int64');
  if (!Number.isInteger(v) || v < -INT64_LIMIT || v >= INT64_LIMIT) throw c.typeError(v, 'int64', true);
};

const checkBytes: Check = (v, c) => {
  if (v === null || v === undefined) return;
  if (typeof v !== 'string') throw c.typeError(v, '[]uint8');
  const e = base64Error(v);
  if (e !== undefined) throw new TypedDecodeError(e);
  // Go's decoder skips \r and \n, and Go writes the bytes back without them: store what every representation
  // (Protobuf carries the bytes) reads back (fuzz seed 12, case 215013: a YAML block scalar's final newline);
  // likewise a last quantum's unused bits, which Go drops (fuzz seed 1302, case 20404: "o05=" read back "o04=").
  const text = v.includes('\n') || v.includes('\r') ? v.replace(/[\r\n]/g, '') : v;
  const canonical = canonicalBase64(text);
  if (canonical !== v) c.replacement = canonical;
};

/** Quantity's UnmarshalJSON parses the raw JSON text: numbers are fine, anything else must parse. */
const checkQuantity: Check = (v, c) => {
  if (v === null || v === undefined) return;
  if (typeof v === 'number' && Number.isFinite(v)) {
    // Go's Quantity reads an unquoted number as its text and always writes a string.
    c.replacement = String(v);
    return;
  }
  if (typeof v === 'string' && QUANTITY_PATTERN.test(v.trim())) return;
  throw new TypedDecodeError(QUANTITY_MESSAGE);
};

/** IntOrString: a string, or an int32 number (Go unmarshals the number into int32). */
const checkIntOrString: Check = (v, c) => {
  if (v === null || v === undefined || typeof v === 'string') return;
  if (typeof v !== 'number') throw c.typeError(v, 'int32');
  if (!Number.isInteger(v) || v < INT32_MIN || v > INT32_MAX) throw c.typeError(v, 'int32', true);
};

function timeCheck(layout: string): Check {
  return (v, c) => {
    if (v === null || v === undefined) return;
    // Time's UnmarshalJSON reads a Go string first.
    if (typeof v !== 'string') throw c.typeError(v, 'string');
    if (parseRfc3339(v) === undefined) throw new TypedDecodeError(timeParseMessage(v, layout));
  };
}

const checkTime = timeCheck(RFC3339_LAYOUT);
const checkMicroTime = timeCheck(RFC3339_MICRO_LAYOUT);

function scalarCheck(s: Scalar): Check {
  switch (s) {
    case 'string':
      return checkString;
    case 'boolean':
      return checkBool;
    case 'double':
      return checkDouble;
    case 'int32':
      return checkInt32;
    case 'int64':
      return checkInt64;
    case 'byte':
      return checkBytes;
    case 'quantity':
      return checkQuantity;
    case 'int-or-string':
      return checkIntOrString;
    case 'time':
      return checkTime;
    case 'micro-time':
      return checkMicroTime;
  }
}
