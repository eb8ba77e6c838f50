/**
 * ResourceLists (resource name -> quantity) and the arithmetic quota does on
 * them, as the original's quota/v1 helpers (Add, SubtractWithNonNegativeResult,
 * Max, Mask, LessThanOrEqual, ...). Quantities keep their format so that
 * status.used and messages print as the original's.
 */
import { addQuantities, formatQuantity, subtractQuantities, toQuantity, type Quantity } from '../../../registry/validation/quantity-format.ts';

export type ResourceList = Map<string, Quantity>;

/** A ResourceList from JSON (`{"cpu": "100m"}`); entries that are not quantities are left out (validation refuses them). */
export function resourceListFrom(json: unknown): ResourceList {
  const out: ResourceList = new Map();
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return out;
  for (const [k, v] of Object.entries(json as Record<string, unknown>)) {
    const q = toQuantity(v);
    if (q !== undefined) out.set(k, q);
  }
  return out;
}

/** JSON with sorted keys, as Go marshals a map. */
export function resourceListJson(list: ResourceList): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of [...list.keys()].sort()) out[k] = formatQuantity(list.get(k)!);
  return out;
}

export function add(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map(a);
  for (const [k, v] of b) {
    const cur = out.get(k);
    out.set(k, cur === undefined ? v : addQuantities(cur, v));
  }
  return out;
}

/** a - b for every key of a; negative results become zero. */
export function subtractWithNonNegativeResult(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map();
  for (const [k, v] of a) {
    const other = b.get(k);
    const r = other === undefined ? v : subtractQuantities(v, other);
    out.set(k, r.nano < 0n ? { nano: 0n, format: r.format } : r);
  }
  return out;
}

/** The larger of each key present in either. */
export function max(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map(a);
  for (const [k, v] of b) {
    const cur = out.get(k);
    if (cur === undefined || v.nano > cur.nano) out.set(k, v);
  }
  return out;
}

/** Only the keys in `names`. */
export function mask(list: ResourceList, names: Iterable<string>): ResourceList {
  const out: ResourceList = new Map();
  for (const n of names) {
    const v = list.get(n);
    if (v !== undefined) out.set(n, v);
  }
  return out;
}

export function removeZeros(list: ResourceList): ResourceList {
  const out: ResourceList = new Map();
  for (const [k, v] of list) if (v.nano !== 0n) out.set(k, v);
  return out;
}

export function negativeNames(list: ResourceList): string[] {
  return [...list].filter(([, v]) => v.nano < 0n).map(([k]) => k);
}

/** Whether every key of a is within b (a key absent from b is not limited); the keys that are not. */
export function lessThanOrEqual(a: ResourceList, b: ResourceList): { allowed: boolean; exceeded: string[] } {
  const exceeded: string[] = [];
  for (const [k, v] of a) {
    const limit = b.get(k);
    if (limit !== undefined && v.nano > limit.nano) exceeded.push(k);
  }
  return { allowed: exceeded.length === 0, exceeded };
}

export function equals(a: ResourceList, b: ResourceList): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) {
    const o = b.get(k);
    if (o === undefined || o.nano !== v.nano) return false;
  }
  return true;
}

/** `a=1,b=2m`, sorted by name, as the original's prettyPrint. */
export function prettyPrint(list: ResourceList): string {
  return [...list.keys()]
    .sort()
    .map((k) => `${k}=${formatQuantity(list.get(k)!)}`)
    .join(',');
}

export function prettyPrintNames(names: Iterable<string>): string {
  return [...new Set(names)].sort().join(',');
}
