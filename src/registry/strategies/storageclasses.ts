/**
 * StorageClasses: reclaimPolicy Delete and volumeBindingMode Immediate by
 * default; provisioner, parameters, reclaim policy and binding mode are
 * fixed once created; a DELETE answers the deleted object.
 */
import { jsonEqual } from '../object.ts';
import { fieldErrors, type FieldError, type Strategy } from '../strategy.ts';
import { isQualifiedName } from '../validation/names.ts';
import { validateImmutableField } from '../validation/object-meta.ts';
import { setDefault, str } from './util.ts';
import type { KObject } from '../object.ts';
import { pushAll } from '../../api/push-all.ts';

const RECLAIM_POLICIES = ['Delete', 'Retain'];
const BINDING_MODES = ['Immediate', 'WaitForFirstConsumer'];

function defaultStorageClass(sc: KObject): void {
  setDefault(sc, 'reclaimPolicy', 'Delete');
  setDefault(sc, 'volumeBindingMode', 'Immediate');
}

function validateStorageClass(sc: KObject): FieldError[] {
  const errs: FieldError[] = [];
  const provisioner = str(sc['provisioner']) ?? '';
  if (provisioner === '') errs.push(fieldErrors.required('provisioner'));
  else for (const msg of isQualifiedName(provisioner.toLowerCase())) errs.push(fieldErrors.invalid('provisioner', provisioner.toLowerCase(), msg));
  const reclaim = sc['reclaimPolicy'];
  if (reclaim !== undefined && !RECLAIM_POLICIES.includes(String(reclaim))) errs.push(fieldErrors.notSupported('reclaimPolicy', reclaim, RECLAIM_POLICIES));
  const mode = sc['volumeBindingMode'];
  if (mode === undefined || mode === '') errs.push(fieldErrors.required('volumeBindingMode'));
  else if (!BINDING_MODES.includes(String(mode))) errs.push(fieldErrors.notSupported('volumeBindingMode', mode, BINDING_MODES));
  return errs;
}

export const storageClassStrategy: Strategy = {
  returnDeletedObject: true,
  defaults: defaultStorageClass,
  validate: validateStorageClass,
  validateUpdate(sc, old) {
    const errs = validateStorageClass(sc);
    if (!jsonEqual(sc['parameters'] ?? {}, old['parameters'] ?? {})) errs.push(fieldErrors.forbidden('parameters', 'updates to parameters are forbidden.'));
    if (sc['provisioner'] !== old['provisioner']) errs.push(fieldErrors.forbidden('provisioner', 'updates to provisioner are forbidden.'));
    if (sc['reclaimPolicy'] !== old['reclaimPolicy']) errs.push(fieldErrors.forbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
    pushAll(errs, validateImmutableField(sc['volumeBindingMode'], old['volumeBindingMode'], 'volumeBindingMode'));
    return errs;
  },
};
