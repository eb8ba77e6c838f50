/**
 * JSON values as server-side apply sees them, and the few operations the
 * original's `value` package offers on them: deep equality, a total order
 * (so list keys and set items sort the same way as in the original), and
 * Go-compatible renderings for field paths and FieldsV1 keys.
 *
 * JavaScript has one number type; the original tells int64 from float64.
 * Numbers here compare numerically, as the original does across the two.
 */

export type Json = null | boolean | number | string | JsonList | JsonMap;
export type JsonList = readonly Json[];
export interface JsonMap {
  readonly [key: string]: Json;
}

export function isMap(v: Json | undefined): v is JsonMap {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function isList(v: Json | undefined): v is JsonList {
  return Array.isArray(v);
}

const hasOwnProperty = Object.prototype.hasOwnProperty;

export function hasKey(m: JsonMap, key: string): boolean {
  return hasOwnProperty.call(m, key);
}

/** Sets `key` on a map being built; `__proto__` stays an ordinary key. */
export function setKey(m: Record<string, Json>, key: string, v: Json): void {
  if (key === '__proto__') Object.defineProperty(m, key, { value: v, writable: true, enumerable: true, configurable: true });
  else m[key] = v;
}

/** Deep equality; map key order does not matter, list order does. */
export function equals(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!equals(a[i]!, b[i]!)) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const am = a as JsonMap;
  const bm = b as JsonMap;
  let n = 0;
  for (const k in am) {
    if (!hasOwnProperty.call(am, k)) continue;
    n++;
    if (!hasOwnProperty.call(bm, k) || !equals(am[k]!, bm[k]!)) return false;
  }
  for (const k in bm) if (hasOwnProperty.call(bm, k)) n--;
  return n === 0;
}

/**
 * Orders strings by Unicode code point, as Go compares UTF-8 bytes.
 * JavaScript's `<` compares UTF-16 units, which puts U+E000..U+FFFF after
 * astral characters; the two agree everywhere else.
 */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  // Native comparison is right unless a surrogate or U+E000..U+FFFF is involved.
  if (!HIGH_UNITS.test(a) || !HIGH_UNITS.test(b)) return a < b ? -1 : 1;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      // Surrogates (D800-DFFF) stand for code points above FFFF: move them past E000-FFFF.
      x = x < 0xe000 ? x + 0x2000 : x - 0x800;
      y = y < 0xe000 ? y + 0x2000 : y - 0x800;
    }
    return x < y ? -1 : 1;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

const HIGH_UNITS = /[\ud800-\uffff]/;

/** Rank of a value's type in the original's total order: numbers, strings, booleans, lists, maps, null. */
function rank(v: Json): number {
  switch (typeof v) {
    case 'number':
      return 0;
    case 'string':
      return 1;
    case 'boolean':
      return 2;
    default:
      return v === null ? 5 : Array.isArray(v) ? 3 : 4;
  }
}

/** The original's total order on values (value.Compare): by type, then by content. */
export function compare(a: Json, b: Json): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 0:
      return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
    case 1:
      return compareStrings(a as string, b as string);
    case 2:
      return a === b ? 0 : a === false ? -1 : 1;
    case 3: {
      const x = a as JsonList;
      const y = b as JsonList;
      const n = Math.min(x.length, y.length);
      for (let i = 0; i < n; i++) {
        const c = compare(x[i]!, y[i]!);
        if (c !== 0) return c;
      }
      return x.length < y.length ? -1 : x.length > y.length ? 1 : 0;
    }
    case 4:
      return compareMaps(a as JsonMap, b as JsonMap);
    default:
      return 0;
  }
}

/** Maps compare by their sorted keys, then by the values under them. */
function compareMaps(a: JsonMap, b: JsonMap): number {
  const ka = Object.keys(a).sort(compareStrings);
  const kb = Object.keys(b).sort(compareStrings);
  const n = Math.min(ka.length, kb.length);
  for (let i = 0; i < n; i++) {
    const c = compareStrings(ka[i]!, kb[i]!);
    if (c !== 0) return c;
    const d = compare(a[ka[i]!]!, b[kb[i]!]!);
    if (d !== 0) return d;
  }
  return ka.length < kb.length ? -1 : ka.length > kb.length ? 1 : 0;
}

const HTML_UNSAFE = /[<>&\u2028\u2029]/;
const HTML_UNSAFE_ALL = /[<>&\u2028\u2029]/g;
const HTML_ESCAPES: Readonly<Record<string, string>> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/** A string as Go's encoding/json writes it: JSON escapes plus HTML-safe `<`, `>`, `&`. */
export function goJsonString(s: string): string {
  const out = JSON.stringify(s);
  // A non-global pattern for the test: a global one would carry lastIndex between calls.
  return HTML_UNSAFE.test(s) ? out.replace(HTML_UNSAFE_ALL, (c) => HTML_ESCAPES[c]!) : out;
}

/**
 * A value as Go's encoding/json writes it (the original serializes FieldsV1
 * keys `k:{...}` and `v:...` this way): map keys sorted, no spaces, HTML-safe.
 */
export function goJson(v: Json): string {
  switch (typeof v) {
    case 'string':
      return goJsonString(v);
    case 'number':
      return JSON.stringify(v);
    case 'boolean':
      return v ? 'true' : 'false';
    default:
      if (v === null) return 'null';
      if (Array.isArray(v)) return `[${(v as JsonList).map(goJson).join(',')}]`;
      return `{${Object.keys(v)
        .sort(compareStrings)
        .map((k) => `${goJsonString(k)}:${goJson((v as JsonMap)[k]!)}`)
        .join(',')}}`;
  }
}

/** Go's `%q` of a string: double-quoted with Go escapes; printable Unicode stays as is. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') out += '\\' + ch;
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x09) out += '\\t';
    else if (c === 0x0d) out += '\\r';
    else if (c === 0x07) out += '\\a';
    else if (c === 0x08) out += '\\b';
    else if (c === 0x0c) out += '\\f';
    else if (c === 0x0b) out += '\\v';
    else if (c < 0x20 || c === 0x7f) out += '\\x' + c.toString(16).padStart(2, '0');
    else if ((c >= 0x80 && c < 0xa0) || c === 0xad || c === 0x2028 || c === 0x2029 || c === 0xfeff) out += '\\u' + c.toString(16).padStart(4, '0');
    else out += ch;
  }
  return out + '"';
}

/**
 * Go's `%v` of a decoded JSON number. Integral numbers decode as int64 in the
 * original and print plainly; others are float64, printed with the shortest
 * digits and in exponent form below 1e-4 and from 1e6 (`1.5e+06`).
 */
export function goFloat(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : n < 0 ? '-Inf' : 'NaN';
  const [mant, exp] = n.toExponential().split('e') as [string, string];
  const e = Number(exp);
  if (e < -4 || e >= 6) return `${mant}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  return String(n);
}

/** The original's value.ToString: how list keys and set items print in field paths. */
export function valueToString(v: Json): string {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'number':
      return goFloat(v);
    case 'string':
      return goQuote(v);
    case 'boolean':
      return v ? 'true' : 'false';
    default:
      if (Array.isArray(v)) return `[${(v as JsonList).map(valueToString).join(',')}]`;
      return Object.keys(v)
        .sort(compareStrings)
        .map((k) => `${k}=${valueToString((v as JsonMap)[k]!)}`)
        .join('');
  }
}
