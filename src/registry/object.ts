/**
 * The in-memory shape of an API object on the main thread: parsed JSON with
 * typed metadata. Objects cross to shards only as bytes.
 */

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ManagedFieldsEntry {
  manager?: string;
  operation?: 'Apply' | 'Update';
  apiVersion?: string;
  time?: string;
  fieldsType?: 'FieldsV1';
  fieldsV1?: Record<string, unknown>;
  subresource?: string;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string | null;
  deletionTimestamp?: string | null;
  deletionGracePeriodSeconds?: number | null;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: ManagedFieldsEntry[];
  [extra: string]: unknown;
}

export interface KObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * A deep copy of JSON data. Iterative, unlike structuredClone (which
 * overflows the stack a few thousand levels down): patches compute new
 * objects, and what they compute has not been through a depth check yet.
 */
export function cloneJson<T>(v: T): T {
  if (typeof v !== 'object' || v === null) return v;
  const root: object = Array.isArray(v) ? new Array<unknown>(v.length) : {};
  const from: object[] = [v];
  const to: object[] = [root];
  while (from.length > 0) {
    const src = from.pop()!;
    const dst = to.pop()!;
    if (Array.isArray(src)) {
      const out = dst as unknown[];
      for (let i = 0; i < src.length; i++) out[i] = copyShallow(src[i], from, to);
    } else {
      const out = dst as Record<string, unknown>;
      for (const k of Object.keys(src)) {
        const c = copyShallow((src as Record<string, unknown>)[k], from, to);
        // `__proto__` from JSON.parse is an own key; an assignment would set the prototype.
        if (k === '__proto__') Object.defineProperty(out, k, { value: c, writable: true, enumerable: true, configurable: true });
        else out[k] = c;
      }
    }
  }
  return root as T;
}

function copyShallow(x: unknown, from: object[], to: object[]): unknown {
  if (typeof x !== 'object' || x === null) return x;
  const copy: object = Array.isArray(x) ? new Array<unknown>(x.length) : {};
  from.push(x);
  to.push(copy);
  return copy;
}

/** Deep equality of JSON values (key order ignored). Iterative, for the same reason as cloneJson. */
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
    const xk = Object.keys(x as object);
    if (xk.length !== Object.keys(y as object).length) return false;
    for (const k of xk) {
      if (!Object.prototype.hasOwnProperty.call(y, k)) return false;
      left.push((x as Record<string, unknown>)[k]);
      right.push((y as Record<string, unknown>)[k]);
    }
  }
  return true;
}

/** RFC 3339 time with second precision, as the original serializes metav1.Time. */
export function nowRfc3339(now = new Date()): string {
  return now.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
