/**
 * The public codec: enveloped objects, lists and watch frames, byte-compatible
 * with the original's protobuf serializer (what kubectl and client-go read and
 * write as application/vnd.kubernetes.protobuf).
 *
 * Envelope: 0x6b 0x38 0x73 0x00, then runtime.Unknown {typeMeta = 1
 * {apiVersion = 1, kind = 2}, raw = 2 (the object's message), contentEncoding
 * = 3, contentType = 4}; the original always writes 3 and 4, empty.
 *
 * Watch frame: a 4-byte big-endian length, then a WatchEvent {type = 1,
 * object = 2 RawExtension {raw = 1: the enveloped object}} written without
 * an envelope of its own (the original's raw stream serializer).
 */
import type { GroupVersionKind } from '../openapi/schema-dsl.ts';
import { decodeMessage, setEmbeddedDecoder } from './decode.ts';
import { encodeMessage } from './encode.ts';
import { ProtobufDecodeError, ProtobufUnsupportedError } from './errors.ts';
import type { JsonObject } from './json.ts';
import { apiVersionOf, parseApiVersion, resolveKind, type ResolvedKind } from './kinds.ts';
import { loadPlans } from './load.ts';
import type { MessagePlan } from './plan.ts';
import { Reader } from './reader.ts';
import { Writer } from './writer.ts';
import { names } from '../naming/index.ts';

export const PROTOBUF_PREFIX: Uint8Array = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

export interface DecodedObject {
  readonly gvk: GroupVersionKind;
  /** The JSON form, with apiVersion and kind from the envelope. */
  readonly object: JsonObject;
}

export interface DecodedWatchEvent {
  readonly type: string;
  readonly gvk: GroupVersionKind;
  readonly object: JsonObject;
}

interface State {
  readonly plans: ReadonlyMap<string, MessagePlan>;
  /** Shared output buffer: every call is synchronous and copies its result out. */
  readonly writer: Writer;
  readonly resolved: Map<string, ResolvedKind | null>;
}

let state: State | undefined;

function codec(): State {
  if (state === undefined) {
    state = { plans: loadPlans(), writer: new Writer(), resolved: new Map() };
    setEmbeddedDecoder((raw) => decodeObject(raw).object);
  }
  return state;
}

/** Loads proto/ and compiles the tables now rather than on first use (call at server start). */
export function preloadProtobuf(): void {
  codec();
}

function resolve(gvk: GroupVersionKind): ResolvedKind | undefined {
  const s = codec();
  const key = `${gvk.group}/${gvk.version}/${gvk.kind}`;
  let r = s.resolved.get(key);
  if (r === undefined) {
    r = resolveKind(s.plans, gvk) ?? null;
    s.resolved.set(key, r);
  }
  return r ?? undefined;
}

/** Built-in kinds, their lists, and Status/DeleteOptions/WatchEvent. Extension-defined kinds: false (answer 406/415). */
export function supportsProtobuf(gvk: GroupVersionKind): boolean {
  return resolve(gvk) !== undefined;
}

function requireKind(gvk: GroupVersionKind): ResolvedKind {
  const r = resolve(gvk);
  if (r === undefined) throw new ProtobufUnsupportedError(`${apiVersionOf(gvk)}/${gvk.kind}`);
  return r;
}

/** Prefix + Unknown{typeMeta, and the key of raw}: all of the envelope before raw's length. */
function writeEnvelopeHead(w: Writer, gvk: GroupVersionKind): void {
  w.raw(PROTOBUF_PREFIX);
  w.key(0x0a);
  const tm = w.beginNested();
  w.key(0x0a);
  w.string(apiVersionOf(gvk));
  w.key(0x12);
  w.string(gvk.kind);
  w.endNested(tm);
  w.key(0x12);
}

/** Prefix + Unknown{typeMeta, raw = body(), "", ""} at the writer's position. */
function writeEnveloped(w: Writer, gvk: GroupVersionKind, body: () => void): void {
  writeEnvelopeHead(w, gvk);
  const raw = w.beginNested();
  body();
  w.endNested(raw);
  w.key(0x1a);
  w.byte(0);
  w.key(0x22);
  w.byte(0);
}

/** The full enveloped bytes of one object (JSON form as served) of the given kind. */
export function encodeObject(obj: JsonObject, gvk: GroupVersionKind): Uint8Array {
  const { plan } = requireKind(gvk);
  const w = codec().writer;
  w.reset();
  writeEnveloped(w, gvk, () => encodeMessage(w, plan, obj));
  return w.take();
}

/**
 * A list response. `gvk` is the list's kind (PodList) or its items' kind (Pod);
 * items are in JSON form (their apiVersion/kind are not carried, as in the original).
 */
export function encodeList(gvk: GroupVersionKind, listMeta: JsonObject, items: readonly JsonObject[]): Uint8Array {
  let listGvk = gvk;
  let r = requireKind(gvk);
  if (!r.isList) {
    listGvk = { ...gvk, kind: `${gvk.kind}List` };
    r = requireKind(listGvk);
  }
  const { plan } = r;
  const w = codec().writer;
  w.reset();
  writeEnveloped(w, listGvk, () => encodeMessage(w, plan, { metadata: listMeta, items }));
  return w.take();
}

/**
 * One watch frame as the original streams them (content type
 * `application/vnd.kubernetes.protobuf;stream=watch`): length, then the event.
 * `type` is ADDED, MODIFIED, DELETED, BOOKMARK or ERROR (object then a Status).
 */
export function encodeWatchEvent(type: string, object: JsonObject, gvk: GroupVersionKind): Uint8Array {
  const { plan } = requireKind(gvk);
  const w = codec().writer;
  w.reset();
  w.raw(FRAME_LENGTH_PLACEHOLDER);
  w.key(0x0a);
  w.string(type);
  w.key(0x12);
  const ext = w.beginNested();
  w.key(0x0a);
  const raw = w.beginNested();
  writeEnveloped(w, gvk, () => encodeMessage(w, plan, object));
  w.endNested(raw);
  w.endNested(ext);
  w.buf.writeUInt32BE(w.pos - 4, 0);
  return w.take();
}

const FRAME_LENGTH_PLACEHOLDER = new Uint8Array(4);

/**
 * The message bytes of one object without the envelope (what a list's items
 * and a watch event's envelope carry). Shards encode each object version once
 * with this and keep the bytes, so lists and watches only copy them.
 */
export function encodeMessageBytes(obj: JsonObject, gvk: GroupVersionKind): Uint8Array {
  const { plan } = requireKind(gvk);
  const w = codec().writer;
  w.reset();
  encodeMessage(w, plan, obj);
  return w.take();
}

/** Bytes the varint of `v` (a length) takes. */
function varintSize(v: number): number {
  let size = 1;
  while (v >= 0x80) {
    v = Math.floor(v / 0x80);
    size++;
  }
  return size;
}

/** Writes the varint of `v` into `out` at `p`; returns the position after it. */
function putVarint(out: Uint8Array, p: number, v: number): number {
  while (v >= 0x80) {
    out[p++] = (v % 0x80) | 0x80;
    v = Math.floor(v / 0x80);
  }
  out[p++] = v;
  return p;
}

/** Field 2, wire type 2: a list message's `items`. */
const LIST_ITEM_KEY = 0x12;

/** `items` (field 2) entry of a list message around one object's message bytes: key, length. */
export function listItemHeader(messageLength: number): Uint8Array {
  const out = new Uint8Array(1 + varintSize(messageLength));
  out[0] = LIST_ITEM_KEY;
  putVarint(out, 1, messageLength);
  return out;
}

/**
 * Object messages framed as a list's items (key, length, message each) in
 * one buffer from `alloc`, ready to sit between listEnvelopeParts' head and tail.
 */
export function joinListItems(messages: readonly Uint8Array[], alloc: (bytes: number) => Uint8Array = (n) => new Uint8Array(n)): Uint8Array {
  let total = 0;
  for (const m of messages) total += 1 + varintSize(m.length) + m.length;
  const out = alloc(total);
  let p = 0;
  for (const m of messages) {
    out[p++] = LIST_ITEM_KEY;
    p = putVarint(out, p, m.length);
    out.set(m, p);
    p += m.length;
  }
  return out;
}

/** What goes before and after a body of `rawLength` bytes in the envelope of `gvk`. */
function envelopeParts(gvk: GroupVersionKind, rawLength: number): { head: Uint8Array; tail: Uint8Array } {
  const w = new Writer(256);
  writeEnvelopeHead(w, gvk);
  w.varint(rawLength);
  return { head: w.take(), tail: ENVELOPE_TAIL };
}

const ENVELOPE_TAIL = Uint8Array.of(0x1a, 0x00, 0x22, 0x00);

/**
 * A list response as parts around item bytes that are already framed as the
 * list's field 2 (`listItemHeader` + message, per item): the caller sends
 * `[head, items, tail]` without joining them. Byte-identical to encodeList.
 */
export function listEnvelopeParts(gvk: GroupVersionKind, listMeta: JsonObject, itemsLength: number): { head: Uint8Array; tail: Uint8Array } {
  let listGvk = gvk;
  let r = requireKind(gvk);
  if (!r.isList) {
    listGvk = { ...gvk, kind: `${gvk.kind}List` };
    r = requireKind(listGvk);
  }
  // The list message without items is its metadata field alone.
  const w = codec().writer;
  w.reset();
  encodeMessage(w, r.plan, { metadata: listMeta });
  const meta = w.take();
  const env = envelopeParts(listGvk, meta.length + itemsLength);
  const head = new Uint8Array(env.head.length + meta.length);
  head.set(env.head, 0);
  head.set(meta, env.head.length);
  return { head, tail: env.tail };
}

/**
 * Makes watch frames of one kind (as encodeWatchEvent writes them) around
 * object message bytes: no JSON, no re-encoding, one allocation per frame.
 * The envelope's head (prefix, typeMeta, raw's key) is built once per kind.
 */
export function watchFrameWriter(gvk: GroupVersionKind): (type: string, message: Uint8Array) => Uint8Array {
  const head = new Writer(256);
  writeEnvelopeHead(head, gvk);
  const envHead = head.take();
  return (type, message) => {
    const envLength = envHead.length + varintSize(message.length) + message.length + ENVELOPE_TAIL.length;
    const extLength = 1 + varintSize(envLength) + envLength;
    // Event types are short ASCII (ADDED, MODIFIED, ...): one length byte.
    const eventLength = 2 + type.length + 1 + varintSize(extLength) + extLength;
    const out = Buffer.allocUnsafeSlow(4 + eventLength);
    out.writeUInt32BE(eventLength, 0);
    let p = 4;
    out[p++] = 0x0a;
    out[p++] = type.length;
    p += out.write(type, p, 'latin1');
    out[p++] = 0x12;
    p = putVarint(out, p, extLength);
    out[p++] = 0x0a;
    p = putVarint(out, p, envLength);
    out.set(envHead, p);
    p += envHead.length;
    p = putVarint(out, p, message.length);
    out.set(message, p);
    p += message.length;
    out.set(ENVELOPE_TAIL, p);
    return out;
  };
}

/** One watch frame around an object's message bytes (see watchFrameWriter, for many frames of one kind). */
export function watchFrameFromMessage(type: string, gvk: GroupVersionKind, message: Uint8Array): Uint8Array {
  return watchFrameWriter(gvk)(type, message);
}

interface Envelope {
  readonly apiVersion: string;
  readonly kind: string;
  readonly rawStart: number;
  readonly rawEnd: number;
}

function readEnvelope(r: Reader, end: number): Envelope {
  let apiVersion = '';
  let kind = '';
  let rawStart = -1;
  let rawEnd = -1;
  let contentEncoding = '';
  let contentType = '';
  while (r.pos < end) {
    const key = r.varint();
    switch (key) {
      case 0x0a: {
        const tmEnd = r.lengthEnd(end);
        while (r.pos < tmEnd) {
          const k = r.varint();
          if (k === 0x0a) apiVersion = r.string(tmEnd);
          else if (k === 0x12) kind = r.string(tmEnd);
          else r.skip(k & 7, tmEnd);
        }
        break;
      }
      case 0x12:
        rawEnd = r.lengthEnd(end);
        rawStart = r.pos;
        r.pos = rawEnd;
        break;
      case 0x1a:
        contentEncoding = r.string(end);
        break;
      case 0x22:
        contentType = r.string(end);
        break;
      default:
        r.skip(key & 7, end);
    }
  }
  if (contentEncoding !== '') throw new ProtobufDecodeError(`unsupported contentEncoding ${JSON.stringify(contentEncoding)}`);
  if (contentType !== '' && !contentType.startsWith('application/vnd.kubernetes.protobuf') && !contentType.startsWith(names.protobufMediaType)) {
    throw new ProtobufDecodeError(`envelope holds ${JSON.stringify(contentType)}, not protobuf`);
  }
  if (kind === '') throw new ProtobufDecodeError('envelope has no kind');
  if (apiVersion === '') throw new ProtobufDecodeError('envelope has no apiVersion');
  if (rawStart === -1) throw new ProtobufDecodeError('envelope has no object');
  return { apiVersion, kind, rawStart, rawEnd };
}

function checkPrefix(bytes: Uint8Array, at: number, end: number): void {
  if (end - at < 4 || bytes[at] !== 0x6b || bytes[at + 1] !== 0x38 || bytes[at + 2] !== 0x73 || bytes[at + 3] !== 0x00) {
    throw new ProtobufDecodeError('data does not start with the protobuf prefix 6b 38 73 00 ("k8s\\0")');
  }
  if (end - at === 4) throw new ProtobufDecodeError('empty body after the protobuf prefix');
}

function decodeAt(r: Reader, end: number): DecodedObject {
  checkPrefix(r.buf, r.pos, end);
  r.pos += 4;
  const env = readEnvelope(r, end);
  const gvk: GroupVersionKind = { ...parseApiVersion(env.apiVersion), kind: env.kind };
  const resolved = resolve(gvk);
  if (resolved === undefined) throw new ProtobufUnsupportedError(`${env.apiVersion}/${env.kind}`);
  const object: JsonObject = { apiVersion: env.apiVersion, kind: env.kind };
  r.pos = env.rawStart;
  decodeMessage(r, resolved.plan, env.rawEnd, object);
  // The original serves an empty list's items as [], not null.
  if (resolved.isList && object.items === null) object.items = [];
  r.pos = end;
  return { gvk, object };
}

/**
 * Decodes enveloped bytes (a request body, a response). Throws
 * ProtobufDecodeError (400) for malformed data or a wrong prefix, and
 * ProtobufUnsupportedError (415) for a kind with no Protobuf form.
 */
export function decodeObject(bytes: Uint8Array): DecodedObject {
  codec();
  const r = new Reader(bytes);
  return decodeAt(r, r.buf.length);
}

/** Decodes one frame as encodeWatchEvent writes it (4-byte length included). */
export function decodeWatchEvent(frame: Uint8Array): DecodedWatchEvent {
  codec();
  const r = new Reader(frame);
  if (r.buf.length < 4) throw new ProtobufDecodeError('watch frame shorter than its length header');
  const end = 4 + r.buf.readUInt32BE(0);
  if (end > r.buf.length) throw new ProtobufDecodeError('watch frame is truncated');
  r.pos = 4;
  let type = '';
  let decoded: DecodedObject | undefined;
  while (r.pos < end) {
    const key = r.varint();
    if (key === 0x0a) {
      type = r.string(end);
    } else if (key === 0x12) {
      const extEnd = r.lengthEnd(end);
      while (r.pos < extEnd) {
        const k = r.varint();
        if (k === 0x0a) {
          const rawEnd = r.lengthEnd(extEnd);
          decoded = decodeAt(r, rawEnd);
        } else {
          r.skip(k & 7, extEnd);
        }
      }
    } else {
      r.skip(key & 7, end);
    }
  }
  if (decoded === undefined) throw new ProtobufDecodeError('watch event has no object');
  return { type, gvk: decoded.gvk, object: decoded.object };
}
