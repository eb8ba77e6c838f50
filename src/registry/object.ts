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
 * Deep copy and deep equality of JSON data: the patch package's iterative
 * ones (structuredClone and recursive walks overflow the stack a few
 * thousand levels down; patches compute objects no depth check has seen).
 */
export { cloneJson, jsonEqual } from '../patch/json-value.ts';

let rfc3339Second = NaN;
let rfc3339Text = '';

/**
 * RFC 3339 time with second precision, as the original serializes metav1.Time.
 * The text of the last second is kept: every create and update stamps one, and
 * toISOString plus a regex showed in the create profile.
 */
export function nowRfc3339(now = new Date()): string {
  const second = Math.floor(now.getTime() / 1000);
  if (second !== rfc3339Second) {
    // An invalid Date throws here as before (NaN never equals the kept second).
    rfc3339Text = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
    rfc3339Second = second;
  }
  return rfc3339Text;
}
