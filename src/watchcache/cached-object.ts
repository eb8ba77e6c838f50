/**
 * CachedObject is one stored object as the watch cache keeps it: decoded once
 * when it is written, serialized once (with its resourceVersion set), and
 * shared by every list page and watch frame that carries it.
 */
import type { Revision } from '../storage/interface.ts';

export interface CachedObject {
  /** Storage key, e.g. `/pods/default/web-1` or `/namespaces/default`. */
  readonly key: string;
  /** Namespace, '' for cluster-scoped objects. */
  readonly namespace: string;
  readonly name: string;
  /** The revision the object is presented at (its modRevision, or the revision of its deletion). */
  readonly revision: Revision;
  /** The object serialized as JSON with `metadata.resourceVersion` = revision. */
  readonly json: Uint8Array;
  /**
   * json's byte length, kept on this object: a list's walk reads it for
   * every item, and json's own length lives in another object (a cache miss
   * per item: 10 of the 17 ms a walk over 50,000 objects took).
   */
  readonly jsonLength: number;
  /**
   * The length of the type's own `"kind":"<Kind>","apiVersion":"<version>",`
   * right after json's opening brace (0 when the bytes there are anything
   * else): a list of a built-in type carries its items without them, as the
   * original's lists do, by leaving these bytes out.
   */
  readonly typeMetaBytes: number;
  /**
   * The object's Protobuf message bytes (no envelope), set by the first
   * Protobuf list or watch that carries this version and then shared by all.
   */
  protobuf: Uint8Array | undefined;
  /** Read through an old encryption key or provider: the next update rewrites it (see storage/encryption). */
  readonly stale?: boolean;
  /** The parsed JSON (a fresh parse unless a selector already parsed it: do not modify it). */
  parse(): Readonly<Record<string, unknown>>;
  /** Labels, decoded on first use. */
  labels(): Readonly<Record<string, string>>;
  /** A selectable field (`metadata.name`, `spec.nodeName`, ...); undefined when absent. */
  field(path: string): string | undefined;
}

/**
 * ObjectCodec turns stored bytes into a CachedObject. One codec per resource
 * type; it knows how the key encodes namespace and name.
 */
export interface ObjectCodec {
  decode(key: string, value: Uint8Array, revision: Revision, stale?: boolean): CachedObject;
  /** The same object presented at another revision (a DELETED event carries the last state at the delete's revision). */
  represent(obj: CachedObject, revision: Revision): CachedObject;
  /**
   * The JSON of an empty object of this type carrying only a resourceVersion
   * (watch bookmarks), annotated `<domain>/initial-events-end` when it ends
   * the initial events of a streaming list.
   */
  bookmark(revision: Revision, initialEventsEnd: boolean): Uint8Array;
}
