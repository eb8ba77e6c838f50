/**
 * ObjectEncodeError: one stored object version that a representation cannot
 * carry (server data that does not fit its type: a boolean where Protobuf
 * wants a string, ...). It fails only what must encode that version — one
 * list answer, or the watchers whose encoding it is — never the shard.
 *
 * The message names the object by namespace and name (never its content, so
 * a Secret's values cannot reach a log or a client) and keeps the cause's
 * field path and expected type.
 */
import type { Revision } from '../storage/interface.ts';
import type { CachedObject } from './cached-object.ts';

export class ObjectEncodeError extends Error {
  readonly key: string;
  readonly revision: Revision;
  readonly encoding: string;

  constructor(obj: CachedObject, encoding: string, cause: unknown) {
    const who = obj.namespace === '' ? obj.name : `${obj.namespace}/${obj.name}`;
    const why = cause instanceof Error ? cause.message : String(cause);
    super(`object ${who} (resourceVersion ${obj.revision}) cannot be encoded as ${encoding}: ${why}`, { cause });
    this.name = 'ObjectEncodeError';
    this.key = obj.key;
    this.revision = obj.revision;
    this.encoding = encoding;
  }
}
