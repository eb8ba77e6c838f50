/**
 * How store keys map onto etcd keys, byte-wise.
 *
 * A store key `k` lives at etcd key `prefix + utf8(k)`. Ranges are computed on
 * bytes, never on JS strings: etcd orders keys by bytes, and UTF-16 order
 * differs from UTF-8 byte order above the BMP.
 *
 * Reserved keys: UTF-8 never produces the byte 0xFF, so no store key can
 * contain it. Keys containing 0xFF are therefore free for the backend's own
 * use (the progress sentinels of {@link sentinelFor}) and are never returned
 * to callers.
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export const RESERVED_BYTE = 0xff;

export class KeyCodec {
  readonly prefix: Buffer;

  constructor(prefix: string) {
    this.prefix = Buffer.from(encoder.encode(prefix));
  }

  /** The etcd key of store key `key`. */
  encode(key: string): Buffer {
    const k = encoder.encode(key);
    const out = Buffer.allocUnsafe(this.prefix.length + k.length);
    this.prefix.copy(out, 0);
    out.set(k, this.prefix.length);
    return out;
  }

  /** The store key of an etcd key under the prefix. */
  decode(etcdKey: Uint8Array): string {
    return decoder.decode(etcdKey.subarray(this.prefix.length));
  }

  /** The etcd range [start, end) holding the store keys that start with `storePrefix`. */
  prefixRange(storePrefix: string): { start: Buffer; end: Buffer } {
    const start = this.encode(storePrefix);
    // etcd rejects an empty key; "\0" is the smallest non-empty one.
    return { start: start.length > 0 ? start : Buffer.from([0]), end: prefixEnd(start) };
  }

  /** Some valid etcd key, for requests that only want a response header. */
  get probeKey(): Buffer {
    return this.prefix.length > 0 ? this.prefix : Buffer.from([0]);
  }
}

/** True for an etcd key the backend reserved for itself (see the module comment). */
export function isReserved(etcdKey: Uint8Array): boolean {
  return etcdKey.indexOf(RESERVED_BYTE) !== -1;
}

/**
 * The smallest key greater than every key starting with `key`: drop trailing
 * 0xFF bytes and increment the last byte. `\0` (etcd's "to the end of the
 * keyspace") when there is none.
 */
export function prefixEnd(key: Uint8Array): Buffer {
  let n = key.length;
  while (n > 0 && key[n - 1] === 0xff) n--;
  if (n === 0) return Buffer.from([0]);
  const end = Buffer.from(key.subarray(0, n));
  end[n - 1]! += 1;
  return end;
}

/**
 * The progress sentinel of the watched range starting at `start`, and the
 * etcd range a watch must cover so that it sees both the data and the sentinel.
 *
 * The sentinel sits in the one gap next to the range that no store key can
 * occupy: for `start = X·b` (last byte b > 0) every key in
 * [X·(b-1)·0xFF, X·b) starts with X·(b-1)·0xFF, so contains 0xFF. Putting the
 * sentinel there keeps it out of the watched prefix's own listings; only
 * listings of a shorter prefix (e.g. `/` for a watch on `/pods/`) can meet it,
 * and they drop reserved keys. When there is no such gap (empty start, or a
 * last byte 0), the sentinel is `start·0xFF`, inside the range, after every
 * store key in it.
 */
export function sentinelFor(start: Buffer, end: Buffer): { sentinel: Buffer; watchStart: Buffer; watchEnd: Buffer } {
  const last = start.length > 0 ? start[start.length - 1]! : 0;
  if (last > 0) {
    const sentinel = Buffer.alloc(start.length + 1);
    start.copy(sentinel, 0);
    sentinel[start.length - 1] = last - 1;
    sentinel[start.length] = RESERVED_BYTE;
    return { sentinel, watchStart: sentinel, watchEnd: end };
  }
  const sentinel = Buffer.concat([start, Buffer.from([RESERVED_BYTE])]);
  return { sentinel, watchStart: start, watchEnd: end };
}
