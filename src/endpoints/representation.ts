/**
 * Turns what the store returns (JSON bytes of objects, lists and watch
 * frames) into the representation the client negotiated: JSON as is (the
 * fast path: bytes pass through untouched), a Table, or PartialObjectMetadata.
 * Protobuf is chosen here too once the codec is wired (see protobuf.ts).
 */
import type { RequestContext } from '../server/context.ts';
import type { ResourceType } from '../registry/resource-type.ts';
import type { ListReply } from '../../shards/protocol.ts';
import { negotiate, type Negotiated } from './negotiate.ts';
import { objectTable, partialObjectMetadata, partialObjectMetadataList, tableWatchEncoder, toTable, type JsonObject, type KindInfo } from './table/index.ts';
import { listBody, type ListMetadata } from './respond.ts';
import { errors } from './status.ts';
import { encodeList, encodeObject, encodeWatchEvent, supportsProtobuf } from '../protobuf/index.ts';

const encoder = new TextEncoder();

export interface Rendered {
  body: Uint8Array;
  contentType: string;
}

function kindInfo(rt: ResourceType): KindInfo {
  return { group: rt.group, version: rt.version, kind: rt.kind, resource: rt.resource };
}

function parse(bytes: Uint8Array): JsonObject {
  return JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')) as JsonObject;
}

const gvkOf = (rt: ResourceType) => ({ group: rt.group, version: rt.version, kind: rt.kind });

/** Protobuf is served for built-in kinds the codec knows (spec 4.6: not for extension types). */
export function protobufAllowed(rt: ResourceType): boolean {
  return supportsProtobuf(gvkOf(rt));
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

/** One object (get, create, update, patch, delete answers). */
export function renderObject(rt: ResourceType, n: Negotiated, json: Uint8Array): Rendered {
  switch (n.kind) {
    case 'json':
      return { body: json, contentType: 'application/json' };
    case 'protobuf': {
      const obj = parse(json);
      // A DELETE may answer a Status rather than the object: keep it JSON-shaped in protobuf's envelope only for kinds we know.
      if (obj['kind'] === 'Status') return { body: json, contentType: 'application/json' };
      return { body: encodeObject(obj, gvkOf(rt)), contentType: n.contentType };
    }
    case 'table':
      return { body: encoder.encode(JSON.stringify(objectTable(kindInfo(rt), parse(json), { includeObject: n.includeObject, tableGroup: n.group, tableVersion: n.version, now: new Date() }))), contentType: n.contentType };
    case 'partial-metadata':
      return { body: encoder.encode(JSON.stringify(partialObjectMetadata(parse(json), `${n.group}/${n.version}`))), contentType: n.contentType };
  }
}

/** A list answer around the shard's joined item bytes. */
export function renderList(rt: ResourceType, n: Negotiated, reply: ListReply, meta: ListMetadata): Rendered {
  if (n.kind === 'json') return { body: listBody(rt, reply, meta), contentType: 'application/json' };
  const items = reply.count === 0 ? [] : (JSON.parse(`[${Buffer.from(reply.items.buffer, reply.items.byteOffset, reply.items.byteLength).toString('utf8')}]`) as JsonObject[]);
  const listMeta = { resourceVersion: meta.resourceVersion, continue: meta.continue, remainingItemCount: meta.remainingItemCount };
  if (n.kind === 'protobuf') {
    const md: JsonObject = { resourceVersion: meta.resourceVersion };
    if (meta.continue) md['continue'] = meta.continue;
    if (meta.remainingItemCount !== undefined) md['remainingItemCount'] = meta.remainingItemCount;
    return { body: encodeList({ group: rt.group, version: rt.version, kind: rt.listKind }, md, items), contentType: n.contentType };
  }
  if (n.kind === 'table') {
    const table = toTable(kindInfo(rt), items, listMeta, { includeObject: n.includeObject, tableGroup: n.group, tableVersion: n.version, now: new Date() });
    return { body: encoder.encode(JSON.stringify(table)), contentType: n.contentType };
  }
  return { body: encoder.encode(JSON.stringify(partialObjectMetadataList(items, listMeta, n.group, n.version))), contentType: n.contentType };
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
        const ev = JSON.parse(line) as { type: string; object: JsonObject };
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
      const ev = JSON.parse(line) as { type: string; object: JsonObject };
      // Bookmarks keep their object: clients read only its resourceVersion.
      if (ev.type !== 'BOOKMARK') ev.object = encode(ev.object) as JsonObject;
      out.push(JSON.stringify(ev));
    }
    return encoder.encode(out.join('\n') + '\n');
  };
}
