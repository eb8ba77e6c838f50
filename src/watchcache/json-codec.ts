/**
 * JsonObjectCodec decodes objects stored as JSON.
 *
 * Writers store objects serialized with `metadata` right after `kind` and
 * `apiVersion` and an empty `resourceVersion` as its first member (the
 * registry clears resourceVersion before storing, as the original does). Decoding then splices the revision into the bytes without
 * parsing them; labels and fields are parsed only when a selector asks.
 * Objects without the placeholder are parsed and re-serialized once.
 */
import type { Revision } from '../storage/interface.ts';
import type { CachedObject, ObjectCodec } from './cached-object.ts';
import { names } from '../naming/index.ts';
import { ObjectDecodeError } from './object-errors.ts';

/** What writers put at the start of the top-level metadata; see the module comment. */
export const RESOURCE_VERSION_PLACEHOLDER = '"metadata":{"resourceVersion":""';
const PLACEHOLDER = Buffer.from(RESOURCE_VERSION_PLACEHOLDER);
const encoder = new TextEncoder();

/** Annotation on the bookmark that ends a streaming list's initial events. */
export const INITIAL_EVENTS_END = names.initialEventsEndAnnotation;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Splits `/<prefix...>/<ns>/<name>` or `/<prefix...>/<name>` after the resource prefix. */
function splitKey(key: string, prefixLength: number, namespaced: boolean): { namespace: string; name: string } {
  const rest = key.slice(prefixLength);
  if (!namespaced) return { namespace: '', name: rest };
  const slash = rest.indexOf('/');
  if (slash < 0) return { namespace: '', name: rest };
  return { namespace: rest.slice(0, slash), name: rest.slice(slash + 1) };
}

/** Reads a dotted path such as `spec.nodeName` from a parsed object, as a string. */
export function readField(obj: Json, path: string): string | undefined {
  let cur: Json | undefined = obj;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    cur = cur[part];
  }
  if (cur === undefined || cur === null) return undefined;
  if (typeof cur === 'string') return cur;
  if (typeof cur === 'number' || typeof cur === 'boolean') return String(cur);
  return undefined;
}

class JsonCachedObject implements CachedObject {
  #parsed: Json | undefined;
  protobuf: Uint8Array | undefined = undefined;
  readonly jsonLength: number;
  constructor(
    readonly key: string,
    readonly namespace: string,
    readonly name: string,
    readonly revision: Revision,
    readonly json: Uint8Array,
    readonly typeMetaBytes: number,
    parsed?: Json,
    readonly stale?: boolean,
  ) {
    this.jsonLength = json.byteLength;
    this.#parsed = parsed;
  }
  #object(): Json {
    if (this.#parsed === undefined) this.#parsed = this.#parseJson();
    return this.#parsed;
  }
  /** The bytes parsed; ObjectDecodeError (which never quotes them) when they are not JSON. */
  #parseJson(): Json {
    try {
      return JSON.parse(Buffer.from(this.json.buffer, this.json.byteOffset, this.json.byteLength).toString('utf8')) as Json;
    } catch {
      throw new ObjectDecodeError(this.key, this.namespace, this.name, this.revision);
    }
  }
  parse(): Readonly<Record<string, unknown>> {
    // Not kept: an encoder needs it once, and a parsed object costs several times its bytes.
    const obj = this.#parsed ?? this.#parseJson();
    return obj !== null && typeof obj === 'object' && !Array.isArray(obj) ? obj : {};
  }
  labels(): Readonly<Record<string, string>> {
    const obj = this.#object();
    if (obj && typeof obj === 'object' && !Array.isArray(obj)) {
      const md = obj['metadata'];
      if (md && typeof md === 'object' && !Array.isArray(md)) {
        const labels = md['labels'];
        if (labels && typeof labels === 'object' && !Array.isArray(labels)) return labels as Record<string, string>;
      }
    }
    return {};
  }
  field(path: string): string | undefined {
    if (path === 'metadata.name') return this.name;
    if (path === 'metadata.namespace') return this.namespace;
    return readField(this.#object(), path);
  }
}

export interface JsonCodecOptions {
  /** The resource's key prefix including the trailing slash, e.g. `/pods/`. */
  prefix: string;
  namespaced: boolean;
  /** `apiVersion` and `kind` for bookmark objects. */
  apiVersion: string;
  kind: string;
}

export class JsonObjectCodec implements ObjectCodec {
  readonly #opts: JsonCodecOptions;
  /** `{"kind":"<Kind>","apiVersion":"<version>",`: how the type's objects start in the canonical layout. */
  readonly #typeMeta: Buffer;
  constructor(opts: JsonCodecOptions) {
    this.#opts = opts;
    this.#typeMeta = Buffer.from(`{"kind":${JSON.stringify(opts.kind)},"apiVersion":${JSON.stringify(opts.apiVersion)},`);
  }

  /** The typeMetaBytes of stored bytes whose top-level metadata starts at `metadataAt`: only the type's own kind and apiVersion count. */
  #typeMetaBytes(buf: Buffer, metadataAt: number): number {
    const prefix = this.#typeMeta;
    return metadataAt === prefix.length && buf.compare(prefix, 0, prefix.length, 0, prefix.length) === 0 ? prefix.length - 1 : 0;
  }

  decode(key: string, value: Uint8Array, revision: Revision, stale?: boolean): CachedObject {
    const { namespace, name } = splitKey(key, this.#opts.prefix.length, this.#opts.namespaced);
    const buf = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    const at = buf.indexOf(PLACEHOLDER);
    if (at >= 0) {
      return new JsonCachedObject(key, namespace, name, revision, spliceRevision(buf, at, revision), this.#typeMetaBytes(buf, at), undefined, stale === true ? true : undefined);
    }
    // Slow path: no placeholder (an object written by another tool). Bring it
    // into the canonical layout so that `represent` can splice it later.
    const canonical = canonicalLayout(buf);
    if (canonical === null) throw new ObjectDecodeError(key, namespace, name, revision);
    return this.decode(key, canonical, revision, stale);
  }

  represent(obj: CachedObject, revision: Revision): CachedObject {
    if (obj.revision === revision) return obj;
    const json = Buffer.from(obj.json.buffer, obj.json.byteOffset, obj.json.byteLength);
    const head = Buffer.from(`"metadata":{"resourceVersion":"${obj.revision}"`);
    const at = json.indexOf(head);
    if (at < 0) throw new Error(`object ${obj.key} is not in canonical JSON layout`);
    const stored = Buffer.concat([json.subarray(0, at), PLACEHOLDER, json.subarray(at + head.length)]);
    return this.decode(obj.key, stored, revision, obj.stale);
  }

  bookmark(revision: Revision, initialEventsEnd: boolean): Uint8Array {
    const annotations = initialEventsEnd ? `,"annotations":{"${INITIAL_EVENTS_END}":"true"}` : '';
    return encoder.encode(
      `{"kind":${JSON.stringify(this.#opts.kind)},"apiVersion":${JSON.stringify(this.#opts.apiVersion)},"metadata":{"resourceVersion":"${revision}"${annotations}}}`,
    );
  }
}

/**
 * Stored bytes with `revision` in place of their empty resourceVersion, which
 * starts at `at` (where PLACEHOLDER is). Each object gets an ArrayBuffer of
 * its own: a pooled slice would drag its whole 8 KiB pool through every
 * structured clone to another thread.
 */
function spliceRevision(stored: Buffer, at: number, revision: Revision): Buffer {
  // ASCII (a revision is digits): its length is its byte length, and it is written straight into the new bytes.
  const rv = `"metadata":{"resourceVersion":"${revision}"`;
  // From Buffer's shared pool: a write's answer is written to its client and dropped (never kept, never moved to
  // another thread), and an ArrayBuffer of its own costs about three times as much to make.
  const json = Buffer.allocUnsafe(stored.length - PLACEHOLDER.length + rv.length);
  stored.copy(json, 0, 0, at);
  json.write(rv, at, 'latin1');
  stored.copy(json, at + rv.length, at + PLACEHOLDER.length);
  return json;
}

/** Stored bytes not in the canonical layout (written by another tool), brought into it; null when they are no JSON object. */
function canonicalLayout(stored: Buffer): Buffer | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stored.toString('utf8'));
  } catch {
    return null;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
  return serializeForStorage(parsed as Record<string, unknown>);
}

/** Whether stored bytes are in the canonical layout (an empty resourceVersion to splice a revision into). */
export function hasRevisionPlaceholder(stored: Uint8Array): boolean {
  return Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength).indexOf(PLACEHOLDER) >= 0;
}

/**
 * An object's JSON as served at `revision`, from its stored bytes: what
 * JsonObjectCodec.decode makes, for a writer that needs the bytes alone
 * (shards/direct-writes.ts). Null when the stored bytes are no JSON object.
 * Small answers share Buffer's pool: to write out, not to keep or transfer.
 */
export function jsonAtRevision(stored: Uint8Array, revision: Revision): Buffer | null {
  const buf = Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength);
  const at = buf.indexOf(PLACEHOLDER);
  if (at >= 0) return spliceRevision(buf, at, revision);
  const canonical = canonicalLayout(buf);
  return canonical === null ? null : spliceRevision(canonical, canonical.indexOf(PLACEHOLDER), revision);
}

/**
 * Serializes an object for storage in the layout the fast decode path expects:
 * kind, apiVersion, then metadata starting with an empty resourceVersion.
 */
export function serializeForStorage(obj: Readonly<Record<string, unknown>>): Buffer {
  // Members copied one by one (not through rest copies, slow on Node 20); a `__proto__` member (JSON.parse makes
  // one) stays a member: plain assignment would set the copy's prototype and drop it from the text.
  const ordered: Record<string, unknown> = {};
  if (obj['kind'] !== undefined) ordered['kind'] = obj['kind'];
  if (obj['apiVersion'] !== undefined) ordered['apiVersion'] = obj['apiVersion'];
  const metadata = obj['metadata'];
  const md: Record<string, unknown> = { resourceVersion: '' };
  if (metadata !== null && typeof metadata === 'object') {
    const source = metadata as Record<string, unknown>;
    for (const key of Object.keys(source)) if (key !== 'resourceVersion') setMember(md, key, source[key]);
  }
  ordered['metadata'] = md;
  for (const key of Object.keys(obj)) if (key !== 'kind' && key !== 'apiVersion' && key !== 'metadata') setMember(ordered, key, obj[key]);
  // Buffer.from rather than TextEncoder: on Node 20 `encode` makes an ArrayBuffer of its own per call (~5 µs for a
  // 1.4 KB object, against ~1 µs from Buffer's pool). The bytes are copied on by whoever keeps or moves them (a
  // byte lane, a store's own copy), never transferred as they are.
  return Buffer.from(JSON.stringify(ordered), 'utf8');
}

function setMember(o: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(o, key, { value, writable: true, enumerable: true, configurable: true });
  else o[key] = value;
}
