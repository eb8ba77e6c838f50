/**
 * Leases (coordination.<suffix>/v1): durations positive, transitions not
 * negative. The coordinated leader election fields (strategy,
 * preferredHolder) belong to an alpha feature that is off, so they are
 * dropped unless the stored lease already has them.
 */
import { fieldErrors, type FieldError, type Strategy } from '../strategy.ts';
import { isMainResource, num, obj, specOf, type JsonObject } from './util.ts';

const GATED_FIELDS = ['strategy', 'preferredHolder'];

function dropDisabledFields(spec: JsonObject, old: JsonObject | undefined): void {
  for (const f of GATED_FIELDS) if (old?.[f] === undefined) delete spec[f];
}

export function validateLeaseSpec(spec: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  const duration = num(spec['leaseDurationSeconds']);
  if (duration !== undefined && duration <= 0) errs.push(fieldErrors.invalid('spec.leaseDurationSeconds', duration, 'must be greater than 0'));
  const transitions = num(spec['leaseTransitions']);
  if (transitions !== undefined && transitions < 0) {
    errs.push(fieldErrors.invalid('spec.leaseTransitions', transitions, 'must be greater than or equal to 0'));
  }
  return errs;
}

export const leaseStrategy: Strategy = {
  prepareForCreate(lease) {
    dropDisabledFields(specOf(lease), undefined);
  },
  prepareForUpdate(lease, old, ctx) {
    if (isMainResource(ctx)) dropDisabledFields(specOf(lease), obj(old['spec']));
  },
  validate(lease) {
    return validateLeaseSpec(specOf(lease));
  },
  validateUpdate(lease) {
    return validateLeaseSpec(specOf(lease));
  },
};
