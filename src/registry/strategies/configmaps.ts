/**
 * ConfigMaps: keys are config keys, a key may not be in both data and
 * binaryData, everything fits in 1 MiB, and `immutable: true` freezes the
 * data for good (pkg/apis/core/validation ValidateConfigMap[Update]).
 */
import { fieldErrors, type FieldError, type Strategy } from '../strategy.ts';
import { byteLength, isConfigMapKey } from '../validation/names.ts';
import { jsonEqual } from '../object.ts';
import { obj } from './util.ts';

/** The original's MaxSecretSize, which ConfigMaps share. */
export const MAX_DATA_SIZE = 1024 * 1024;
const IMMUTABLE_MSG = 'field is immutable when `immutable` is set';

/** Bytes behind a base64 string (binaryData values travel base64-encoded). */
export function base64Length(v: unknown): number {
  return typeof v === 'string' ? Buffer.from(v, 'base64').length : 0;
}

export function validateConfigMap(cm: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  const data = obj(cm['data']) ?? {};
  const binary = obj(cm['binaryData']) ?? {};
  let total = 0;
  for (const [key, value] of Object.entries(data)) {
    for (const msg of isConfigMapKey(key)) errs.push(fieldErrors.invalid(`data[${key}]`, key, msg));
    if (key in binary) errs.push(fieldErrors.invalid(`data[${key}]`, key, 'duplicate of key present in binaryData'));
    total += byteLength(typeof value === 'string' ? value : String(value));
  }
  for (const [key, value] of Object.entries(binary)) {
    for (const msg of isConfigMapKey(key)) errs.push(fieldErrors.invalid(`binaryData[${key}]`, key, msg));
    total += base64Length(value);
  }
  // The original reports the whole object as too long, with an empty path.
  if (total > MAX_DATA_SIZE) errs.push(fieldErrors.tooLong('', MAX_DATA_SIZE));
  return errs;
}

/** Once immutable, always immutable, and the named fields stay as they are. */
export function validateImmutableData(next: Record<string, unknown>, old: Record<string, unknown>, fields: readonly string[]): FieldError[] {
  if (old['immutable'] !== true) return [];
  const errs: FieldError[] = [];
  if (next['immutable'] !== true) errs.push(fieldErrors.forbidden('immutable', IMMUTABLE_MSG));
  for (const f of fields) {
    if (!jsonEqual(next[f] ?? {}, old[f] ?? {})) errs.push(fieldErrors.forbidden(f, IMMUTABLE_MSG));
  }
  return errs;
}

export const configMapStrategy: Strategy = {
  validate(cm) {
    return validateConfigMap(cm);
  },
  validateUpdate(cm, old) {
    return [...validateImmutableData(cm, old, ['data', 'binaryData']), ...validateConfigMap(cm)];
  },
};
