/**
 * Label key and label value validation, ported from k8s.io/apimachinery
 * pkg/api/validate/content (IsLabelKey, IsLabelValue, IsDNS1123Subdomain),
 * and the field.Error / aggregate formatting Kubernetes wraps them in. The
 * message texts (regexes, examples, the doubled space in "',  or '") are
 * Kubernetes' own: clients match on them. Parse-time only, so regexes are fine.
 */
import { goJSONStrings, goLen, goQuote } from './go-format.ts';

const labelKeyFmt = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const labelKeyErrMsg =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelKeyRegexp = new RegExp('^' + labelKeyFmt + '$');
const labelKeyMaxLength = 63;

const labelValueFmt = '(' + labelKeyFmt + ')?';
const labelValueErrMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelValueRegexp = new RegExp('^' + labelValueFmt + '$');
const labelValueMaxLength = 63;

const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123SubdomainFmt = dns1123LabelFmt + '(\\.' + dns1123LabelFmt + ')*';
const dns1123SubdomainErrMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const dns1123SubdomainRegexp = new RegExp('^' + dns1123SubdomainFmt + '$');
const dns1123SubdomainMaxLength = 253;

function maxLenError(n: number): string {
  return `must be no more than ${n} bytes`;
}

function regexError(msg: string, re: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${re}')`;
  let out = msg + ' (e.g. ';
  examples.forEach((ex, i) => {
    if (i > 0) out += ' or ';
    out += `'${ex}', `;
  });
  return out + `regex used for validation is '${re}')`;
}

export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (goLen(value) > dns1123SubdomainMaxLength) errs.push(maxLenError(dns1123SubdomainMaxLength));
  if (!dns1123SubdomainRegexp.test(value)) {
    errs.push(regexError(dns1123SubdomainErrMsg, dns1123SubdomainFmt, 'example.com'));
  }
  return errs;
}

/** content.IsLabelKey: `[prefix/]name`, prefix a DNS subdomain, name <= 63 bytes. */
export function isLabelKey(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else for (const m of isDNS1123Subdomain(prefix)) errs.push('prefix part ' + m);
  } else {
    return [
      'a valid label key ' +
        regexError(labelKeyErrMsg, labelKeyFmt, 'MyName', 'my.name', '123-abc') +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (goLen(name) > labelKeyMaxLength) errs.push('name part ' + maxLenError(labelKeyMaxLength));
  // Deliberately not an else: Kubernetes reports an empty name twice.
  if (!labelKeyRegexp.test(name)) {
    errs.push('name part ' + regexError(labelKeyErrMsg, labelKeyFmt, 'MyName', 'my.name', '123-abc'));
  }
  return errs;
}

/** content.IsLabelValue: empty, or <= 63 bytes of [-A-Za-z0-9_.] with alphanumeric ends. */
export function isLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (goLen(value) > labelValueMaxLength) errs.push(maxLenError(labelValueMaxLength));
  if (!labelValueRegexp.test(value)) {
    errs.push(regexError(labelValueErrMsg, labelValueFmt, 'MyValue', 'my_value', '12345'));
  }
  return errs;
}

/** field.Invalid(path, value, detail).Error() */
export function invalidValue(path: string, bad: string | readonly string[] | null, detail: string): string {
  const shown = typeof bad === 'string' ? goQuote(bad) : goJSONStrings(bad);
  return `${path}: Invalid value: ${shown}: ${detail}`;
}

/** utilerrors aggregate Error(): one message as is, several deduplicated inside [...]. */
export function aggregateMessages(msgs: readonly string[]): string {
  if (msgs.length === 1) return msgs[0]!;
  const seen = [...new Set(msgs)];
  return seen.length === 1 ? seen[0]! : '[' + seen.join(', ') + ']';
}
