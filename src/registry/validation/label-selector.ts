/**
 * metav1.LabelSelector validation (apimachinery meta/v1/validation) and the
 * selector-versus-template check every workload controller relies on.
 */
import { fieldErrors, type FieldError } from '../strategy.ts';
import { isPlainObject } from '../object.ts';
import { labelSelectorFromObject, type LabelSelectorObject } from '../../selectors/index.ts';
import { goStringMap, invalidShown } from './go-values.ts';
import { isQualifiedName, isValidLabelValue } from './names.ts';
import { validateLabels } from './object-meta.ts';
import { pushAll } from '../../api/push-all.ts';

export function validateLabelSelector(sel: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!isPlainObject(sel)) return errs;
  const matchLabels = sel['matchLabels'];
  if (isPlainObject(matchLabels)) pushAll(errs, validateLabels(matchLabels as Record<string, string>, `${path}.matchLabels`));
  const exprs = sel['matchExpressions'];
  if (!Array.isArray(exprs)) return errs;
  exprs.forEach((raw, i) => {
    const p = `${path}.matchExpressions[${i}]`;
    const e = isPlainObject(raw) ? raw : {};
    const values = Array.isArray(e['values']) ? (e['values'] as unknown[]) : [];
    const operator = e['operator'];
    switch (operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) errs.push(fieldErrors.required(`${p}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) errs.push(fieldErrors.forbidden(`${p}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      default:
        errs.push(fieldErrors.invalid(`${p}.operator`, operator ?? '', 'not a valid selector operator'));
    }
    const key = typeof e['key'] === 'string' ? e['key'] : '';
    for (const msg of isQualifiedName(key)) errs.push(fieldErrors.invalid(`${p}.key`, key, msg));
    values.forEach((v, j) => {
      const s = String(v);
      for (const msg of isValidLabelValue(s)) errs.push(fieldErrors.invalid(`${p}.values[${j}]`, s, msg));
    });
  });
  return errs;
}

/** True when a selector has neither matchLabels nor matchExpressions entries. */
export function isEmptySelector(sel: unknown): boolean {
  if (!isPlainObject(sel)) return false;
  const ml = sel['matchLabels'];
  const me = sel['matchExpressions'];
  return (isPlainObject(ml) ? Object.keys(ml).length : 0) + (Array.isArray(me) ? me.length : 0) === 0;
}

/**
 * Whether `sel` (a metav1.LabelSelector; absent selects nothing) matches
 * `labels`; undefined when the selector itself cannot be compiled, in which
 * case the caller reports the selector and skips the template check.
 */
export function selectorMatches(sel: unknown, labels: unknown): boolean | undefined {
  try {
    const compiled = labelSelectorFromObject(isPlainObject(sel) ? (sel as LabelSelectorObject) : undefined);
    return compiled.matches(isPlainObject(labels) ? (labels as Record<string, string>) : {});
  } catch {
    return undefined;
  }
}

/** The workload rule: a template's labels must satisfy its controller's selector. */
export function selectorMismatch(path: string, labels: unknown): FieldError {
  return invalidShown(path, goStringMap(labels), '`selector` does not match template `labels`');
}
