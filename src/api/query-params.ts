/**
 * Query parameters decoded as the original decodes them into ListOptions,
 * DeleteOptions, CreateOptions... (apimachinery's url.Values conversions):
 *
 * - only the first value of a repeated parameter counts;
 * - integers are Go's strconv.ParseInt(v, 10, 64): optional sign, decimal
 *   digits, int64 range; anything else (including an empty value) is 400
 *   BadRequest with strconv's own message, e.g.
 *   `strconv.ParseInt: parsing "abc": invalid syntax`;
 * - booleans never fail: "0" and "false" (any case) are false, any other
 *   value, the empty one included, is true.
 *
 * Option values that parse but are not allowed (dryRun, fieldManager,
 * propagationPolicy) are 422 Invalid on the options kind, as the original's
 * meta/v1 validation reports them.
 */
import { goQuote } from '../selectors/go-format.ts';
import { errors, type StatusError } from './status.ts';
import { names } from '../naming/index.ts';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** The group the options kinds (CreateOptions, DeleteOptions...) belong to. */
export const OPTIONS_GROUP: string = names.acceptedMetaGroups[0]!;

/** strconv.ParseInt(text, 10, 64) as a number (exact up to 2^53; beyond, the nearest double). */
export function parseGoInt64(text: string): number {
  if (!/^[+-]?[0-9]+$/.test(text)) throw errors.badRequest(`strconv.ParseInt: parsing ${goQuote(text)}: invalid syntax`);
  const n = BigInt(text);
  if (n < INT64_MIN || n > INT64_MAX) throw errors.badRequest(`strconv.ParseInt: parsing ${goQuote(text)}: value out of range`);
  return Number(n);
}

/** An int64 parameter: undefined when absent; first value only. */
export function queryInt64(query: URLSearchParams, name: string): number | undefined {
  const v = query.get(name);
  return v === null ? undefined : parseGoInt64(v);
}

/** Go's string-to-bool of a present value: "0"/"false" (any case) are false, everything else true. */
export function goBool(value: string): boolean {
  const lower = value.toLowerCase();
  return lower !== '0' && lower !== 'false';
}

/** A bool parameter: false when absent. */
export function queryBool(query: URLSearchParams, name: string): boolean {
  const v = query.get(name);
  return v !== null && goBool(v);
}

/** A *bool parameter: undefined when absent, else Go's reading of the first value. */
export function queryOptionalBool(query: URLSearchParams, name: string): boolean | undefined {
  const v = query.get(name);
  return v === null ? undefined : goBool(v);
}

/**
 * The integer fields of ListOptions, checked for every list and watch before
 * anything starts (the original fails the whole decoding on any of them).
 */
export function decodeListIntegers(query: URLSearchParams): { limit: number | undefined; timeoutSeconds: number | undefined } {
  return { limit: queryInt64(query, 'limit'), timeoutSeconds: queryInt64(query, 'timeoutSeconds') };
}

/** A 422 on an options kind: `CreateOptions.meta.<suffix> "" is invalid: dryRun: Unsupported value: ...`. */
export function invalidOptions(kind: string, field: string, reason: string, message: string): StatusError {
  return errors.invalid(OPTIONS_GROUP, kind, '', [{ reason, message, field }]);
}

/** Go's %#v of a []string: `[]string{"a", "b"}`. */
function goStringSliceLiteral(values: readonly string[]): string {
  return `[]string{${values.map(goQuote).join(', ')}}`;
}

/** ValidateDryRun: every value must be "All" (an empty value is not). */
export function checkDryRun(kind: string, values: readonly string[]): boolean {
  if (values.some((v) => v !== 'All')) {
    throw invalidOptions(kind, 'dryRun', 'FieldValueNotSupported', `Unsupported value: ${goStringSliceLiteral(values)}: supported values: "All"`);
  }
  return values.length > 0;
}

export const FIELD_MANAGER_MAX_LENGTH = 128;

/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** ValidateFieldManager: at most 128 bytes, printable characters only (the first problem found). */
export function checkFieldManager(kind: string, manager: string): void {
  if (Buffer.byteLength(manager, 'utf8') > FIELD_MANAGER_MAX_LENGTH) {
    throw invalidOptions(kind, 'fieldManager', 'FieldValueTooLong', `Too long: may not be more than ${FIELD_MANAGER_MAX_LENGTH} bytes`);
  }
  let at = 0;
  for (const ch of manager) {
    if (!PRINTABLE.test(ch)) {
      const cp = ch.codePointAt(0)!;
      const u = `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
      throw invalidOptions(kind, 'fieldManager', 'FieldValueInvalid', `Invalid value: ${goQuote(manager)}: invalid character ${u} (at position ${at})`);
    }
    at += Buffer.byteLength(ch, 'utf8');
  }
}

/**
 * ValidateFieldValidation: the value must be one the original knows. Only
 * the value is checked; what Strict and Warn do with unknown fields is the
 * body decoder's business.
 */
export function checkFieldValidation(kind: string, value: string): void {
  if (value === '' || value === 'Ignore' || value === 'Warn' || value === 'Strict') return;
  throw invalidOptions(kind, 'fieldValidation', 'FieldValueNotSupported', `Unsupported value: ${goQuote(value)}: supported values: "", "Ignore", "Strict", "Warn"`);
}

export type PropagationPolicy = 'Foreground' | 'Background' | 'Orphan';

/** ValidateDeleteOptions' check of propagationPolicy. */
export function checkPropagationPolicy(value: unknown): PropagationPolicy {
  if (value === 'Foreground' || value === 'Background' || value === 'Orphan') return value;
  const shown = typeof value === 'string' ? goQuote(value) : JSON.stringify(value);
  throw invalidOptions('DeleteOptions', 'propagationPolicy', 'FieldValueNotSupported', `Unsupported value: ${shown}: supported values: "Foreground", "Background", "Orphan", "nil"`);
}

/** The first instant an RFC 3339 timestamp cannot show (year 10000), in epoch ms. */
const END_OF_TIMESTAMPS_MS = Date.UTC(10000, 0, 1);

/**
 * A grace period must leave the deletion timestamp it sets (now + grace)
 * representable: past year 9999 there is no RFC 3339 text for it (the
 * original fails to encode such an object; here it would be an invalid
 * date), so such a request is refused up front as 422 on DeleteOptions.
 */
export function checkGracePeriod(seconds: number, nowMs: number = Date.now()): number {
  if (seconds > 0 && nowMs + seconds * 1000 >= END_OF_TIMESTAMPS_MS) {
    throw invalidOptions('DeleteOptions', 'gracePeriodSeconds', 'FieldValueInvalid', `Invalid value: ${seconds}: the deletion time it sets must be before year 10000`);
  }
  return seconds;
}
