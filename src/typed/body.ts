/**
 * A write's body decoded into its kind: JSON text (or a Protobuf-decoded
 * object) checked against the schema, with the original's answers:
 *
 * - nested past the limit: 400 `... json parse error: invalid character '[' exceeded max depth`;
 * - not JSON: the caller's 400;
 * - a value the kind cannot hold: 400 `ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal ...`;
 * - unknown or repeated fields: dropped; 400 `... strict decoding error: unknown field "spec.foo"` under Strict,
 *   a warning each under Warn, nothing under Ignore.
 */
import { errors } from '../api/status.ts';
import { jsonDepthMessage } from './depth.ts';
import { TypedDecodeError, type KindDecoder } from './decoder.ts';
import { scanJson } from './duplicates.ts';
import { strictDecodingMessage, strictIssues, type FieldValidation } from './field-validation.ts';
import { mayHoldSurrogateEscape, replaceLoneSurrogates } from './well-formed.ts';

/** The kind a body must decode into, and how. */
export interface DecodeTarget {
  readonly kind: string;
  readonly version: string;
  readonly decoder: KindDecoder;
  readonly fieldValidation: FieldValidation;
}

/**
 * A JSON body (UTF-8 bytes) parsed and decoded into the kind. Returns the
 * object and the warnings to send; throws the original's 400s.
 *
 * Under Strict and Warn one scan of the bytes finds repeated keys and
 * refuses nesting past the limit before JSON.parse runs. Under Ignore there
 * is no scan: JSON.parse itself is not recursive, and the decoder bounds
 * the depth of everything it keeps (unknown fields are dropped unseen).
 */
export function decodeJsonBody(bytes: Uint8Array, t: DecodeTarget): { object: Record<string, unknown>; warnings: string[] } {
  let duplicate: string[] = [];
  // One Buffer view for the scan (its quote search) and the parse.
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (t.fieldValidation !== 'Ignore') {
    const scan = scanJson(text);
    if (scan.tooDeepAt >= 0) {
      throw errors.badRequest(`the object provided is unrecognized (must be of type ${t.kind}): couldn't get version/kind; json parse error: ${jsonDepthMessage(bytes, scan.tooDeepAt)} (${summarize(bytes)})`);
    }
    duplicate = scan.duplicates;
  }
  let value: unknown;
  try {
    value = JSON.parse(text.toString('utf8'));
    if (mayHoldSurrogateEscape(bytes)) replaceLoneSurrogates(value);
  } catch (err) {
    throw errors.badRequest(`error decoding request body: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw errors.badRequest('the request body must be a JSON object');
  const object = value as Record<string, unknown>;
  const unknown = decodeOrThrow(object, t);
  return { object, warnings: judge(strictIssues(unknown, duplicate), t, (m) => errors.badRequest(cannotHandle(t, m))) };
}

/** An object decoded from another encoding (Protobuf): the same checks, no text to scan. */
export function decodeObjectBody(object: Record<string, unknown>, t: DecodeTarget): string[] {
  const unknown = decodeOrThrow(object, t);
  return judge(strictIssues(unknown, []), t, (m) => errors.badRequest(cannotHandle(t, m)));
}

/** Decodes into the kind; a TypedDecodeError becomes the original's 400. */
function decodeOrThrow(obj: Record<string, unknown>, t: DecodeTarget): string[] {
  try {
    return t.decoder.decode(obj);
  } catch (err) {
    if (err instanceof TypedDecodeError) throw errors.badRequest(cannotHandle(t, err.message));
    throw err;
  }
}

/** Strict fails, Warn warns, Ignore says nothing. */
export function judge(issues: readonly string[], t: { readonly fieldValidation: FieldValidation }, fail: (message: string) => Error): string[] {
  if (issues.length === 0 || t.fieldValidation === 'Ignore') return [];
  if (t.fieldValidation === 'Strict') throw fail(strictDecodingMessage(issues));
  return [...issues];
}

/** transformDecodeError's wording when the body named its kind. */
function cannotHandle(t: DecodeTarget, message: string): string {
  return `${t.kind} in version ${JSON.stringify(t.version)} cannot be handled as a ${t.kind}: ${message}`;
}

/** The original's summarizeData: the first 30 bytes, as text when the body starts with `{`, else hex. */
function summarize(b: Uint8Array): string {
  if (b.length === 0) return '<empty>';
  const head = Buffer.from(b.buffer, b.byteOffset, Math.min(30, b.byteLength));
  const more = b.length > 30 ? ' ...' : '';
  return b[0] === 0x7b ? head.toString('utf8') + more : head.toString('hex') + more;
}
