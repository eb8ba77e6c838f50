/**
 * The Protobuf forms a shard serves from its cache: list items and watch
 * frames. Each object version is encoded once, on first demand, and its
 * message bytes kept on the CachedObject, so that every later list page and
 * every watcher group carrying that version only copies bytes. JSON is
 * parsed only for that one encoding.
 */
import type { GroupVersionKind } from '../openapi/schema-dsl.ts';
import type { Revision } from '../storage/interface.ts';
import { encodeMessageBytes, parseApiVersion, supportsProtobuf, watchFrameFromMessage, type JsonObject } from '../protobuf/index.ts';
import type { CachedObject, ObjectCodec } from './cached-object.ts';
import type { CacheEventType } from './event-window.ts';
import type { FrameEncoder } from './watchers.ts';

/** The kind a resource's cache holds, from its apiVersion and kind. */
export function gvkOf(apiVersion: string, kind: string): GroupVersionKind {
  return { ...parseApiVersion(apiVersion), kind };
}

/** The object's message bytes, encoded on first use and kept on the object. */
export function protobufMessage(obj: CachedObject, gvk: GroupVersionKind): Uint8Array {
  let bytes = obj.protobuf;
  if (bytes === undefined) {
    bytes = encodeMessageBytes(obj.parse() as JsonObject, gvk);
    obj.protobuf = bytes;
  }
  return bytes;
}

/** Bytes of the varint of `n` (a length). */
function varintSize(n: number): number {
  let size = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 0x80);
    size++;
  }
  return size;
}

/**
 * The items of a list message (field 2, one per object: key, length, message)
 * joined into one buffer of its own, ready to sit between the envelope's head
 * and tail. Written in place: no per-item allocation beyond first encodings.
 */
export function protobufListItems(objs: readonly CachedObject[], gvk: GroupVersionKind, alloc: (bytes: number) => Uint8Array = (n) => new Uint8Array(n)): Uint8Array {
  const messages: Uint8Array[] = new Array<Uint8Array>(objs.length);
  let total = 0;
  for (let i = 0; i < objs.length; i++) {
    const m = protobufMessage(objs[i]!, gvk);
    messages[i] = m;
    total += 1 + varintSize(m.length) + m.length;
  }
  const out = alloc(total);
  let p = 0;
  for (const m of messages) {
    out[p++] = LIST_ITEM_KEY;
    let len = m.length;
    while (len >= 0x80) {
      out[p++] = (len % 0x80) | 0x80;
      len = Math.floor(len / 0x80);
    }
    out[p++] = len;
    out.set(m, p);
    p += m.length;
  }
  return out;
}

/** Field 2, wire type 2: a list message's `items`. */
const LIST_ITEM_KEY = 0x12;

/** Length-prefixed WatchEvent frames (`application/vnd.orch.protobuf;stream=watch`) for one kind. */
export function protobufFrames(gvk: GroupVersionKind): FrameEncoder {
  return {
    event(type: CacheEventType, obj: CachedObject): Uint8Array {
      return watchFrameFromMessage(type, gvk, protobufMessage(obj, gvk));
    },
    bookmark(codec: ObjectCodec, revision: Revision, initialEventsEnd: boolean): Uint8Array {
      const json = codec.bookmark(revision, initialEventsEnd);
      const obj = JSON.parse(Buffer.from(json.buffer, json.byteOffset, json.byteLength).toString('utf8')) as JsonObject;
      return watchFrameFromMessage('BOOKMARK', gvk, encodeMessageBytes(obj, gvk));
    },
  };
}

/** Whether the kind has a Protobuf form (built-in kinds do; extension-defined ones do not). */
export function hasProtobufForm(gvk: GroupVersionKind): boolean {
  return supportsProtobuf(gvk);
}
