/**
 * PriorityClasses: preemptionPolicy defaults to PreemptLowerPriority; user
 * classes stay at or below one billion; `system-` names are reserved for the
 * two built-in classes; value and preemptionPolicy never change.
 */
import { fieldErrors, type FieldError, type Strategy } from '../strategy.ts';
import { validateImmutableField } from '../validation/object-meta.ts';
import { num, setDefault } from './util.ts';
import type { KObject } from '../object.ts';
import { pushAll } from '../../api/push-all.ts';

export const HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000;
const SYSTEM_PREFIX = 'system-';
/** The system classes the original creates, with the values they must have. */
export const SYSTEM_PRIORITY_CLASSES: Record<string, number> = {
  'system-node-critical': 2_000_001_000,
  'system-cluster-critical': 2_000_000_000,
};
const PREEMPTION_POLICIES = ['Never', 'PreemptLowerPriority'];

function validatePriorityClass(pc: KObject): FieldError[] {
  const errs: FieldError[] = [];
  const name = pc.metadata.name ?? '';
  const value = num(pc['value']) ?? 0;
  if (name.startsWith(SYSTEM_PREFIX)) {
    const expected = SYSTEM_PRIORITY_CLASSES[name];
    const problem = expected === undefined ? `${name} is not a known system priority class` : value !== expected ? `value of ${name} PriorityClass must be ${expected}` : undefined;
    if (problem) errs.push(fieldErrors.forbidden('metadata.name', `priority class names with '${SYSTEM_PREFIX}' prefix are reserved for system use only. error: ${problem}`));
  } else if (value > HIGHEST_USER_DEFINABLE_PRIORITY) {
    errs.push(fieldErrors.forbidden('value', `maximum allowed value of a user defined priority is ${HIGHEST_USER_DEFINABLE_PRIORITY}`));
  }
  const policy = pc['preemptionPolicy'];
  if (policy !== undefined && !PREEMPTION_POLICIES.includes(String(policy))) errs.push(fieldErrors.notSupported('preemptionPolicy', policy, PREEMPTION_POLICIES));
  return errs;
}

export const priorityClassStrategy: Strategy = {
  defaults(pc) {
    setDefault(pc, 'preemptionPolicy', 'PreemptLowerPriority');
  },
  validate: validatePriorityClass,
  validateUpdate(pc, old) {
    const errs: FieldError[] = [];
    if ((num(pc['value']) ?? 0) !== (num(old['value']) ?? 0)) errs.push(fieldErrors.forbidden('value', 'may not be changed in an update.'));
    pushAll(errs, validateImmutableField(pc['preemptionPolicy'], old['preemptionPolicy'], 'preemptionPolicy'));
    return errs;
  },
};
