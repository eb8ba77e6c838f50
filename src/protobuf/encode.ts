/**
 * JSON (as served) -> Protobuf bytes, following gogo-protobuf as the original
 * marshals its Go structs: fields in ascending number, value fields always
 * written (zero when the JSON lacks them), pointers and []byte only when set,
 * map entries sorted by key. JSON fields the type does not have are dropped:
 * the wire has no place for them.
 */
import { ProtobufEncodeError } from './errors.ts';
import { Card, elementWireType, Kind, Presence, type FieldPlan, type MessagePlan } from './plan.ts';
import { parseRfc3339, ZERO_TIME_SECONDS } from './time.ts';
import type { Writer } from './writer.ts';
import type { JsonObject } from './json.ts';

const EMPTY: JsonObject = Object.freeze({}) as JsonObject;

export function encodeMessage(w: Writer, plan: MessagePlan, obj: JsonObject): void {
  const fields = plan.encodeOrder;
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    if (f.presence === Presence.Inline) {
      // Go's embedded struct: its fields come from the host object.
      w.key(f.key);
      const start = w.beginNested();
      encodeMessage(w, f.message!, obj);
      w.endNested(start);
      continue;
    }
    const v = obj[f.name];
    try {
      if (f.card === Card.Optional) {
        if (v === undefined || v === null) {
          if (f.presence === Presence.Value || f.presence === Presence.ValueOmitEmpty) writeZero(w, f);
        } else {
          w.key(f.key);
          writeValue(w, f, v);
        }
      } else if (f.card === Card.Repeated) {
        if (v === undefined || v === null) continue;
        if (!Array.isArray(v)) throw new ProtobufEncodeError(f.name, 'expected an array');
        for (let j = 0; j < v.length; j++) {
          w.key(f.key);
          const item: unknown = v[j];
          if (item === null || item === undefined) writeZeroValue(w, f);
          else writeValue(w, f, item);
        }
      } else {
        if (v === undefined || v === null) continue;
        if (typeof v !== 'object' || Array.isArray(v)) throw new ProtobufEncodeError(f.name, 'expected an object');
        writeMap(w, f, v as JsonObject);
      }
    } catch (err) {
      throw prefixPath(err, f.name);
    }
  }
}

/** map<string, V>: one entry message {key = 1, value = 2} per key, in Go's sorted key order. */
function writeMap(w: Writer, f: FieldPlan, m: JsonObject): void {
  const keys = Object.keys(m);
  if (keys.length > 1) sortLikeGo(keys);
  const valueKey = (2 << 3) | elementWireType(f.kind);
  for (const k of keys) {
    const v = m[k];
    w.key(f.key);
    const start = w.beginNested();
    w.key(0x0a);
    w.string(k);
    if (v === null || v === undefined) {
      // A nil []byte is not written; other Go map values are always written.
      if (f.kind !== Kind.Bytes) {
        w.key(valueKey);
        writeZeroValue(w, f);
      }
    } else {
      w.key(valueKey);
      try {
        writeValue(w, f, v);
      } catch (err) {
        throw prefixPath(err, k);
      }
    }
    w.endNested(start);
  }
}

/**
 * Go sorts map keys by their UTF-8 bytes, which is code point order. JS sorts
 * by UTF-16 units; the two differ only between astral characters and
 * U+E000..U+FFFF, so the exact comparison runs only when such a key is present.
 */
function sortLikeGo(keys: string[]): void {
  keys.sort();
  if (!keys.some((k) => HIGH_UNITS.test(k))) return;
  keys.sort((a, b) => {
    const x = [...a];
    const y = [...b];
    for (let i = 0; i < x.length && i < y.length; i++) {
      const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
      if (d !== 0) return d;
    }
    return x.length - y.length;
  });
}

const HIGH_UNITS = /[\ud800-\uffff]/;

/** The value of one field (its key already written). */
function writeValue(w: Writer, f: FieldPlan, v: unknown): void {
  switch (f.kind) {
    case Kind.String:
      if (typeof v !== 'string') throw mismatch('a string', v);
      w.string(v);
      return;
    case Kind.Int32:
    case Kind.Int64:
      w.varint(integer(v));
      return;
    case Kind.Bool:
      if (typeof v !== 'boolean') throw mismatch('a boolean', v);
      w.byte(v ? 1 : 0);
      return;
    case Kind.Double:
      if (typeof v !== 'number') throw mismatch('a number', v);
      w.double(v);
      return;
    case Kind.Bytes:
      if (typeof v !== 'string') throw mismatch('a base64 string', v);
      w.bytes(Buffer.from(v, 'base64'));
      return;
    case Kind.Message: {
      if (typeof v !== 'object' || Array.isArray(v)) throw mismatch('an object', v);
      const start = w.beginNested();
      encodeMessage(w, f.message!, v as JsonObject);
      w.endNested(start);
      return;
    }
    case Kind.Time:
    case Kind.MicroTime:
      writeTime(w, f.kind, v);
      return;
    case Kind.IntOrString:
      writeIntOrString(w, v);
      return;
    case Kind.Quantity: {
      if (typeof v !== 'string' && typeof v !== 'number') throw mismatch('a quantity string', v);
      const start = w.beginNested();
      w.key(0x0a);
      w.string(String(v));
      w.endNested(start);
      return;
    }
    case Kind.FieldsV1:
    case Kind.RawExtension: {
      // Both carry JSON text; FieldsV1 Raw is field 1 as is RawExtension raw.
      const start = w.beginNested();
      w.key(0x0a);
      w.bytes(Buffer.from(JSON.stringify(v), 'utf8'));
      w.endNested(start);
      return;
    }
    case Kind.StringList: {
      if (!Array.isArray(v)) throw mismatch('an array of strings', v);
      const start = w.beginNested();
      for (const s of v) {
        w.key(0x0a);
        w.string(s === null ? '' : typeof s === 'string' ? s : String(s));
      }
      w.endNested(start);
      return;
    }
  }
}

/** An unset value field: what Go writes for its zero value, key included. */
function writeZero(w: Writer, f: FieldPlan): void {
  w.key(f.key);
  writeZeroValue(w, f);
}

function writeZeroValue(w: Writer, f: FieldPlan): void {
  switch (f.kind) {
    case Kind.Int32:
    case Kind.Int64:
    case Kind.Bool:
      w.byte(0);
      return;
    case Kind.Double:
      w.double(0);
      return;
    case Kind.Message:
      w.bytes(zeroBytes(w, f.message!));
      return;
    case Kind.IntOrString:
      // {type: 0, intVal: 0, strVal: ""}: all three are value fields.
      w.bytes(ZERO_INT_OR_STRING);
      return;
    case Kind.Quantity:
      // A zero Quantity marshals as its canonical string "0".
      w.bytes(ZERO_QUANTITY);
      return;
    default:
      // Strings, bytes, times (a zero time marshals to nothing), raw messages: an empty body.
      w.byte(0);
  }
}

const ZERO_INT_OR_STRING = Uint8Array.of(0x08, 0x00, 0x10, 0x00, 0x1a, 0x00);
const ZERO_QUANTITY = Uint8Array.of(0x0a, 0x01, 0x30);

/** A message's zero encoding, computed once: Go writes unset value structs in full. */
function zeroBytes(w: Writer, plan: MessagePlan): Uint8Array {
  if (plan.zeroBytes !== undefined) return plan.zeroBytes;
  const mark = w.pos;
  encodeMessage(w, plan, EMPTY);
  const bytes = Uint8Array.prototype.slice.call(w.buf, mark, w.pos);
  w.pos = mark;
  plan.zeroBytes = bytes;
  return bytes;
}

function writeTime(w: Writer, kind: Kind, v: unknown): void {
  if (typeof v !== 'string') throw mismatch('an RFC 3339 time', v);
  const t = parseRfc3339(v);
  if (t === undefined) throw mismatch('an RFC 3339 time', v);
  const start = w.beginNested();
  if (t.seconds !== ZERO_TIME_SECONDS || t.nanos !== 0) {
    // Timestamp{seconds = 1, nanos = 2}, both always written; Time drops sub-second parts.
    w.key(0x08);
    w.varint(t.seconds);
    w.key(0x10);
    w.varint(kind === Kind.MicroTime ? t.nanos : 0);
  }
  w.endNested(start);
}

function writeIntOrString(w: Writer, v: unknown): void {
  const start = w.beginNested();
  if (typeof v === 'string') {
    w.raw(INT_OR_STRING_STRING_HEAD);
    w.string(v);
  } else {
    w.raw(INT_OR_STRING_INT_HEAD);
    w.varint(integer(v) | 0);
    w.key(0x1a);
    w.byte(0);
  }
  w.endNested(start);
}

/** type = 1 (string), intVal = 0, then the strVal key. */
const INT_OR_STRING_STRING_HEAD = Uint8Array.of(0x08, 0x01, 0x10, 0x00, 0x1a);
/** type = 0 (int), then the intVal key. */
const INT_OR_STRING_INT_HEAD = Uint8Array.of(0x08, 0x00, 0x10);

function integer(v: unknown): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) throw mismatch('an integer', v);
  return v;
}

function mismatch(expected: string, v: unknown): ProtobufEncodeError {
  const got = v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
  return new ProtobufEncodeError('', `expected ${expected}, got ${got}`);
}

function prefixPath(err: unknown, segment: string): unknown {
  if (!(err instanceof ProtobufEncodeError)) return err;
  return new ProtobufEncodeError(err.path === '' ? segment : `${segment}.${err.path}`, err.detail);
}
