/**
 * Shallow copies for the request path that stay on V8's fast path.
 *
 * On Node 20's V8 a member added to an object made by spread costs a
 * microsecond or more on this machine (`{ ...o, k: v }` with `k` new to `o`, or
 * `c = { ...o }; c.k = v`: the clone's map has no transition to follow, so one
 * is built each time), against ~0.1 µs for an `Object.assign` copy that then
 * grows the ordinary way (the README's performance notes, session 17).
 * Overriding a member the source already has stays cheap either way.
 */

/**
 * A shallow copy of `source` with `key` set to `value`: appended when new, in
 * its place when `source` has it already (as `{ ...source, [key]: value }`).
 */
export function copyWith<T extends object, K extends string, V>(source: T, key: K, value: V): Omit<T, K> & Record<K, V> {
  const out = copyOf(source) as Record<string, unknown>;
  if (key === '__proto__') Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true });
  else out[key] = value;
  return out as Omit<T, K> & Record<K, V>;
}

/** A shallow copy of `source`'s own enumerable members, to add members to (as `{ ...source }`). */
export function copyOf<T extends object>(source: T): T {
  // An own `__proto__` member (JSON.parse makes one) must stay a member: Object.assign would set the prototype.
  if (Object.prototype.hasOwnProperty.call(source, '__proto__')) return { ...source };
  return Object.assign({}, source);
}
