/**
 * How the original's JSON decoder (Go's encoding/json as forked by
 * sigs.k8s.io/json) names values and types in its errors:
 * `json: cannot unmarshal number into Go struct field ConfigMap.data of type string`.
 */

/** Go's description of a JSON value in UnmarshalTypeError: `number 1.5` for numbers it could not store. */
export function goValueWord(v: unknown, withNumber: boolean): string {
  if (typeof v === 'number') return withNumber ? `number ${goNumber(v)}` : 'number';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return 'array';
  return 'object';
}

/** A number as the JSON text most likely held it (Go quotes the literal). */
function goNumber(v: number): string {
  return String(v);
}

/** `json: cannot unmarshal <value> into Go struct field <Struct>.<path> of type <type>` (Go 1.20+: the path from the root). */
export function unmarshalTypeMessage(value: string, struct: string, fieldPath: string, goType: string): string {
  if (struct === '' && fieldPath === '') return `json: cannot unmarshal ${value} into Go value of type ${goType}`;
  return `json: cannot unmarshal ${value} into Go struct field ${struct}.${fieldPath} of type ${goType}`;
}

/** The Go package-qualified name of a declared struct: `io.<product>.api.apps.v1.DeploymentSpec` → `v1.DeploymentSpec`. */
export function goStructName(schemaName: string): string {
  const parts = schemaName.split('.');
  return parts.length >= 2 ? `${parts[parts.length - 2]}.${parts[parts.length - 1]}` : schemaName;
}

/** The bare struct name Go puts before the field path: `DeploymentSpec`. */
export function goShortName(schemaName: string): string {
  return schemaName.slice(schemaName.lastIndexOf('.') + 1);
}

/** Quantity's parse error (k8s.io/apimachinery/pkg/api/resource). */
export const QUANTITY_MESSAGE = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

/**
 * What ParseQuantity accepts: a signed decimal number, then a binary suffix
 * (Ki..Ei), a decimal SI suffix (n, u, m, k, M..E) or a decimal exponent.
 */
export const QUANTITY_PATTERN = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[KMGTPE]i|[numkMGTPE]|[eE][+-]?[0-9]+)?$/;

/** Go's base64.StdEncoding error for the first byte it cannot take, or undefined for valid input. */
export function base64Error(s: string): string | undefined {
  // Go skips \r and \n anywhere; padding is required.
  const text = s.includes('\n') || s.includes('\r') ? s.replace(/[\r\n]/g, '') : s;
  if (BASE64.test(text)) return undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '=') {
      // Padding is only valid in the last quantum, as one or two `=` closing it.
      const q = i - (i % 4);
      const tail = text.slice(q);
      if (tail.length !== 4 || !/^[A-Za-z0-9+/]{2}(==|[A-Za-z0-9+/]=)$/.test(tail)) return illegal(i);
      return undefined;
    }
    if (!ALPHABET.test(c)) return illegal(i);
  }
  // Every character is in the alphabet: the last quantum is short.
  return illegal(text.length - (text.length % 4));
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * Valid base64 (see base64Error) as Go writes its bytes back: Go's StdEncoding takes a last quantum whose
 * unused bits are not zero ("o05=") as the bytes they leave out, and encodes those bytes canonically ("o04="),
 * in JSON and in Protobuf alike. The input itself when it is canonical already.
 */
export function canonicalBase64(text: string): string {
  const n = text.length;
  if (n < 4 || text.charCodeAt(n - 1) !== 0x3d /* = */) return text;
  const twoPads = text.charCodeAt(n - 2) === 0x3d;
  const at = twoPads ? n - 3 : n - 2;
  const digit = DIGITS.indexOf(text[at]!);
  // Two pads: the last digit carries 2 bits of data (4 unused); one pad: 4 bits (2 unused).
  const kept = digit & (twoPads ? 0x30 : 0x3c);
  return kept === digit ? text : text.slice(0, at) + DIGITS[kept]! + text.slice(at + 1);
}
const ALPHABET = /[A-Za-z0-9+/]/;

function illegal(at: number): string {
  return `illegal base64 data at input byte ${at}`;
}

/** Go's layouts, named in time parse errors. */
export const RFC3339_LAYOUT = '2006-01-02T15:04:05Z07:00';
export const RFC3339_MICRO_LAYOUT = '2006-01-02T15:04:05.000000Z07:00';

export function timeParseMessage(s: string, layout: string): string {
  return `parsing time ${JSON.stringify(s)} as ${JSON.stringify(layout)}: cannot parse ${JSON.stringify(s)} as "2006"`;
}
