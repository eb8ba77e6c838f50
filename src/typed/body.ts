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
import { errors } from '../endpoints/status.ts';
import { jsonDepthExceeded, jsonDepthMessage } from './depth.ts';
import { TypedDecodeError, type KindDecoder } from './decoder.ts';
import { duplicateFields } from './duplicates.ts';
import { strictDecodingMessage, strictIssues, type FieldValidation } from './field-validation.ts';

/** The kind a body must decode into, and how. */
export interface DecodeTarget {
  readonly kind: string;
  readonly version: string;
  readonly decoder: KindDecoder;
  readonly fieldValidation: FieldValidation;
}

/** Refuses JSON text nested past the limit, before JSON.parse builds it. */
export function checkJsonDepth(text: string, kind: string): void {
  const at = jsonDepthExceeded(text);
  if (at >= 0) {
    throw errors.badRequest(`the object provided is unrecognized (must be of type ${kind}): couldn't get version/kind; json parse error: ${jsonDepthMessage(text, at)} (${summarize(text)})`);
  }
}

/**
 * Checks a parsed JSON body (from `text`) in place. Returns the warnings to
 * send; throws the original's 400s.
 */
export function decodeParsedBody(obj: Record<string, unknown>, text: string | undefined, t: DecodeTarget): string[] {
  const unknown = decodeOrThrow(obj, t);
  const duplicate = t.fieldValidation !== 'Ignore' && text !== undefined ? duplicateFields(text) : [];
  return judge(strictIssues(unknown, duplicate), t, (m) => errors.badRequest(cannotHandle(t, m)));
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
function summarize(text: string): string {
  if (text.length === 0) return '<empty>';
  const head = text.length > 30 ? text.slice(0, 30) : text;
  const more = text.length > 30 ? ' ...' : '';
  return text[0] === '{' ? head + more : Buffer.from(head, 'utf8').toString('hex') + more;
}
