/**
 * The object-level pieces the field manager works with: taking
 * `metadata.managedFields` off and putting it back, the empty object a
 * create starts from, and the clean-up of merged objects.
 */
import type { KObject, ManagedFieldsEntry } from '../registry/object.ts';
import type { SchemaType } from './schema.ts';
import { isMap, setKey, type Json } from './value.ts';
import { copyOf, copyWith } from '../api/object-copy.ts';

/** API objects are JSON data; this is the one place that says so to the type checker. */
export function asJson(obj: KObject): Json {
  return obj as unknown as Json;
}

export function withoutManagedFields(obj: KObject): KObject {
  if (obj.metadata === undefined || obj.metadata === null || !('managedFields' in obj.metadata)) return obj;
  const { managedFields: _drop, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

/** A shallow copy of `obj` with `entries` as its managedFields (none when undefined). */
export function withManagedFields(obj: KObject, entries: ManagedFieldsEntry[] | undefined): KObject {
  const base = withoutManagedFields(obj);
  // Copied, then grown: a member added to a spread copy is slow on Node 20 (api/object-copy.ts).
  const metadata = copyOf(base.metadata ?? {});
  if (entries !== undefined) metadata.managedFields = entries;
  return copyWith(base, 'metadata', metadata);
}

/**
 * What the original compares a new object against: its Go type's zero
 * value, where the top-level structs (metadata, spec, status) exist and are
 * empty. So a creator owns `spec.replicas` but not `spec` itself, as there.
 * Deeper value structs are not known to our declarations and count as new.
 */
export function emptyObject(type: SchemaType): Json {
  const out: Record<string, Json> = {};
  for (const name of ['metadata', 'spec', 'status']) {
    const ft = type.map?.field(name);
    if (ft?.map !== undefined && ft.map.element === undefined) out[name] = {};
  }
  return out;
}

/**
 * A deep copy without null map members: the original decodes the merged
 * object into its Go type, where a null pointer, map or list is absent.
 */
export function dropNulls(v: Json): Json {
  if (Array.isArray(v)) return (v as readonly Json[]).map(dropNulls);
  if (!isMap(v)) return v;
  const out: Record<string, Json> = {};
  for (const k of Object.keys(v)) {
    const x = v[k]!;
    if (x !== null) setKey(out, k, dropNulls(x));
  }
  return out;
}
