/**
 * Secrets: `stringData` is written into base64 `data` (it wins over a data
 * key of the same name) and then dropped, as the original's v1 conversion
 * does; `type` defaults to Opaque and cannot change; each well-known type
 * requires its keys; `immutable: true` freezes the data.
 */
import { fieldErrors, type FieldError, type Strategy } from '../strategy.ts';
import { isConfigMapKey } from '../validation/names.ts';
import { validateImmutableField } from '../validation/object-meta.ts';
import type { KObject } from '../object.ts';
import { MAX_DATA_SIZE, base64Length, validateImmutableData } from './configmaps.ts';
import { obj, str } from './util.ts';
import { names } from '../../naming/index.ts';

export const SECRET_TYPES = { opaque: 'Opaque', ...names.secretTypes } as const;

/** The annotation naming the ServiceAccount a token Secret belongs to. */
export const SERVICE_ACCOUNT_NAME_ANNOTATION = names.annotations.serviceAccountName;
const BASE64_RE = /^[A-Za-z0-9+/]*={0,2}$/;

/** stringData merged into data (base64), then removed; type defaulted. */
export function normalizeSecret(secret: KObject): void {
  const stringData = obj(secret['stringData']);
  if (stringData) {
    const data = { ...(obj(secret['data']) ?? {}) };
    for (const [k, v] of Object.entries(stringData)) data[k] = Buffer.from(String(v), 'utf8').toString('base64');
    secret['data'] = data;
  }
  delete secret['stringData'];
  if (!str(secret['type'])) secret['type'] = SECRET_TYPES.opaque;
}

function dataBytes(data: Record<string, unknown>, key: string): Buffer | undefined {
  const v = data[key];
  return typeof v === 'string' ? Buffer.from(v, 'base64') : undefined;
}

export function validateSecret(secret: KObject): FieldError[] {
  const errs: FieldError[] = [];
  const data = obj(secret['data']) ?? {};
  let total = 0;
  for (const [key, value] of Object.entries(data)) {
    for (const msg of isConfigMapKey(key)) errs.push(fieldErrors.invalid(`data[${key}]`, key, msg));
    // A value that is not base64 would not have decoded in the original.
    if (typeof value !== 'string' || value.length % 4 !== 0 || !BASE64_RE.test(value)) {
      errs.push(fieldErrors.invalid(`data[${key}]`, '<secret contents redacted>', 'must be base64-encoded bytes'));
    }
    total += base64Length(value);
  }
  if (total > MAX_DATA_SIZE) errs.push(fieldErrors.tooLong('data', MAX_DATA_SIZE));
  const has = (k: string): boolean => k in data;
  const jsonCheck = (key: string): void => {
    const bytes = dataBytes(data, key);
    if (bytes === undefined) {
      errs.push(fieldErrors.required(`data[${key}]`));
      return;
    }
    try {
      const parsed: unknown = JSON.parse(bytes.toString('utf8'));
      if (obj(parsed) === undefined) throw new Error('json: cannot unmarshal into Go value of type map[string]interface {}');
    } catch (e) {
      errs.push(fieldErrors.invalid(`data[${key}]`, '<secret contents redacted>', (e as Error).message));
    }
  };
  switch (secret['type']) {
    case SECRET_TYPES.serviceAccountToken:
      // Only the owner's name is needed; the token controller fills the rest.
      if (!secret.metadata.annotations?.[SERVICE_ACCOUNT_NAME_ANNOTATION]) {
        errs.push(fieldErrors.required(`metadata.annotations[${SERVICE_ACCOUNT_NAME_ANNOTATION}]`));
      }
      break;
    case SECRET_TYPES.dockercfg:
      jsonCheck('.dockercfg');
      break;
    case SECRET_TYPES.dockerConfigJson:
      jsonCheck('.dockerconfigjson');
      break;
    case SECRET_TYPES.basicAuth:
      // Either may be empty, but one of the two keys must be there.
      if (!has('username') && !has('password')) {
        errs.push(fieldErrors.required('data[username]'), fieldErrors.required('data[password]'));
      }
      break;
    case SECRET_TYPES.sshAuth:
      if ((dataBytes(data, 'ssh-privatekey')?.length ?? 0) === 0) errs.push(fieldErrors.required('data[ssh-privatekey]'));
      break;
    case SECRET_TYPES.tls:
      if (!has('tls.crt')) errs.push(fieldErrors.required('data[tls.crt]'));
      if (!has('tls.key')) errs.push(fieldErrors.required('data[tls.key]'));
      break;
    default:
  }
  return errs;
}

export const secretStrategy: Strategy = {
  // stringData folds into data in the original's conversion from v1, type in its defaulting: both while decoding.
  defaults: normalizeSecret,
  validate(secret) {
    return validateSecret(secret);
  },
  validateUpdate(secret, old) {
    return [
      ...validateImmutableField(secret['type'], old['type'], 'type'),
      ...validateImmutableData(secret, old, ['data']),
      ...validateSecret(secret),
    ];
  },
};
