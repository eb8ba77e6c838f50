/**
 * One label requirement (key, operator, values): Kubernetes'
 * labels.NewRequirement validation and Requirement.String rendering.
 */
import { compareGo } from './go-format.ts';
import { parseInt64 } from './int64.ts';
import { aggregateMessages, invalidValue, isLabelKey, isLabelValue } from './validation.ts';

/** selection.Operator, spelled as Kubernetes spells it. */
export type LabelOperator = '=' | '==' | '!=' | 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';

export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  /**
   * From a selector string: sorted and deduplicated (Kubernetes keeps them in a
   * set). From a metav1.LabelSelector: as given.
   */
  readonly values: readonly string[];
}

/** The key check on its own; the parser runs it before reading the operator. */
export function labelKeyError(key: string, path: string): string | undefined {
  const errs = isLabelKey(key);
  return errs.length === 0 ? undefined : invalidValue(path, key, errs.join('; '));
}

/**
 * labels.NewRequirement: every problem, in Kubernetes' order, as one
 * aggregated message; undefined when the requirement is valid.
 */
export function requirementError(
  key: string,
  operator: LabelOperator,
  values: readonly string[],
): string | undefined {
  const errs: string[] = [];
  const keyErr = labelKeyError(key, 'key');
  if (keyErr !== undefined) errs.push(keyErr);
  // Only a metav1 selector can reach the count errors, and there Kubernetes
  // holds a nil slice when no values were given, which prints as null.
  const shown = values.length === 0 ? null : values;
  switch (operator) {
    case 'in':
    case 'notin':
      if (values.length === 0) {
        errs.push(invalidValue('values', shown, "for 'in', 'notin' operators, values set can't be empty"));
      }
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1) {
        errs.push(invalidValue('values', shown, 'exact-match compatibility requires one single value'));
      }
      break;
    case 'exists':
    case '!':
      if (values.length !== 0) {
        errs.push(invalidValue('values', shown, 'values set must be empty for exists and does not exist'));
      }
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1) {
        errs.push(invalidValue('values', shown, "for 'Gt', 'Lt' operators, exactly one value is required"));
      }
      values.forEach((v, i) => {
        if (parseInt64(v) === undefined) {
          errs.push(invalidValue(`values[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"));
        }
      });
      break;
  }
  values.forEach((v, i) => {
    const valueErrs = isLabelValue(v);
    if (valueErrs.length !== 0) errs.push(invalidValue(`values[${i}][${key}]`, v, valueErrs.join('; ')));
  });
  return errs.length === 0 ? undefined : aggregateMessages(errs);
}

const infix: Record<LabelOperator, string> = {
  '=': '=',
  '==': '==',
  '!=': '!=',
  in: ' in ',
  notin: ' notin ',
  gt: '>',
  lt: '<',
  exists: '',
  '!': '',
};

/** Requirement.String(): `!k`, `k`, `k=v`, `k in (a,b)`; values printed sorted. */
export function requirementString(r: LabelRequirement): string {
  if (r.operator === 'exists') return r.key;
  if (r.operator === '!') return '!' + r.key;
  const values = r.values.length > 1 ? [...r.values].sort(compareGo).join(',') : (r.values[0] ?? '');
  const set = r.operator === 'in' || r.operator === 'notin';
  return r.key + infix[r.operator] + (set ? '(' + values + ')' : values);
}

/** Kubernetes sorts requirements by key; ties are ordered by their text so equal selectors print equally. */
export function compareRequirements(
  a: { readonly key: string; readonly text: string },
  b: { readonly key: string; readonly text: string },
): number {
  return compareGo(a.key, b.key) || compareGo(a.text, b.text);
}
