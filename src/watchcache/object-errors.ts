/**
 * Errors about one stored object version. Each fails only what needs that
 * version (one list answer, the watchers whose encoding must carry it, the
 * cache's feed until the value is gone), never the shard.
 *
 * Messages name the object by namespace and name and never quote its
 * content: they reach logs and clients' Status messages, and the object may
 * be a Secret. (V8's JSON.parse messages quote the text around the error,
 * which is why a parse failure is never passed on as it is.)
 */
import type { Revision } from '../storage/interface.ts';
import type { CachedObject } from './cached-object.ts';

/** `namespace/name`, or `name` for cluster-scoped objects. */
function nameOf(namespace: string, name: string): string {
  return namespace === '' ? name : `${namespace}/${name}`;
}

/** A stored value that is not the JSON object it should be (not JSON at all, or not an object). */
export class ObjectDecodeError extends Error {
  constructor(
    readonly key: string,
    namespace: string,
    name: string,
    readonly revision: Revision,
  ) {
    super(`stored object ${nameOf(namespace, name)} (resourceVersion ${revision}) is not a JSON object`);
    this.name = 'ObjectDecodeError';
  }
}

/** An object version that a representation cannot carry (a boolean where Protobuf wants a string, ...). */
export class ObjectEncodeError extends Error {
  readonly key: string;
  readonly revision: Revision;
  readonly encoding: string;

  constructor(obj: CachedObject, encoding: string, cause: unknown) {
    // The cause is our own codec's (a field path and the types involved, never values) or an ObjectDecodeError.
    const why = cause instanceof Error ? cause.message : String(cause);
    super(`object ${nameOf(obj.namespace, obj.name)} (resourceVersion ${obj.revision}) cannot be encoded as ${encoding}: ${why}`, { cause });
    this.name = 'ObjectEncodeError';
    this.key = obj.key;
    this.revision = obj.revision;
    this.encoding = encoding;
  }
}
