/**
 * Rules the apps and batch controllers share (pkg/apis/apps/validation):
 * non-negative counters, int-or-percent fields, the selector/template
 * contract, the immutable selector, and the pod template rules of
 * controllers whose pods always restart.
 */
import { fieldErrors, type FieldError } from '../strategy.ts';
import { goIntOrString, goLabelSelector, invalidShown } from '../validation/go-values.ts';
import { isEmptySelector, selectorMatches, selectorMismatch, validateLabelSelector } from '../validation/label-selector.ts';
import { regexError } from '../validation/names.ts';
import { IS_NEGATIVE_ERROR_MSG, validateImmutableField } from '../validation/object-meta.ts';
import { validatePodTemplateSpec } from './pod-validation.ts';
import { num, obj, type JsonObject } from './util.ts';
import { pushAll } from '../../api/push-all.ts';

/** ValidateNonnegativeField, for optional integer fields (absent is fine). */
export function nonNegative(value: unknown, path: string): FieldError[] {
  const n = num(value);
  return n !== undefined && n < 0 ? [fieldErrors.invalid(path, n, IS_NEGATIVE_ERROR_MSG)] : [];
}

/** The number in an int-or-percent (`25%` is 25); 0 for what does not parse. */
export function intOrPercentValue(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && /^[0-9]+%$/.test(v)) return Number(v.slice(0, -1));
  return 0;
}

/** ValidatePositiveIntOrPercent followed by IsNotMoreThan100Percent. */
export function validateIntOrPercent(v: unknown, path: string, capAt100 = false): FieldError[] {
  const errs: FieldError[] = [];
  if (typeof v === 'string') {
    if (!/^[0-9]+%$/.test(v)) {
      errs.push(invalidShown(path, goIntOrString(v), regexError("a valid percent string must be a numeric string followed by an ending '%'", '[0-9]+%', '1%', '93%')));
    } else if (capAt100 && intOrPercentValue(v) > 100) {
      errs.push(invalidShown(path, goIntOrString(v), 'must not be greater than 100%'));
    }
  } else if (typeof v === 'number') {
    pushAll(errs, nonNegative(v, path));
  } else if (v !== undefined && v !== null) {
    errs.push(fieldErrors.invalid(path, v, "must be an integer or percentage (e.g '5%')"));
  }
  return errs;
}

/**
 * Selector present, well formed, not empty, and matching the template's
 * labels; `kindWord` completes "empty selector is invalid for <kind>".
 * `requireSelector` is false for DaemonSets, whose validation reports a
 * missing selector only through the template mismatch.
 */
export function validateSelectorAndTemplate(spec: JsonObject, kindWord: string, requireSelector = true): FieldError[] {
  const errs: FieldError[] = [];
  const sel = spec['selector'];
  if (sel === undefined || sel === null) {
    if (requireSelector) errs.push(fieldErrors.required('spec.selector'));
  } else {
    pushAll(errs, validateLabelSelector(sel, 'spec.selector'));
    if (isEmptySelector(sel)) errs.push(invalidShown('spec.selector', goLabelSelector(sel), `empty selector is invalid for ${kindWord}`));
  }
  const template = obj(spec['template']);
  const labels = obj(template?.['metadata'])?.['labels'];
  const matches = selectorMatches(sel, labels);
  // An empty selector ({}) selects everything, so it never mismatches.
  if (matches === false) errs.push(selectorMismatch('spec.template.metadata.labels', labels));
  if (matches === undefined) errs.push(invalidShown('spec.selector', goLabelSelector(sel), 'invalid label selector'));
  return errs;
}

/**
 * The template of a controller whose pods must run forever. The original
 * words the activeDeadlineSeconds refusal differently per kind, and for
 * StatefulSets reports it as Forbidden rather than Invalid.
 */
export function validateAlwaysRestartingTemplate(spec: JsonObject, activeDeadlineMessage: string, forbidDeadline = false): FieldError[] {
  const errs = validatePodTemplateSpec(spec['template'], 'spec.template');
  const podSpec = obj(obj(spec['template'])?.['spec']) ?? {};
  const restart = podSpec['restartPolicy'];
  if (restart !== 'Always' && restart !== undefined && restart !== '') {
    errs.push(fieldErrors.notSupported('spec.template.spec.restartPolicy', restart, ['Always']));
  }
  if (podSpec['activeDeadlineSeconds'] !== undefined && podSpec['activeDeadlineSeconds'] !== null) {
    const path = 'spec.template.spec.activeDeadlineSeconds';
    errs.push(forbidDeadline ? fieldErrors.forbidden(path, activeDeadlineMessage) : fieldErrors.invalid(path, podSpec['activeDeadlineSeconds'], activeDeadlineMessage));
  }
  return errs;
}

/** apps/v1 selectors cannot change once created. */
export function validateSelectorImmutable(spec: JsonObject, old: JsonObject): FieldError[] {
  if (validateImmutableField(spec['selector'], old['selector'], 'spec.selector').length === 0) return [];
  return [invalidShown('spec.selector', goLabelSelector(spec['selector']), 'field is immutable')];
}
