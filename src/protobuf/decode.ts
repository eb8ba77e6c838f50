/**
 * Protobuf bytes -> JSON, producing what the original prints after decoding
 * into its Go struct: unset value fields appear with their zero value, zero
 * scalars of `omitempty` fields are left out, unset pointers are left out (or
 * null without omitempty), times render as RFC 3339 in UTC. Unknown field
 * numbers are skipped, as gogo-protobuf does.
 */
import { ProtobufDecodeError } from './errors.ts';
import { Card, elementWireType, Kind, Presence, type FieldPlan, type MessagePlan } from './plan.ts';
import { Reader, WIRE_BYTES } from './reader.ts';
import { formatMicroTime, formatTime, ZERO_TIME_SECONDS } from './time.ts';
import type { JsonObject } from './json.ts';

/** Decodes RawExtension bytes that hold an enveloped Protobuf object; set by the codec (it owns the envelope). */
let embeddedDecoder: ((raw: Buffer) => JsonObject) | undefined;

export function setEmbeddedDecoder(fn: (raw: Buffer) => JsonObject): void {
  embeddedDecoder = fn;
}

const PROTOBUF_PREFIX_WORD = 0x6b387300;
const NO_SLOTS: readonly unknown[] = [];

/** Decodes the message body from r.pos to end into `out` (fields added in declaration order). */
export function decodeMessage(r: Reader, plan: MessagePlan, end: number, out: JsonObject = {}): JsonObject {
  const byNumber = plan.byNumber;
  let slots: unknown[] | undefined;
  while (r.pos < end) {
    const key = r.varint();
    const num = key >>> 3;
    const wt = key & 7;
    const f = byNumber[num];
    if (f === undefined) {
      r.skip(wt, end);
      continue;
    }
    slots ??= new Array<unknown>(plan.fields.length);
    if (f.card === Card.Optional) {
      if (wt !== f.wireType) throw wrongWire(plan, f, wt);
      slots[f.index] = readValue(r, f, end);
    } else if (f.card === Card.Repeated) {
      let list = slots[f.index] as unknown[] | undefined;
      if (list === undefined) slots[f.index] = list = [];
      if (wt === f.wireType) list.push(readValue(r, f, end));
      else if (wt === WIRE_BYTES && f.wireType !== WIRE_BYTES) readPacked(r, f, end, list);
      else throw wrongWire(plan, f, wt);
    } else {
      if (wt !== WIRE_BYTES) throw wrongWire(plan, f, wt);
      let map = slots[f.index] as JsonObject | undefined;
      if (map === undefined) slots[f.index] = map = {};
      readMapEntry(r, f, end, map);
    }
  }
  if (r.pos !== end) throw new ProtobufDecodeError(`${plan.name}: field runs past the end of its message`);
  return buildObject(plan, slots ?? NO_SLOTS, out);
}

/** Lays the decoded fields out as Go's JSON encoder would print the struct. */
function buildObject(plan: MessagePlan, slots: readonly unknown[], out: JsonObject): JsonObject {
  const fields = plan.fields;
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    const v = slots[i];
    switch (f.presence) {
      case Presence.Value:
        out[f.name] = v === undefined ? zeroJson(f) : v;
        break;
      case Presence.ValueOmitEmpty:
        if (isScalar(f.kind)) {
          if (v !== undefined && v !== '' && v !== 0 && v !== false) out[f.name] = v;
        } else {
          // encoding/json never treats a struct as empty.
          out[f.name] = v === undefined ? zeroJson(f) : v;
        }
        break;
      case Presence.Pointer:
      case Presence.Bytes:
        out[f.name] = v === undefined ? null : v;
        break;
      case Presence.PointerOmitEmpty:
        if (v !== undefined) out[f.name] = v;
        break;
      case Presence.List:
        out[f.name] = v === undefined ? null : v;
        break;
      case Presence.ListOmitEmpty:
      case Presence.BytesOmitEmpty:
        if (v !== undefined && v !== '') out[f.name] = v;
        break;
      case Presence.Inline:
        if (v === undefined) buildObject(f.message!, NO_SLOTS, out);
        else Object.assign(out, v);
        break;
    }
  }
  return out;
}

function isScalar(kind: Kind): boolean {
  return kind === Kind.String || kind === Kind.Int32 || kind === Kind.Int64 || kind === Kind.Bool || kind === Kind.Double;
}

/** The JSON of a Go zero value of this field's type. */
function zeroJson(f: FieldPlan): unknown {
  switch (f.kind) {
    case Kind.String:
      return '';
    case Kind.Int32:
    case Kind.Int64:
    case Kind.Double:
      return 0;
    case Kind.Bool:
      return false;
    case Kind.Message:
      return buildObject(f.message!, NO_SLOTS, {});
    case Kind.IntOrString:
      return 0;
    case Kind.Quantity:
      return '0';
    default:
      // Zero Time/MicroTime, nil RawExtension/FieldsV1/[]byte/slices print as null.
      return null;
  }
}

function readValue(r: Reader, f: FieldPlan, limit: number): unknown {
  switch (f.kind) {
    case Kind.String:
      return r.string(limit);
    case Kind.Int32:
      return r.varint() | 0;
    case Kind.Int64:
      return r.varint();
    case Kind.Bool:
      return r.varint() !== 0;
    case Kind.Double:
      return r.double(limit);
    case Kind.Bytes:
      return r.bytes(limit).toString('base64');
    case Kind.Message: {
      const end = r.lengthEnd(limit);
      return decodeMessage(r, f.message!, end);
    }
    case Kind.Time:
    case Kind.MicroTime:
      return readTime(r, f.kind, r.lengthEnd(limit));
    case Kind.IntOrString:
      return readIntOrString(r, r.lengthEnd(limit));
    case Kind.Quantity: {
      const end = r.lengthEnd(limit);
      let s = '0';
      while (r.pos < end) {
        const key = r.varint();
        if (key === 0x0a) s = r.string(end);
        else r.skip(key & 7, end);
      }
      return s;
    }
    case Kind.FieldsV1:
    case Kind.RawExtension:
      return readRawJson(r, f.kind, r.lengthEnd(limit));
    case Kind.StringList: {
      const end = r.lengthEnd(limit);
      const items: string[] = [];
      while (r.pos < end) {
        const key = r.varint();
        if (key === 0x0a) items.push(r.string(end));
        else r.skip(key & 7, end);
      }
      // A nil Go slice prints as null.
      return items.length === 0 ? null : items;
    }
  }
}

function readPacked(r: Reader, f: FieldPlan, limit: number, into: unknown[]): void {
  const end = r.lengthEnd(limit);
  while (r.pos < end) into.push(readValue(r, f, end));
  if (r.pos !== end) throw new ProtobufDecodeError(`${f.name}: packed field runs past its end`);
}

function readMapEntry(r: Reader, f: FieldPlan, limit: number, into: JsonObject): void {
  const end = r.lengthEnd(limit);
  const valueKey = (2 << 3) | elementWireType(f.kind);
  let key = '';
  let value: unknown;
  while (r.pos < end) {
    const k = r.varint();
    if (k === 0x0a) key = r.string(end);
    else if (k === valueKey) value = readValue(r, f, end);
    else r.skip(k & 7, end);
  }
  // gogo fills an absent map value with the zero value ([]byte{} for bytes).
  into[key] = value !== undefined ? value : f.kind === Kind.Bytes ? '' : zeroJson(f);
}

function readTime(r: Reader, kind: Kind, end: number): string | null {
  let seconds = 0;
  let nanos = 0;
  let any = false;
  while (r.pos < end) {
    const key = r.varint();
    if (key === 0x08) seconds = r.varint();
    else if (key === 0x10) nanos = r.varint() | 0;
    else {
      r.skip(key & 7, end);
      continue;
    }
    any = true;
  }
  if (!any || (seconds === ZERO_TIME_SECONDS && (kind === Kind.Time || nanos === 0))) return null;
  // Time keeps whole seconds only, as the original does on unmarshal.
  return kind === Kind.Time ? formatTime(seconds) : formatMicroTime(seconds, nanos);
}

function readIntOrString(r: Reader, end: number): number | string {
  let type = 0;
  let intVal = 0;
  let strVal = '';
  while (r.pos < end) {
    const key = r.varint();
    if (key === 0x08) type = r.varint();
    else if (key === 0x10) intVal = r.varint() | 0;
    else if (key === 0x1a) strVal = r.string(end);
    else r.skip(key & 7, end);
  }
  return type === 1 ? strVal : intVal;
}

/** FieldsV1 and RawExtension bodies: field 1 holds JSON text (or, for RawExtension, an enveloped Protobuf object). */
function readRawJson(r: Reader, kind: Kind, end: number): unknown {
  let raw: Buffer | undefined;
  while (r.pos < end) {
    const key = r.varint();
    if (key === 0x0a) raw = r.bytes(end);
    else r.skip(key & 7, end);
  }
  if (raw === undefined || raw.length === 0) return null;
  if (kind === Kind.RawExtension && raw.length >= 4 && raw.readUInt32BE(0) === PROTOBUF_PREFIX_WORD) {
    if (embeddedDecoder === undefined) throw new ProtobufDecodeError('embedded protobuf object with no decoder');
    return embeddedDecoder(raw);
  }
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw new ProtobufDecodeError(`${kind === Kind.FieldsV1 ? 'FieldsV1' : 'RawExtension'} does not hold JSON`);
  }
}

function wrongWire(plan: MessagePlan, f: FieldPlan, wt: number): ProtobufDecodeError {
  return new ProtobufDecodeError(`${plan.name}.${f.name}: wire type ${wt}, expected ${f.wireType}`);
}
