/**
 * Managers and the field sets they own, as the original's
 * fieldpath.ManagedFields: a manager (an opaque identity string; the field
 * manager facade encodes name, operation, version and subresource in it)
 * maps to the set it owns, the API version the set's paths refer to, and
 * whether it was last written by an apply.
 */
import type { FieldSet } from './field-set.ts';

export interface VersionedSet {
  readonly set: FieldSet;
  readonly apiVersion: string;
  readonly applied: boolean;
}

export type ManagedFields = Map<string, VersionedSet>;

export function versionedSet(set: FieldSet, apiVersion: string, applied: boolean): VersionedSet {
  return { set, apiVersion, applied };
}

