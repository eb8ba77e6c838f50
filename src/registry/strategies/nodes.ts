/**
 * Nodes (cluster-scoped): created with the status the node agent reports
 * (the original does not clear it), allocatable defaulted from capacity,
 * taints validated, podCIDRs and providerID fixed once set.
 */
import { fieldErrors, type FieldError, type Strategy } from '../strategy.ts';
import { isQualifiedName, isValidLabelValue } from '../validation/names.ts';
import { jsonEqual } from '../object.ts';
import { arr, isMainResource, obj, specOf, str } from './util.ts';
import type { KObject } from '../object.ts';

const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

/** SetDefaults_NodeStatus: allocatable is capacity unless said otherwise. */
function defaultNodeStatus(node: KObject): void {
  const status = obj(node['status']);
  const capacity = obj(status?.['capacity']);
  if (status && capacity && status['allocatable'] === undefined) status['allocatable'] = { ...capacity };
}

export function validateTaints(taints: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Map<string, Set<string>>();
  arr(taints).forEach((raw, i) => {
    const t = obj(raw) ?? {};
    const p = `${path}[${i}]`;
    const key = str(t['key']) ?? '';
    for (const msg of isQualifiedName(key)) errs.push(fieldErrors.invalid(`${p}.key`, key, msg));
    const value = str(t['value']) ?? '';
    const valueErrs = isValidLabelValue(value);
    if (valueErrs.length > 0) errs.push(fieldErrors.invalid(`${p}.value`, value, valueErrs.join(';')));
    const effect = str(t['effect']) ?? '';
    if (effect === '') errs.push(fieldErrors.required(`${p}.effect`));
    else if (!TAINT_EFFECTS.includes(effect)) errs.push(fieldErrors.notSupported(`${p}.effect`, effect, TAINT_EFFECTS));
    const keys = seen.get(effect) ?? new Set<string>();
    if (keys.has(key)) {
      errs.push({ ...fieldErrors.duplicate(p, t), message: `Duplicate value: ${JSON.stringify(t)}: taints must be unique by key and effect pair` });
      return;
    }
    keys.add(key);
    seen.set(effect, keys);
  });
  return errs;
}

function validateNodeUpdate(node: KObject, old: KObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = specOf(node);
  const oldSpec = obj(old['spec']) ?? {};
  // The controller manager may assign CIDRs to a node without; never change them.
  if (arr(oldSpec['podCIDRs']).length > 0 && !jsonEqual(arr(spec['podCIDRs']), arr(oldSpec['podCIDRs']))) {
    errs.push(fieldErrors.forbidden('spec.podCIDRs', 'may not change once set'));
  }
  const oldProvider = str(oldSpec['providerID']) ?? '';
  if (oldProvider !== '' && oldProvider !== (str(spec['providerID']) ?? '')) {
    errs.push(fieldErrors.forbidden('spec.providerID', 'node updates may not change providerID except from "" to valid'));
  }
  return errs;
}

export const nodeStrategy: Strategy = {
  // On the main resource the store keeps the stored status, so defaulting the body's is harmless there.
  defaults: defaultNodeStatus,
  validate(node) {
    return validateTaints(specOf(node)['taints'], 'spec.taints');
  },
  validateUpdate(node, old, ctx) {
    if (!isMainResource(ctx)) return [];
    return [...validateTaints(specOf(node)['taints'], 'spec.taints'), ...validateNodeUpdate(node, old)];
  },
};
