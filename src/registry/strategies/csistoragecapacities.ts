/**
 * CSIStorageCapacities: what the scheduler's volume binding reads to place
 * pods with late-bound volumes (its informer lists them at start, so the type
 * must be served). ValidateCSIStorageCapacity of the original: a class name
 * that is a DNS subdomain, a valid topology selector, capacities not below
 * zero; the class and topology, CSI GetCapacity's inputs, never change.
 */
import type { KObject } from '../object.ts';
import { fieldErrors, type FieldError, type Strategy } from '../strategy.ts';
import { validateLabelSelector } from '../validation/label-selector.ts';
import { isDNS1123Subdomain } from '../validation/names.ts';
import { validateImmutableField } from '../validation/object-meta.ts';
import { parseQuantity } from '../validation/quantity.ts';
import { pushAll } from '../../api/push-all.ts';

const QUANTITY_MSG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

function validateCapacity(c: KObject): FieldError[] {
  const errs: FieldError[] = [];
  if (c['nodeTopology'] !== undefined && c['nodeTopology'] !== null) pushAll(errs, validateLabelSelector(c['nodeTopology'], 'nodeTopology'));
  const cls = typeof c['storageClassName'] === 'string' ? c['storageClassName'] : '';
  for (const msg of isDNS1123Subdomain(cls)) errs.push(fieldErrors.invalid('storageClassName', cls, msg));
  for (const field of ['capacity', 'maximumVolumeSize']) {
    const q = c[field];
    if (q === undefined || q === null) continue;
    const parsed = parseQuantity(q);
    if (parsed === undefined) errs.push(fieldErrors.invalid(field, q, QUANTITY_MSG));
    else if (parsed < 0n) errs.push(fieldErrors.invalid(field, String(q), 'must be greater than or equal to 0'));
  }
  return errs;
}

export const csiStorageCapacityStrategy: Strategy = {
  validate: validateCapacity,
  validateUpdate(c, old) {
    return [
      ...validateCapacity(c),
      ...validateImmutableField(c['nodeTopology'], old['nodeTopology'], 'nodeTopology'),
      ...validateImmutableField(c['storageClassName'], old['storageClassName'], 'storageClassName'),
    ];
  },
};
