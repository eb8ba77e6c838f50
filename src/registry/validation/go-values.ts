/**
 * Some of the original's messages print a Go value with %#v, e.g.
 *   spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`
 * Clients and people grep for these; the helpers here render the few shapes
 * that matter (string maps, string slices, label selectors) the way Go does.
 */
import type { FieldError } from '../strategy.ts';
import { isPlainObject } from '../object.ts';

/** field.Invalid with the bad value already rendered. */
export function invalidShown(field: string, shown: string, detail: string): FieldError {
  return { field, type: 'FieldValueInvalid', message: `Invalid value: ${shown}: ${detail}` };
}

/** Go's %q for the strings we print: JSON's escaping agrees for printable text. */
export function goQuote(s: string): string {
  return JSON.stringify(s);
}

/** %#v of map[string]string: keys sorted (fmt sorts map keys), nil printed as such. */
export function goStringMap(m: unknown): string {
  if (!isPlainObject(m)) return 'map[string]string(nil)';
  const keys = Object.keys(m).sort();
  return `map[string]string{${keys.map((k) => `${goQuote(k)}:${goQuote(String(m[k]))}`).join(', ')}}`;
}

/** %#v of []string. */
export function goStringSlice(v: unknown): string {
  if (!Array.isArray(v)) return '[]string(nil)';
  return `[]string{${v.map((s) => goQuote(String(s))).join(', ')}}`;
}

/** %#v of a metav1.LabelSelector value (the field error printer dereferences the pointer). */
export function goLabelSelector(sel: unknown): string {
  if (!isPlainObject(sel)) return 'null';
  const exprs = sel['matchExpressions'];
  const renderedExprs = Array.isArray(exprs)
    ? `[]v1.LabelSelectorRequirement{${exprs
        .map((e) => {
          const r = isPlainObject(e) ? e : {};
          return `v1.LabelSelectorRequirement{Key:${goQuote(String(r['key'] ?? ''))}, Operator:${goQuote(String(r['operator'] ?? ''))}, Values:${goStringSlice(r['values'])}}`;
        })
        .join(', ')}}`
    : '[]v1.LabelSelectorRequirement(nil)';
  return `v1.LabelSelector{MatchLabels:${goStringMap(sel['matchLabels'])}, MatchExpressions:${renderedExprs}}`;
}

/** %#v of an intstr.IntOrString value (Type 0 is an int, 1 a string). */
export function goIntOrString(v: unknown): string {
  if (typeof v === 'string') return `intstr.IntOrString{Type:1, IntVal:0, StrVal:${goQuote(v)}}`;
  const n = typeof v === 'number' ? v : 0;
  return `intstr.IntOrString{Type:0, IntVal:${n}, StrVal:""}`;
}

/** %#v of a []byte, as the original prints spec.request in its errors. */
export function goBytes(bytes: Uint8Array): string {
  return `[]byte{${Array.from(bytes, (b) => `0x${b.toString(16)}`).join(', ')}}`;
}
