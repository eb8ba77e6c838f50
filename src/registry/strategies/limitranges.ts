/**
 * LimitRange: the original's defaulting (SetDefaults_LimitRangeItem: a
 * Container item's default limit from max, its default request from the
 * default limit, then from min) and validation (ValidateLimitRange: known
 * types once each, min <= defaultRequest <= default <= max, ratios >= 1 and
 * within max/min, no defaults on Pod items, a PVC item bounds storage).
 * LimitRanger reads the defaulted items (defaultLimitRangeItem is shared).
 */
import type { KObject } from '../object.ts';
import { fieldErrors, type FieldError, type Strategy } from '../strategy.ts';
import { formatQuantity, quantityMilliValue, quantityValue, toQuantity, type Quantity } from '../validation/quantity-format.ts';
import { arr, obj, type JsonObject } from './util.ts';
import { names } from '../../naming/index.ts';
import { pushAll } from '../../api/push-all.ts';

const LIMIT_TYPES = ['Pod', 'Container', 'PersistentVolumeClaim'];
const MAX_MILLI_VALUE = 9223372036854775807n / 1000n;
const STANDARD_CONTAINER_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage']);

/** Fills a Container item's default and defaultRequest as the original's defaulting does (in place). */
export function defaultLimitRangeItem(item: JsonObject): void {
  if (item['type'] !== 'Container') return;
  const def = { ...(obj(item['default']) ?? {}) };
  const defReq = { ...(obj(item['defaultRequest']) ?? {}) };
  for (const [k, v] of Object.entries(obj(item['max']) ?? {})) if (!(k in def)) def[k] = v;
  for (const [k, v] of Object.entries(def)) if (!(k in defReq)) defReq[k] = v;
  for (const [k, v] of Object.entries(obj(item['min']) ?? {})) if (!(k in defReq)) defReq[k] = v;
  // Empty maps are omitted on the wire (omitempty), as the original's.
  if (Object.keys(def).length > 0) item['default'] = def;
  if (Object.keys(defReq).length > 0) item['defaultRequest'] = defReq;
}

function defaultLimitRange(o: KObject): void {
  for (const item of arr(obj(o['spec'])?.['limits'])) {
    const i = obj(item);
    if (i) defaultLimitRangeItem(i);
  }
}

/** Overcommit is not allowed for hugepages and extended (non-native) resources. */
function overcommitAllowed(name: string): boolean {
  if (name.startsWith('hugepages-')) return false;
  const native = !name.includes('/') || name.startsWith(names.nativeResourcePrefix);
  return native;
}

function validateResourceName(limitType: string, name: string, field: string): FieldError[] {
  if (!/^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(name)) {
    return [fieldErrors.invalid(field, name, "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character")];
  }
  // Container and Pod items take standard container resources, hugepages, and qualified (extended) names.
  if ((limitType === 'Container' || limitType === 'Pod') && !name.includes('/') && !STANDARD_CONTAINER_RESOURCES.has(name) && !name.startsWith('hugepages-')) {
    return [fieldErrors.invalid(field, name, 'must be a standard limit type or fully qualified')];
  }
  if (limitType === 'PersistentVolumeClaim' && !name.includes('/') && name !== 'storage') {
    return [fieldErrors.invalid(field, name, 'must be a standard limit type or fully qualified')];
  }
  return [];
}

export function validateLimitRange(o: KObject): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  const limits = arr(obj(o['spec'])?.['limits']);
  limits.forEach((raw, i) => {
    const path = `spec.limits[${i}]`;
    const item = obj(raw) ?? {};
    const type = typeof item['type'] === 'string' ? item['type'] : '';
    if (type === '') errs.push(fieldErrors.required(`${path}.type`));
    else if (!LIMIT_TYPES.includes(type) && !/^[a-z0-9.-]+\/[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(type)) {
      errs.push(fieldErrors.invalid(`${path}.type`, type, 'must be a standard limit type or fully qualified'));
    }
    if (seen.has(type)) errs.push(fieldErrors.duplicate(`${path}.type`, type));
    seen.add(type);
    const keys = new Set<string>();
    const read = (field: string): Map<string, Quantity> => {
      const m = new Map<string, Quantity>();
      for (const [k, v] of Object.entries(obj(item[field]) ?? {})) {
        pushAll(errs, validateResourceName(type, k, `${path}.${field}[${k}]`));
        keys.add(k);
        const q = toQuantity(v);
        if (q !== undefined) m.set(k, q);
      }
      return m;
    };
    const max = read('max');
    const min = read('min');
    let defaults = new Map<string, Quantity>();
    let defaultRequests = new Map<string, Quantity>();
    if (type === 'Pod') {
      if (Object.keys(obj(item['default']) ?? {}).length > 0) errs.push(fieldErrors.forbidden(`${path}.default`, "may not be specified when `type` is 'Pod'"));
      if (Object.keys(obj(item['defaultRequest']) ?? {}).length > 0) errs.push(fieldErrors.forbidden(`${path}.defaultRequest`, "may not be specified when `type` is 'Pod'"));
    } else {
      defaults = read('default');
      defaultRequests = read('defaultRequest');
    }
    if (type === 'PersistentVolumeClaim' && !min.has('storage') && !max.has('storage')) {
      errs.push(fieldErrors.required(`${path}.limits`, 'either minimum or maximum storage value is required, but neither was provided'));
    }
    const ratios = read('maxLimitRequestRatio');
    for (const k of keys) {
      const mn = min.get(k);
      const mx = max.get(k);
      const df = defaults.get(k);
      const dr = defaultRequests.get(k);
      const ratio = ratios.get(k);
      const s = formatQuantity;
      if (mn && mx && mn.nano > mx.nano) errs.push(fieldErrors.invalid(`${path}.min[${k}]`, s(mn), `min value ${s(mn)} is greater than max value ${s(mx)}`));
      if (dr && mn && mn.nano > dr.nano) errs.push(fieldErrors.invalid(`${path}.defaultRequest[${k}]`, s(dr), `min value ${s(mn)} is greater than default request value ${s(dr)}`));
      if (dr && mx && dr.nano > mx.nano) errs.push(fieldErrors.invalid(`${path}.defaultRequest[${k}]`, s(dr), `default request value ${s(dr)} is greater than max value ${s(mx)}`));
      if (dr && df && dr.nano > df.nano) errs.push(fieldErrors.invalid(`${path}.defaultRequest[${k}]`, s(dr), `default request value ${s(dr)} is greater than default limit value ${s(df)}`));
      if (df && mn && mn.nano > df.nano) errs.push(fieldErrors.invalid(`${path}.default[${k}]`, s(mn), `min value ${s(mn)} is greater than default value ${s(df)}`));
      if (df && mx && df.nano > mx.nano) errs.push(fieldErrors.invalid(`${path}.default[${k}]`, s(mx), `default value ${s(df)} is greater than max value ${s(mx)}`));
      if (ratio && ratio.nano < 1_000_000_000n) errs.push(fieldErrors.invalid(`${path}.maxLimitRequestRatio[${k}]`, s(ratio), `ratio ${s(ratio)} is less than 1`));
      if (ratio && mn && mx) {
        let ratioValue = Number(quantityValue(ratio));
        let minValue = quantityValue(mn);
        let maxValue = quantityValue(mx);
        if (quantityValue(ratio) < MAX_MILLI_VALUE && minValue < MAX_MILLI_VALUE && maxValue < MAX_MILLI_VALUE) {
          ratioValue = Number(quantityMilliValue(ratio)) / 1000;
          minValue = quantityMilliValue(mn);
          maxValue = quantityMilliValue(mx);
        }
        const limit = Number(maxValue) / Number(minValue);
        if (ratioValue > limit) errs.push(fieldErrors.invalid(`${path}.maxLimitRequestRatio[${k}]`, s(ratio), `ratio ${s(ratio)} is greater than max/min = ${limit.toFixed(6)}`));
      }
      if (!overcommitAllowed(k) && df && dr && df.nano !== dr.nano) {
        errs.push(fieldErrors.invalid(`${path}.defaultRequest[${k}]`, s(dr), `default value ${s(df)} must equal to defaultRequest value ${s(dr)} in ${k}`));
      }
    }
  });
  return errs;
}

export const limitRangeStrategy: Strategy = {
  defaults: (o) => defaultLimitRange(o),
  validate: (o) => validateLimitRange(o),
  validateUpdate: (o) => validateLimitRange(o),
};
