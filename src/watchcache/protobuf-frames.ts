/**
 * The Protobuf forms a shard serves from its cache: list items and watch
 * frames. Each object version is encoded once, on first demand, and its
 * message bytes kept on the CachedObject, so that every later list page and
 * every watcher group carrying that version only copies bytes. JSON is
 * parsed only for that one encoding.
 */
import type { GroupVersionKind } from '../openapi/schema-dsl.ts';
import type { Revision } from '../storage/interface.ts';
import { encodeMessageBytes, joinListItems, parseApiVersion, watchFrameWriter, type JsonObject } from '../protobuf/index.ts';
import type { CachedObject, ObjectCodec } from './cached-object.ts';
import type { CacheEventType } from './event-window.ts';
import type { FrameEncoder } from './watchers.ts';
import { ObjectEncodeError } from './object-errors.ts';

/** The kind a resource's cache holds, from its apiVersion and kind. */
export function gvkOf(apiVersion: string, kind: string): GroupVersionKind {
  return { ...parseApiVersion(apiVersion), kind };
}

/**
 * The object's message bytes, encoded on first use and kept on the object.
 * ObjectEncodeError when the object does not fit its Protobuf type.
 */
export function protobufMessage(obj: CachedObject, gvk: GroupVersionKind): Uint8Array {
  let bytes = obj.protobuf;
  if (bytes === undefined) {
    try {
      bytes = encodeMessageBytes(obj.parse() as JsonObject, gvk);
    } catch (err) {
      throw new ObjectEncodeError(obj, 'protobuf', err);
    }
    obj.protobuf = bytes;
  }
  return bytes;
}

/**
 * The items of a list message (field 2, one per object) joined into one
 * buffer of its own, ready to sit between the envelope's head and tail.
 */
export function protobufListItems(objs: readonly CachedObject[], gvk: GroupVersionKind, alloc?: (bytes: number) => Uint8Array): Uint8Array {
  return joinListItems(
    objs.map((o) => protobufMessage(o, gvk)),
    alloc,
  );
}

/** Length-prefixed WatchEvent frames (`application/vnd.<product>.protobuf;stream=watch`) for one kind. */
export function protobufFrames(gvk: GroupVersionKind): FrameEncoder {
  // Built on first use: kinds nobody watches in Protobuf never load the codec.
  let frame: ((type: string, message: Uint8Array) => Uint8Array) | undefined;
  const writer = (): ((type: string, message: Uint8Array) => Uint8Array) => (frame ??= watchFrameWriter(gvk));
  return {
    event(type: CacheEventType, obj: CachedObject): Uint8Array {
      return writer()(type, protobufMessage(obj, gvk));
    },
    bookmark(codec: ObjectCodec, revision: Revision, initialEventsEnd: boolean): Uint8Array {
      const json = codec.bookmark(revision, initialEventsEnd);
      const obj = JSON.parse(Buffer.from(json.buffer, json.byteOffset, json.byteLength).toString('utf8')) as JsonObject;
      return writer()('BOOKMARK', encodeMessageBytes(obj, gvk));
    },
  };
}
