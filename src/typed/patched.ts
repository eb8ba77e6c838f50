/**
 * The object a patch or an apply produced, decoded into its kind before the
 * strategy sees it, as the original decodes its patched JSON. A value the
 * kind cannot hold is the original's 422 on `patch` (the patched object
 * quoted); unknown fields, and keys repeated in the patch body, follow
 * `fieldValidation` with a plain 400 `strict decoding error: ...`.
 */
import { StatusError } from '../api/status.ts';
import { errors } from '../api/status.ts';
import { valueDepthExceeded } from './depth.ts';
import { TypedDecodeError } from './decoder.ts';
import { judge, type DecodeTarget } from './body.ts';
import { strictIssues } from './field-validation.ts';
import { replaceLoneSurrogates } from './well-formed.ts';

/** Checks `obj` in place; returns the warnings to send. */
export function decodePatchedObject(obj: Record<string, unknown>, t: DecodeTarget, patchDuplicates: readonly string[] = []): string[] {
  // A patch or apply body (JSON or YAML escapes) may have brought lone surrogates in.
  replaceLoneSurrogates(obj);
  let unknown: string[];
  try {
    unknown = t.decoder.decode(obj);
  } catch (err) {
    if (err instanceof TypedDecodeError) throw invalidPatch(obj, err.message);
    throw err;
  }
  return judge(strictIssues(unknown, patchDuplicates), t, (m) => errors.badRequest(m));
}

/** NewInvalid(GroupKind{}, "", field.Invalid("patch", <patched JSON>, <decode error>)). */
function invalidPatch(obj: Record<string, unknown>, message: string): StatusError {
  // A patched object nested too deeply for JSON.stringify is not quoted.
  const value = valueDepthExceeded(obj, 0) ? '<object>' : JSON.stringify(JSON.stringify(obj));
  const cause = `Invalid value: ${value}: ${message}`;
  return new StatusError(422, 'Invalid', ` "" is invalid: patch: ${cause}`, { causes: [{ reason: 'FieldValueInvalid', message: cause, field: 'patch' }] });
}
