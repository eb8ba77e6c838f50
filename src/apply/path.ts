/**
 * Path elements and paths, as in the original's fieldpath package. An
 * element names a struct or map field (`f:name`), a list item by its key
 * fields (`k:{"name":"c"}`), a set item by its value (`v:"a"`), or an item of
 * a list that has no other identity (`i:0`).
 *
 * Every element carries `id`, its FieldsV1 form. The form is canonical (key
 * fields sorted by name, map keys sorted, numbers in shortest form), so two
 * elements are equal exactly when their ids are; ordering follows the
 * original instead (fields, then keys, then values, then indexes; numbers
 * numerically), because sets serialize in that order.
 */
import { compare, compareStrings, goJson, goJsonString, isMap, valueToString, type Json } from './value.ts';

export interface KeyField {
  readonly name: string;
  readonly value: Json;
}

export type PathElement =
  | { readonly t: 0; readonly id: string; readonly name: string }
  | { readonly t: 1; readonly id: string; readonly key: readonly KeyField[] }
  | { readonly t: 2; readonly id: string; readonly value: Json }
  | { readonly t: 3; readonly id: string; readonly index: number };

export type Path = readonly PathElement[];

const interned = new Map<string, PathElement>();

/** A field element; interned, since the same field names recur in every object. */
export function fieldElement(name: string): PathElement {
  let pe = interned.get(name);
  if (pe === undefined) {
    pe = { t: 0, id: 'f:' + name, name };
    // Names come from clients too: keep the table bounded.
    if (interned.size < 50_000) interned.set(name, pe);
  }
  return pe;
}

/** A list item identified by key fields; they are sorted by name here. */
export function keyElement(fields: readonly KeyField[]): PathElement {
  const key = fields.length < 2 ? fields : [...fields].sort((a, b) => compareStrings(a.name, b.name));
  let id = 'k:{';
  for (let i = 0; i < key.length; i++) {
    if (i > 0) id += ',';
    id += goJsonString(key[i]!.name) + ':' + goJson(key[i]!.value);
  }
  return { t: 1, id: id + '}', key };
}

/** Shorthand for tests and tables: `keyOf({ name: 'a' })`. */
export function keyOf(fields: Readonly<Record<string, Json>>): PathElement {
  return keyElement(Object.keys(fields).map((name) => ({ name, value: fields[name]! })));
}

export function valueElement(value: Json): PathElement {
  return { t: 2, id: 'v:' + goJson(value), value };
}

export function indexElement(index: number): PathElement {
  return { t: 3, id: 'i:' + String(index), index };
}

/** The original's order: fields < keys < values < indexes, then by content. */
export function compareElements(a: PathElement, b: PathElement): number {
  if (a.t !== b.t) return a.t < b.t ? -1 : 1;
  if (a.id === b.id) return 0;
  switch (a.t) {
    case 0:
      return compareStrings(a.name, (b as typeof a).name);
    case 1:
      return compareKeys(a.key, (b as typeof a).key);
    case 2:
      return compare(a.value, (b as typeof a).value);
    default:
      return a.index < (b as typeof a).index ? -1 : 1;
  }
}

function compareKeys(a: readonly KeyField[], b: readonly KeyField[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = compareStrings(a[i]!.name, b[i]!.name);
    if (c !== 0) return c;
    const d = compare(a[i]!.value, b[i]!.value);
    if (d !== 0) return d;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

/** How an element prints in a path: `.name`, `[name="c",port=80]`, `[="a"]`, `[0]`. */
export function elementString(pe: PathElement): string {
  switch (pe.t) {
    case 0:
      return '.' + pe.name;
    case 1:
      return '[' + pe.key.map((f) => `${f.name}=${valueToString(f.value)}`).join(',') + ']';
    case 2:
      return `[=${valueToString(pe.value)}]`;
    default:
      return `[${pe.index}]`;
  }
}

/** A path as the original prints it in conflicts: `.spec.containers[name="c"].image`. */
export function pathString(path: Path): string {
  let s = '';
  for (const pe of path) s += elementString(pe);
  return s;
}

/** Thrown for a FieldsV1 key that does not parse. */
export class PathElementError extends Error {}

/** Marker for a FieldsV1 key with a prefix this version does not know; the original skips those. */
export const UNKNOWN_ELEMENT = Symbol('unknown path element type');

/**
 * Parses a FieldsV1 key (`f:name`, `k:{...}`, `v:...`, `i:3`). Keys with
 * another one-letter prefix are UNKNOWN_ELEMENT (skipped, for forward
 * compatibility); malformed ones throw.
 */
export function parseElement(s: string): PathElement | typeof UNKNOWN_ELEMENT {
  if (s.charCodeAt(0) === 0x66 /* f */ && s.charCodeAt(1) === 0x3a /* : */) return fieldElement(s.slice(2));
  let pe = parsed.get(s);
  if (pe === undefined) {
    pe = parseUncached(s);
    // Stored entries repeat the same keys request after request; keep a bounded cache.
    if (parsed.size >= 20_000) parsed.clear();
    parsed.set(s, pe);
  }
  return pe;
}

const parsed = new Map<string, PathElement | typeof UNKNOWN_ELEMENT>();

function parseUncached(s: string): PathElement | typeof UNKNOWN_ELEMENT {
  if (s.length < 2) throw new PathElementError('key must be 2 characters long');
  if (s[1] !== ':') throw new PathElementError(`missing colon: ${s}`);
  const rest = s.slice(2);
  switch (s[0]) {
    case 'f':
      return fieldElement(rest);
    case 'v':
      return valueElement(parseJson(rest));
    case 'k': {
      const obj = parseJson(rest);
      if (!isMap(obj)) throw new PathElementError(`key element is not a JSON object: ${s}`);
      return keyElement(Object.keys(obj).map((name) => ({ name, value: obj[name]! })));
    }
    case 'i': {
      if (!/^[+-]?\d+$/.test(rest)) throw new PathElementError(`invalid index: ${s}`);
      return indexElement(Number(rest));
    }
    default:
      return UNKNOWN_ELEMENT;
  }
}

function parseJson(s: string): Json {
  try {
    return JSON.parse(s) as Json;
  } catch (err) {
    throw new PathElementError(err instanceof Error ? err.message : String(err));
  }
}
