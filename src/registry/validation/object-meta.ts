/**
 * metadata validation on create and update, a port of the rules in
 * k8s.io/apimachinery pkg/api/validation/objectmeta.go (v0.32) with the
 * original's field paths and messages. The generic store runs these for
 * every type; strategies add only what is particular to a type.
 */
import { fieldErrors, type FieldError } from '../strategy.ts';
import type { ObjectMeta, OwnerReference } from '../object.ts';
import { isPlainObject, jsonEqual } from '../object.ts';
import { byteLength, isQualifiedName, isValidLabelValue, validateName, type NameRule } from './names.ts';
import { pushAll } from '../../api/push-all.ts';

export const TOTAL_ANNOTATION_SIZE_LIMIT_B = 256 * 1024;
export const FIELD_IMMUTABLE_ERROR_MSG = 'field is immutable';
export const IS_NEGATIVE_ERROR_MSG = 'must be greater than or equal to 0';

/** What metadata validation needs to know about a type; a ResourceType fits. */
export interface MetaRules {
  namespaced: boolean;
  /** Defaults to `subdomain`, the rule of most types. */
  nameRule?: NameRule;
  /** False only for types whose objects need no name. Defaults to true, false for virtual types. */
  requireName?: boolean;
  /** Virtual types (reviews) are never stored, so they need no name. */
  virtual?: boolean;
}

const FINALIZER_ORPHAN = 'orphan';
const FINALIZER_FOREGROUND = 'foregroundDeletion';

/** Validates metadata of an object being created (after name generation). */
export function validateObjectMeta(meta: ObjectMeta, rules: MetaRules, path = 'metadata'): FieldError[] {
  const errs: FieldError[] = [];
  const nameRule = rules.nameRule ?? 'subdomain';
  const generateName = typeof meta.generateName === 'string' ? meta.generateName : '';
  if (generateName !== '') {
    for (const msg of validateName(nameRule, generateName, true)) errs.push(fieldErrors.invalid(`${path}.generateName`, generateName, msg));
  }
  const name = typeof meta.name === 'string' ? meta.name : '';
  if (name === '') {
    if ((rules.requireName ?? !rules.virtual) !== false) errs.push(fieldErrors.required(`${path}.name`, 'name or generateName is required'));
  } else {
    for (const msg of validateName(nameRule, name, false)) errs.push(fieldErrors.invalid(`${path}.name`, name, msg));
  }
  const namespace = typeof meta.namespace === 'string' ? meta.namespace : '';
  if (rules.namespaced) {
    if (namespace === '') errs.push(fieldErrors.required(`${path}.namespace`));
    else for (const msg of validateName('label', namespace, false)) errs.push(fieldErrors.invalid(`${path}.namespace`, namespace, msg));
  } else if (namespace !== '') {
    errs.push(fieldErrors.forbidden(`${path}.namespace`, 'not allowed on this type'));
  }
  if (typeof meta.generation === 'number' && meta.generation < 0) {
    errs.push(fieldErrors.invalid(`${path}.generation`, meta.generation, IS_NEGATIVE_ERROR_MSG));
  }
  pushAll(errs, validateLabels(meta.labels, `${path}.labels`));
  pushAll(errs, validateAnnotations(meta.annotations, `${path}.annotations`));
  pushAll(errs, validateOwnerReferences(meta.ownerReferences, `${path}.ownerReferences`));
  pushAll(errs, validateFinalizers(meta.finalizers, `${path}.finalizers`));
  return errs;
}

/**
 * Validates metadata of an update. Unlike the original this does not demand
 * a resourceVersion: the generic store resolves unconditional updates
 * against the stored object before it gets here.
 */
export function validateObjectMetaUpdate(next: ObjectMeta, old: ObjectMeta, _rules?: MetaRules, path = 'metadata'): FieldError[] {
  const errs: FieldError[] = [];
  if (old.deletionTimestamp) {
    const before = new Set(old.finalizers ?? []);
    const added = [...new Set(next.finalizers ?? [])].filter((f) => !before.has(f)).sort();
    if (added.length > 0) {
      errs.push(
        fieldErrors.forbidden(
          `${path}.finalizers`,
          `no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}`,
        ),
      );
    }
  }
  if ((next.generation ?? 0) < (old.generation ?? 0)) {
    errs.push(fieldErrors.invalid(`${path}.generation`, next.generation ?? 0, 'must not be decremented'));
  }
  for (const field of ['name', 'namespace', 'uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds'] as const) {
    pushAll(errs, validateImmutableField(next[field], old[field], `${path}.${field}`));
  }
  pushAll(errs, validateLabels(next.labels, `${path}.labels`));
  pushAll(errs, validateAnnotations(next.annotations, `${path}.annotations`));
  pushAll(errs, validateOwnerReferences(next.ownerReferences, `${path}.ownerReferences`));
  return errs;
}

/**
 * ValidateImmutableField. Absent, null and empty values count as the same
 * value, as Go's zero values do.
 */
export function validateImmutableField(next: unknown, old: unknown, path: string): FieldError[] {
  if (jsonEqual(zeroToUndefined(next), zeroToUndefined(old))) return [];
  return [fieldErrors.invalid(path, next ?? null, FIELD_IMMUTABLE_ERROR_MSG)];
}

function zeroToUndefined(v: unknown): unknown {
  if (v === null || v === '' || (Array.isArray(v) && v.length === 0)) return undefined;
  if (isPlainObject(v) && Object.keys(v).length === 0) return undefined;
  return v;
}

/** Label keys are qualified names; values are label values. */
export function validateLabels(labels: Record<string, string> | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!isPlainObject(labels)) return errs;
  for (const [k, v] of Object.entries(labels)) {
    for (const msg of isQualifiedName(k)) errs.push(fieldErrors.invalid(path, k, msg));
    const value = typeof v === 'string' ? v : String(v);
    for (const msg of isValidLabelValue(value)) errs.push(fieldErrors.invalid(path, value, msg));
  }
  return errs;
}

/** Annotation keys are qualified names in any case; all keys and values together fit in 256 KiB. */
export function validateAnnotations(annotations: Record<string, string> | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!isPlainObject(annotations)) return errs;
  let total = 0;
  for (const [k, v] of Object.entries(annotations)) {
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(fieldErrors.invalid(path, k, msg));
    total += byteLength(k) + byteLength(typeof v === 'string' ? v : String(v));
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT_B) errs.push(fieldErrors.tooLong(path, TOTAL_ANNOTATION_SIZE_LIMIT_B));
  return errs;
}

/** schema.FromAPIVersionAndKind: `group/version` or `version`; anything else names no version. */
function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: parts[0]! };
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]! };
  return { group: '', version: '' };
}

export function validateOwnerReferences(refs: OwnerReference[] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!Array.isArray(refs)) return errs;
  let firstController = '';
  for (const raw of refs) {
    const ref: Partial<OwnerReference> = isPlainObject(raw) ? raw : {};
    const apiVersion = typeof ref.apiVersion === 'string' ? ref.apiVersion : '';
    const kind = typeof ref.kind === 'string' ? ref.kind : '';
    const name = typeof ref.name === 'string' ? ref.name : '';
    const uid = typeof ref.uid === 'string' ? ref.uid : '';
    const gv = parseApiVersion(apiVersion);
    // The original indexes no entry here: the paths name the list itself.
    if (gv.version === '') errs.push(fieldErrors.invalid(`${path}.apiVersion`, apiVersion, 'version must not be empty'));
    if (kind === '') errs.push(fieldErrors.invalid(`${path}.kind`, kind, 'kind must not be empty'));
    if (name === '') errs.push(fieldErrors.invalid(`${path}.name`, name, 'name must not be empty'));
    if (uid === '') errs.push(fieldErrors.invalid(`${path}.uid`, uid, 'uid must not be empty'));
    // Events are deleted by TTL: owning anything would be a trap.
    if (gv.group === '' && gv.version === 'v1' && kind === 'Event') {
      errs.push(fieldErrors.invalid(path, ref, '/v1, Kind=Event is disallowed from being an owner'));
    }
    if (ref.controller === true) {
      const current = `${kind}/${name}`;
      if (firstController !== '') {
        errs.push(
          fieldErrors.invalid(path, refs, `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`),
        );
      } else {
        firstController = current;
      }
    }
  }
  return errs;
}

export function validateFinalizers(finalizers: string[] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!Array.isArray(finalizers)) return errs;
  for (const f of finalizers) {
    const name = typeof f === 'string' ? f : String(f);
    for (const msg of isQualifiedName(name)) errs.push(fieldErrors.invalid(path, name, msg));
  }
  if (finalizers.includes(FINALIZER_ORPHAN) && finalizers.includes(FINALIZER_FOREGROUND)) {
    errs.push(fieldErrors.invalid(path, finalizers, `finalizer ${FINALIZER_ORPHAN} and ${FINALIZER_FOREGROUND} cannot be both set`));
  }
  return errs;
}
