/**
 * Turns what the store returns (JSON bytes of objects, lists and watch
 * frames) into the representation the client negotiated: JSON as is (the
 * fast path: bytes pass through untouched), a Table, or PartialObjectMetadata.
 * Protobuf is chosen here too once the codec is wired (see protobuf.ts).
 */
import type { RequestContext } from '../server/context.ts';
import type { ResourceType } from '../registry/resource-type.ts';
import type { ListEncoding, ListReply } from '../../shards/protocol.ts';
import { negotiate, type Negotiated } from './negotiate.ts';
import { customResourceOf } from '../apiextensions/hooks.ts';
import { objectTable, partialObjectMetadata, partialObjectMetadataList, tableWatchEncoder, toTable, type JsonObject, type KindInfo } from './table/index.ts';
import { listBodyParts, type ListMetadata } from './respond.ts';
import { errors, type StatusError } from '../api/status.ts';
import { encodeList, encodeObject, encodeWatchEvent, listEnvelopeParts, supportsProtobuf } from '../protobuf/index.ts';

const encoder = new TextEncoder();

export interface Rendered {
  body: Uint8Array;
  contentType: string;
}

/** A body in parts, sent without joining them (see writeParts). */
export interface RenderedParts {
  parts: readonly Uint8Array[];
  contentType: string;
}

function kindInfo(rt: ResourceType): KindInfo {
  return { group: rt.group, version: rt.version, kind: rt.kind, resource: rt.resource, printer: customResourceOf(rt)?.printer };
}

/**
 * Parses stored JSON (an object, a list's items, a watch frame). A failure
 * never carries V8's message, which quotes the text around the error: the
 * text can be a Secret's, and the error is logged.
 */
export function parseStoredJson<T>(text: string, what: string): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new Error(`${what} from storage is not valid JSON`);
  }
}

function parse(bytes: Uint8Array): JsonObject {
  return parseStoredJson<JsonObject>(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'), 'an object');
}

const gvkOf = (rt: ResourceType) => ({ group: rt.group, version: rt.version, kind: rt.kind });

/** protobufAllowed's answers by type: asked on every request, and a type's kind never changes. */
const protobufByType = new WeakMap<ResourceType, boolean>();

/** Protobuf is served for built-in kinds the codec knows (spec 4.6: not for extension types). */
export function protobufAllowed(rt: ResourceType): boolean {
  let allowed = protobufByType.get(rt);
  if (allowed === undefined) {
    allowed = supportsProtobuf(gvkOf(rt));
    protobufByType.set(rt, allowed);
  }
  return allowed;
}

/** Negotiates the answer's representation for a request on `rt` (406 when nothing fits). */
export function negotiateFor(ctx: RequestContext, opts: { read: boolean; watch: boolean; list: boolean; rt: ResourceType }): Negotiated {
  const n = negotiate(ctx.req.header('accept'), {
    protobufAllowed: protobufAllowed(opts.rt),
    tableAllowed: opts.read,
    watch: opts.watch,
    partialMetadataAllowed: opts.read,
    includeObject: ctx.req.query.get('includeObject'),
  });
  if (n.kind === 'partial-metadata' && (n.list !== opts.list || n.encoding !== 'json')) {
    throw errors.notAcceptable(['application/json']);
  }
  return n;
}

/**
 * The Protobuf encoding of an object's JSON bytes, by those bytes: a GET answered again from a serving
 * thread's kept answer (shards/object-read-cache.ts) hands out the same bytes each time, and is then
 * encoded once rather than parsed and encoded per request (~10 µs of a GET). Weak: it goes with the bytes.
 */
const protobufOf = new WeakMap<Uint8Array, { rt: ResourceType; body: Uint8Array }>();

/** One object (get, create, update, patch, delete answers). */
export function renderObject(rt: ResourceType, n: Negotiated, json: Uint8Array): Rendered {
  switch (n.kind) {
    case 'json':
      return { body: json, contentType: 'application/json' };
    case 'protobuf': {
      const known = protobufOf.get(json);
      if (known !== undefined && known.rt === rt) return { body: known.body, contentType: n.contentType };
      const obj = parse(json);
      // A DELETE may answer a Status rather than the object: keep it JSON-shaped in protobuf's envelope only for kinds we know.
      if (obj['kind'] === 'Status') return { body: json, contentType: 'application/json' };
      const body = encodeObject(obj, gvkOf(rt));
      protobufOf.set(json, { rt, body });
      return { body, contentType: n.contentType };
    }
    case 'table':
      return { body: encoder.encode(JSON.stringify(objectTable(kindInfo(rt), parse(json), { includeObject: n.includeObject, tableGroup: n.group, tableVersion: n.version, now: new Date() }))), contentType: n.contentType };
    case 'partial-metadata':
      return { body: encoder.encode(JSON.stringify(partialObjectMetadata(parse(json), `${n.group}/${n.version}`))), contentType: n.contentType };
  }
}

/**
 * A list answer around the shard's joined item bytes. JSON, and Protobuf
 * when the shard sent Protobuf items, go out as parts with the items
 * untouched; the other representations parse the items.
 */
export function renderList(rt: ResourceType, n: Negotiated, reply: ListReply, meta: ListMetadata): RenderedParts {
  if (n.kind === 'json') return { parts: listBodyParts(rt, reply, meta), contentType: 'application/json' };
  if (n.kind === 'protobuf' && reply.encoding === 'protobuf') {
    const { head, tail } = listEnvelopeParts({ group: rt.group, version: rt.version, kind: rt.listKind }, protobufListMeta(meta), reply.items.byteLength);
    return { parts: [head, reply.items, tail], contentType: n.contentType };
  }
  const items = reply.count === 0 ? [] : parseStoredJson<JsonObject[]>(`[${Buffer.from(reply.items.buffer, reply.items.byteOffset, reply.items.byteLength).toString('utf8')}]`, 'a list');
  const listMeta = { resourceVersion: meta.resourceVersion, continue: meta.continue, remainingItemCount: meta.remainingItemCount };
  if (n.kind === 'protobuf') {
    return { parts: [encodeList({ group: rt.group, version: rt.version, kind: rt.listKind }, protobufListMeta(meta), items)], contentType: n.contentType };
  }
  if (n.kind === 'table') {
    const table = toTable(kindInfo(rt), items, listMeta, { includeObject: n.includeObject, tableGroup: n.group, tableVersion: n.version, now: new Date() });
    return { parts: [encoder.encode(JSON.stringify(table))], contentType: n.contentType };
  }
  return { parts: [encoder.encode(JSON.stringify(partialObjectMetadataList(items, listMeta, n.group, n.version)))], contentType: n.contentType };
}

function protobufListMeta(meta: ListMetadata): JsonObject {
  const md: JsonObject = { resourceVersion: meta.resourceVersion };
  if (meta.continue) md['continue'] = meta.continue;
  if (meta.remainingItemCount !== undefined) md['remainingItemCount'] = meta.remainingItemCount;
  return md;
}

/**
 * The shard's list item encoding for a negotiated representation: Protobuf
 * items only for types stored in their own shape (others convert from JSON
 * here, as their watches do in watchEncodingFor). A JSON list of a built-in
 * type carries its items without kind and apiVersion, as the original's typed
 * lists do (a converted type's items lose them once converted, in
 * GenericStore.list); a custom resource's keep them (the original's
 * unstructured lists).
 */
export function listEncodingFor(rt: ResourceType, n: Negotiated): ListEncoding {
  // A version that differs from its stored one only in apiVersion has the same messages: the envelope names it.
  if (n.kind === 'protobuf') return rt.conversion === undefined || rt.conversion.relabel !== undefined ? 'protobuf' : 'json';
  return n.kind === 'json' && customResourceOf(rt) === undefined ? 'json-bare' : 'json';
}

/** How a watch's frames are made and sent: what the shard encodes, what the main thread still re-encodes. */
export interface WatchEncoding {
  /** The shard's frame encoding. */
  shard: 'json' | 'protobuf';
  /** Re-encodes the shard's frames (Table, PartialObjectMetadata, ...); undefined: they go out as they are. */
  transform: ((frames: Uint8Array) => Uint8Array) | undefined;
  contentType: string;
  /** The stream's last frame when it ends with an error (410 Gone, ...), in the stream's encoding. */
  errorFrame(err: StatusError): Uint8Array;
  /**
   * A BOOKMARK frame at `revision` for streams that have no harmless filler
   * to carry the response head where the front end cannot send it alone
   * (Protobuf on uWS); undefined where none is needed.
   */
  bookmarkFrame?: ((revision: number) => Uint8Array) | undefined;
}

const STATUS_GVK = { group: '', version: 'v1', kind: 'Status' };

/**
 * A watch's encoding for the negotiated representation. JSON and, for types
 * stored in their own shape, Protobuf frames are made in the shard once per
 * event; the rest re-encodes the shard's JSON frames here.
 */
export function watchEncodingFor(rt: ResourceType, n: Negotiated): WatchEncoding {
  const jsonError = (err: StatusError): Uint8Array => encoder.encode(`{"type":"ERROR","object":${JSON.stringify(err.toStatus())}}\n`);
  if (n.kind === 'protobuf') {
    const errorFrame = (err: StatusError): Uint8Array => encodeWatchEvent('ERROR', err.toStatus() as unknown as JsonObject, STATUS_GVK);
    const bookmarkFrame = (revision: number): Uint8Array => encodeWatchEvent('BOOKMARK', { metadata: { resourceVersion: String(revision) } }, gvkOf(rt));
    if (rt.conversion === undefined) return { shard: 'protobuf', transform: undefined, contentType: n.contentType, errorFrame, bookmarkFrame };
    return { shard: 'json', transform: watchFrameTransformer(rt, n), contentType: n.contentType, errorFrame, bookmarkFrame };
  }
  return { shard: 'json', transform: watchFrameTransformer(rt, n), contentType: n.contentType, errorFrame: jsonError };
}

/**
 * For a watch: a function re-encoding the shard's JSON frames in the
 * negotiated representation, or undefined when they go out as they are.
 */
export function watchFrameTransformer(rt: ResourceType, n: Negotiated): ((frames: Uint8Array) => Uint8Array) | undefined {
  if (n.kind === 'json') return undefined;
  if (n.kind === 'protobuf') {
    // Length-prefixed WatchEvent frames; an ERROR carries a Status.
    const gvk = gvkOf(rt);
    const statusGvk = { group: '', version: 'v1', kind: 'Status' };
    return (frames) => {
      const out: Uint8Array[] = [];
      for (const line of Buffer.from(frames.buffer, frames.byteOffset, frames.byteLength).toString('utf8').split('\n')) {
        if (line.trim() === '') continue;
        const ev = parseStoredJson<{ type: string; object: JsonObject }>(line, 'a watch event');
        out.push(encodeWatchEvent(ev.type, ev.object, ev.type === 'ERROR' ? statusGvk : gvk));
      }
      return Buffer.concat(out);
    };
  }
  let encode: (obj: JsonObject) => unknown;
  if (n.kind === 'table') {
    encode = tableWatchEncoder(kindInfo(rt), { includeObject: n.includeObject, tableGroup: n.group, tableVersion: n.version });
  } else {
    encode = (obj) => (obj['kind'] === 'Status' ? obj : partialObjectMetadata(obj, `${n.group}/${n.version}`));
  }
  return (frames) => {
    const out: string[] = [];
    for (const line of Buffer.from(frames.buffer, frames.byteOffset, frames.byteLength).toString('utf8').split('\n')) {
      if (line.trim() === '') continue;
      const ev = parseStoredJson<{ type: string; object: JsonObject }>(line, 'a watch event');
      // Bookmarks keep their object: clients read only its resourceVersion.
      if (ev.type !== 'BOOKMARK') ev.object = encode(ev.object) as JsonObject;
      out.push(JSON.stringify(ev));
    }
    return encoder.encode(out.join('\n') + '\n');
  };
}
