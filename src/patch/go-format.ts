/**
 * Go's `%v` rendering of decoded JSON values, and reflect's type names, for
 * the few error messages of the original that print the offending value
 * (`map: map[image:foo] does not contain declared merge key: name`). Clients
 * and tests match on these strings, so they keep the original's shape.
 */
import { isJsonObject } from './json-value.ts';

/** `%v` of a value decoded into interface{}: maps print with sorted keys, strings bare, null as `<nil>`. */
export function goFormat(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goFormat).join(' ')}]`;
  if (isJsonObject(v)) {
    const keys = Object.keys(v).sort();
    return `map[${keys.map((k) => `${k}:${goFormat(v[k])}`).join(' ')}]`;
  }
  if (typeof v === 'number') return goNumber(v);
  return String(v);
}

/** reflect.TypeOf(v).String() for a decoded value (integers decode as int64 in the original's server). */
export function goTypeName(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return '[]interface {}';
  if (isJsonObject(v)) return 'map[string]interface {}';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (typeof v === 'boolean') return 'bool';
  return 'string';
}

/** Go prints float64 with %g-style exponents (`1e+21`); integers plainly. */
function goNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  const s = String(n);
  return s.replace(/e([+-])(\d)$/, 'e$10$2');
}
