/**
 * Plain JSON values as JSON.parse returns them, and the few operations every
 * patch flavour needs on them. Property access goes through own-property
 * helpers: patch documents are client input, and a key such as `__proto__`
 * must stay an ordinary key instead of reaching Object.prototype.
 */

export type JsonObject = Record<string, unknown>;

export function isJsonObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function hasOwn(obj: JsonObject, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

/** The own value at `key`, or undefined when the key is absent. */
export function getOwn(obj: JsonObject, key: string): unknown {
  return hasOwn(obj, key) ? obj[key] : undefined;
}

export function setOwn(obj: JsonObject, key: string, value: unknown): void {
  // A plain assignment to `__proto__` would replace the prototype instead of adding a key. Any other key is a
  // plain data member of a plain object, where assignment does the same, as a fast store: defining every key
  // made copying an object (cloneJson) cost ~6× as much.
  if (key === '__proto__') Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}

/**
 * A deep copy; patch algorithms mutate their inputs, callers keep theirs.
 * Iterative: a patch (a JSON patch `copy` into itself) can build values
 * deeper than the stack allows.
 */
export function cloneJson<T>(v: T): T {
  if (typeof v !== 'object' || v === null) return v;
  const root: unknown = Array.isArray(v) ? new Array<unknown>(v.length) : {};
  const from: object[] = [v];
  const to: object[] = [root as object];
  while (from.length > 0) {
    const src = from.pop()!;
    const dst = to.pop()!;
    if (Array.isArray(src)) {
      const out = dst as unknown[];
      for (let i = 0; i < src.length; i++) out[i] = copyShallow(src[i], from, to);
    } else {
      const out = dst as JsonObject;
      for (const k of Object.keys(src)) setOwn(out, k, copyShallow((src as JsonObject)[k], from, to));
    }
  }
  return root as T;
}

/** A scalar as is, or a fresh empty container queued to be filled from `x`. */
function copyShallow(x: unknown, from: object[], to: object[]): unknown {
  if (typeof x !== 'object' || x === null) return x;
  const copy: object = Array.isArray(x) ? new Array<unknown>(x.length) : {};
  from.push(x);
  to.push(copy);
  return copy;
}

/** Structural equality: object key order does not matter, array order does. Iterative, as cloneJson. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  const left: unknown[] = [a];
  const right: unknown[] = [b];
  while (left.length > 0) {
    const x = left.pop();
    const y = right.pop();
    if (x === y) continue;
    if (typeof x !== typeof y || x === null || y === null || typeof x !== 'object') return false;
    if (Array.isArray(x)) {
      if (!Array.isArray(y) || x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) {
        left.push(x[i]);
        right.push(y[i]);
      }
      continue;
    }
    if (Array.isArray(y)) return false;
    const xo = x as JsonObject;
    const yo = y as JsonObject;
    const xk = Object.keys(xo);
    if (xk.length !== Object.keys(yo).length) return false;
    for (const k of xk) {
      if (!hasOwn(yo, k)) return false;
      left.push(xo[k]);
      right.push(yo[k]);
    }
  }
  return true;
}

/**
 * The dynamic type of a decoded value as the original's algorithms see it
 * (Go's reflect kinds on map[string]interface{} data). Numbers are one kind
 * here: JSON.parse cannot tell the original's int64 from float64.
 */
export type JsonKind = 'map' | 'slice' | 'string' | 'number' | 'bool' | 'nil';

export function jsonKind(v: unknown): JsonKind {
  if (v === null || v === undefined) return 'nil';
  if (Array.isArray(v)) return 'slice';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'number':
      return 'number';
    case 'boolean':
      return 'bool';
    default:
      return 'map';
  }
}
