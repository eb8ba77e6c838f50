/**
 * ResourceQuota: the original's strategy and validation. A create starts
 * with an empty status (the quota controller fills it); the main resource
 * keeps status, the status subresource keeps spec (the generic store does
 * both). Validation as ValidateResourceQuota: quota resource names
 * (standard ones, hugepages, or qualified), non-negative values, whole
 * numbers for counted resources, supported scopes that fit the resources
 * and do not conflict, scope selectors with valid operators and values,
 * and scopes that never change on update.
 */
import type { KObject } from '../object.ts';
import { fieldErrors, type FieldError, type Strategy } from '../strategy.ts';
import { toQuantity } from '../validation/quantity-format.ts';
import { arr, obj, str, statusResetOnCreate, type JsonObject } from './util.ts';
import { names } from '../../naming/index.ts';

const STANDARD_QUOTA_RESOURCES = new Set([
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.storage',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'pods',
  'resourcequotas',
  'services',
  'replicationcontrollers',
  'secrets',
  'persistentvolumeclaims',
  'configmaps',
  'services.nodeports',
  'services.loadbalancers',
]);
const INTEGER_RESOURCES = new Set(['pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets', 'configmaps', 'persistentvolumeclaims', 'services.nodeports', 'services.loadbalancers']);
const SCOPES = ['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'PriorityClass', 'CrossNamespacePodAffinity'];
const POD_COMPUTE = new Set(['cpu', 'memory', 'limits.cpu', 'limits.memory', 'requests.cpu', 'requests.memory']);
const CONFLICTING = [
  ['BestEffort', 'NotBestEffort'],
  ['Terminating', 'NotTerminating'],
];
const QUALIFIED = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

function isExtendedResourceName(name: string): boolean {
  const native = !name.includes('/') || name.startsWith(names.nativeResourcePrefix);
  return !native && !name.startsWith('requests.') && QUALIFIED.test(name);
}

function isStandardContainerResource(name: string): boolean {
  return name === 'cpu' || name === 'memory' || name === 'ephemeral-storage' || name.startsWith('hugepages-');
}

function scopeFitsResource(scope: string, resource: string): boolean {
  switch (scope) {
    case 'Terminating':
    case 'NotTerminating':
    case 'NotBestEffort':
    case 'PriorityClass':
    case 'CrossNamespacePodAffinity':
      return resource === 'pods' || POD_COMPUTE.has(resource);
    case 'BestEffort':
      return resource === 'pods';
    default:
      return true;
  }
}

/** Go's %#v of a scope list, as field.Invalid prints it. */
function goScopes(scopes: readonly string[]): string {
  return `[]core.ResourceQuotaScope{${scopes.map((s) => JSON.stringify(s)).join(', ')}}`;
}

function validateResourceList(list: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(obj(list) ?? {})) {
    const field = `${path}[${k}]`;
    if (!QUALIFIED.test(k)) {
      errs.push(fieldErrors.invalid(field, k, "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"));
    } else if (!k.includes('/') && !STANDARD_QUOTA_RESOURCES.has(k) && !k.startsWith('hugepages-') && !k.startsWith('requests.hugepages-')) {
      errs.push(fieldErrors.invalid(field, k, 'must be a standard resource for quota'));
    }
    const q = toQuantity(v);
    if (q === undefined) continue; // the decoder refuses what is not a quantity
    if (q.nano < 0n) errs.push(fieldErrors.invalid(field, String(v), 'must be greater than or equal to 0'));
    if ((INTEGER_RESOURCES.has(k) || isExtendedResourceName(k)) && q.nano % 1_000_000_000n !== 0n) errs.push(fieldErrors.invalid(field, String(v), 'must be an integer'));
  }
  return errs;
}

function validateSpec(spec: JsonObject): FieldError[] {
  const errs = validateResourceList(spec['hard'], 'spec.hard');
  const hard = Object.keys(obj(spec['hard']) ?? {}).sort();
  const scopes = arr(spec['scopes']).map((s) => String(s));
  const seen = new Set<string>();
  for (const scope of scopes) {
    if (!SCOPES.includes(scope)) errs.push({ field: 'spec.scopes', type: 'FieldValueInvalid', message: `Invalid value: ${goScopes(scopes)}: unsupported scope` });
    for (const k of hard) {
      if (isStandardContainerResource(k) && !scopeFitsResource(scope, k)) {
        errs.push({ field: 'spec.scopes', type: 'FieldValueInvalid', message: `Invalid value: ${goScopes(scopes)}: unsupported scope applied to resource` });
      }
    }
    seen.add(scope);
  }
  for (const pair of CONFLICTING) {
    if (pair.every((s) => seen.has(s))) errs.push({ field: 'spec.scopes', type: 'FieldValueInvalid', message: `Invalid value: ${goScopes(scopes)}: conflicting scopes` });
  }
  const selector = obj(spec['scopeSelector']);
  if (selector) {
    const path = 'spec.scopeSelector.matchExpressions';
    const selected = new Set<string>();
    for (const raw of arr(selector['matchExpressions'])) {
      const req = obj(raw) ?? {};
      const scope = str(req['scopeName']) ?? '';
      const op = str(req['operator']) ?? '';
      const values = arr(req['values']);
      if (!SCOPES.includes(scope)) errs.push(fieldErrors.invalid(`${path}.scopeName`, scope, 'unsupported scope'));
      for (const k of hard) {
        if (isStandardContainerResource(k) && !scopeFitsResource(scope, k)) {
          errs.push({ field: 'spec.scopeSelector', type: 'FieldValueInvalid', message: 'Invalid value: "object": unsupported scope applied to resource' });
        }
      }
      if (['BestEffort', 'NotBestEffort', 'Terminating', 'NotTerminating', 'CrossNamespacePodAffinity'].includes(scope) && op !== 'Exists') {
        errs.push(
          fieldErrors.invalid(
            `${path}.operator`,
            op,
            "must be 'Exist' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity",
          ),
        );
      }
      if (op === 'In' || op === 'NotIn') {
        if (values.length === 0) errs.push(fieldErrors.required(`${path}.values`, "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"));
      } else if (op === 'Exists' || op === 'DoesNotExist') {
        if (values.length !== 0) errs.push(fieldErrors.invalid(`${path}.values`, values, "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"));
      } else {
        errs.push(fieldErrors.invalid(`${path}.operator`, op, 'not a valid selector operator'));
      }
      selected.add(scope);
    }
    for (const pair of CONFLICTING) {
      if (pair.every((s) => selected.has(s))) errs.push({ field: 'spec.scopeSelector', type: 'FieldValueInvalid', message: 'Invalid value: "object": conflicting scopes' });
    }
  }
  return errs;
}

function validateStatus(o: KObject): FieldError[] {
  const status = obj(o['status']) ?? {};
  return [...validateResourceList(status['hard'], 'status.hard'), ...validateResourceList(status['used'], 'status.used')];
}

export function validateResourceQuota(o: KObject): FieldError[] {
  return [...validateSpec(obj(o['spec']) ?? {}), ...validateStatus(o)];
}

export const resourceQuotaStrategy: Strategy = statusResetOnCreate(() => ({}), {
  validate: (o) => validateResourceQuota(o),
  validateUpdate(o, old, ctx) {
    if (ctx.subresource === 'status') return validateStatus(o);
    const errs = validateResourceQuota(o);
    const scopes = new Set(arr(obj(o['spec'])?.['scopes']).map(String));
    const oldScopes = new Set(arr(obj(old['spec'])?.['scopes']).map(String));
    if (scopes.size !== oldScopes.size || [...scopes].some((s) => !oldScopes.has(s))) {
      errs.push({ field: 'spec.scopes', type: 'FieldValueInvalid', message: `Invalid value: ${goScopes([...arr(obj(o['spec'])?.['scopes']).map(String)])}: field is immutable` });
    }
    return errs;
  },
});
