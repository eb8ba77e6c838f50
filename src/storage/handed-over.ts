/**
 * Values a store may keep as they are, without its defensive copy: bytes that
 * arrived through a structured clone (the store host's port), which nobody
 * else holds. A store copies every other value so that a caller reusing its
 * buffer cannot change what was stored; here that copy is a second buffer of
 * the same bytes (an ArrayBuffer of its own costs about a microsecond to make,
 * and a write makes several).
 *
 * Only a view of a whole buffer of its own is taken: a view into a larger
 * buffer would keep all of it alive as long as the value is stored.
 */
const handedOver = new WeakSet<Uint8Array>();

/** Marks `value` as the store's to keep (its sender kept no reference). */
export function handOver(value: Uint8Array): Uint8Array {
  if (value.byteOffset === 0 && value.byteLength === value.buffer.byteLength) handedOver.add(value);
  return value;
}

/** `value` itself when it was handed over, else a copy of its bytes. */
export function ownedCopy(value: Uint8Array): Uint8Array {
  return handedOver.has(value) ? value : new Uint8Array(value);
}
