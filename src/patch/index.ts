/**
 * PATCH bodies applied to an object: JSON patch (RFC 6902), JSON merge patch
 * (RFC 7386) and strategic merge patch, with the checks and Status errors of
 * the original's patch handler. The HTTP handler reads the body, finds the
 * schema of the object's kind, and calls `applyPatch`; everything after the
 * merge (decoding, defaulting, validation, admission, storage) is its
 * business.
 *
 * `application/apply-patch+yaml` (server-side apply) is not handled here: it
 * is answered 415 like any unsupported type until server-side apply exists,
 * and the 415's list of accepted types leaves it out.
 */
import { errors } from '../api/status.ts';
import { applyJsonPatch, type JsonPatchLimits } from './json-patch.ts';
import { isJsonObject, type JsonObject } from './json-value.ts';
import { applyMergePatch } from './merge-patch.ts';
import { PatchError } from './patch-error.ts';
import { notAnObjectStatus, patchErrorStatus } from './patch-status.ts';
import type { SchemaLookup } from './schema-lookup.ts';
import { applyStrategicMergePatch } from './strategic-merge-patch.ts';
import { jsonDepthExceeded, jsonDepthMessage } from '../typed/depth.ts';

export { applyJsonPatch, decodeJsonPatch, MAX_JSON_PATCH_COPY_BYTES, MAX_JSON_PATCH_OPERATIONS, type JsonPatchLimits } from './json-patch.ts';
export { applyMergePatch } from './merge-patch.ts';
export { applyStrategicMergePatch } from './strategic-merge-patch.ts';
export { lookupPath, NO_PATCH_META, schemaLookupFor, UNKNOWN_SCHEMA, type FieldLookup, type PatchMeta, type SchemaLookup } from './schema-lookup.ts';
export { PatchError, type PatchErrorCode } from './patch-error.ts';
export { PATCH_NOT_APPLICABLE_MESSAGE } from './patch-status.ts';

export const JSON_PATCH_TYPE = 'application/json-patch+json';
export const MERGE_PATCH_TYPE = 'application/merge-patch+json';
export const STRATEGIC_MERGE_PATCH_TYPE = 'application/strategic-merge-patch+json';
export const APPLY_PATCH_TYPE = 'application/apply-patch+yaml';

/** The original's default `--max-request-body-bytes` (3 MiB), which its patch handler enforces. */
export const MAX_PATCH_BODY_BYTES = 3 * 1024 * 1024;

export interface ApplyPatchRequest {
  /** The request's Content-Type; parameters such as `charset` are ignored. */
  readonly contentType: string | undefined;
  /** The stored object, as JSON; not modified. */
  readonly original: Readonly<Record<string, unknown>>;
  /** The request body. */
  readonly patchBytes: Uint8Array | string;
  /**
   * Patch metadata of the object's type (`schemaLookupFor(set, kindSchema)`).
   * Undefined for a type without a schema, such as an extension type: those
   * take no strategic merge patch (415), as in the original.
   */
  readonly schema?: SchemaLookup | undefined;
  /** Body size limit; default MAX_PATCH_BODY_BYTES. */
  readonly maxBodyBytes?: number;
  readonly jsonPatchLimits?: JsonPatchLimits;
}

/** The patch types a type accepts, in the original's order; also the list its 415 message names. */
export function supportedPatchTypes(hasSchema: boolean): string[] {
  return hasSchema ? [JSON_PATCH_TYPE, MERGE_PATCH_TYPE, STRATEGIC_MERGE_PATCH_TYPE] : [JSON_PATCH_TYPE, MERGE_PATCH_TYPE];
}

/**
 * Applies a PATCH body to `original` and returns the patched object. Throws
 * a StatusError: 415 for a patch type the object's type does not take, 413
 * past the size limit, 400 for a body that is not JSON or not the shape its
 * type needs, 422 when the patch does not apply, 500 for the strategic merge
 * failures the original leaves unclassified (a list item without its merge
 * key, an unknown `$patch` value, a `$setElementOrder` list out of order).
 */
export function applyPatch(req: ApplyPatchRequest): Record<string, unknown> {
  const type = mediaTypeOf(req.contentType);
  const supported = supportedPatchTypes(req.schema !== undefined);
  if (!supported.includes(type)) throw errors.unsupportedMediaType(type, supported);

  const bytes = typeof req.patchBytes === 'string' ? Buffer.from(req.patchBytes, 'utf8') : req.patchBytes;
  const limit = req.maxBodyBytes ?? MAX_PATCH_BODY_BYTES;
  if (bytes.byteLength > limit) throw errors.tooLarge(`Request entity too large: limit is ${limit}`);
  const patch = parseJson(bytes);

  try {
    if (type === JSON_PATCH_TYPE) return asObject(applyJsonPatch(req.original, patch, req.jsonPatchLimits));
    if (type === MERGE_PATCH_TYPE) {
      // The original's merge patch library refuses null and scalars outright;
      // a list "applies" and then fails to decode as the object.
      if (!isJsonObject(patch) && !Array.isArray(patch)) throw errors.badRequest('Invalid JSON Patch');
      return asObject(applyMergePatch(req.original, patch));
    }
    if (req.schema === undefined) throw new Error(`${type} passed the content type check without a schema`);
    return applyStrategicMergePatch(req.original as JsonObject, strategicPatchMap(patch), req.schema);
  } catch (e) {
    throw e instanceof PatchError ? patchErrorStatus(e) : e;
  }
}

function mediaTypeOf(header: string | undefined): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

/**
 * Every patch body must be JSON; the original checks this before looking at
 * its shape. Nesting is limited first: the patch algorithms recurse.
 */
function parseJson(bytes: Uint8Array): unknown {
  const deep = jsonDepthExceeded(bytes);
  if (deep >= 0) throw errors.badRequest(`invalid JSON patch: ${jsonDepthMessage(bytes, deep)}`);
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw errors.badRequest('invalid JSON patch');
  }
}

function asObject(result: unknown): Record<string, unknown> {
  if (!isJsonObject(result)) throw notAnObjectStatus(result);
  return result;
}

/** A strategic merge patch decodes into a map: null is an empty patch, anything else but an object is a 400. */
function strategicPatchMap(patch: unknown): JsonObject {
  if (patch === null) return {};
  if (isJsonObject(patch)) return patch;
  const word = Array.isArray(patch) ? 'array' : typeof patch === 'boolean' ? 'bool' : typeof patch === 'string' ? 'string' : 'number';
  throw errors.badRequest(`json: cannot unmarshal ${word} into Go value of type map[string]interface {}`);
}
