/**
 * Request bodies: content type check and JSON decoding into an object, with
 * the original's messages for the common mistakes. Objects written (POST,
 * PUT) are then decoded into their kind (src/typed) before anything else
 * sees them.
 */
import type { RequestContext } from '../server/context.ts';
import type { KObject } from '../registry/object.ts';
import { isPlainObject } from '../registry/object.ts';
import { errors } from '../api/status.ts';
import { decodeObject, isProtobufMediaType } from '../protobuf/index.ts';
import { decodeJsonBody, decodeObjectBody, jsonDepthExceeded, jsonDepthMessage, type DecodeTarget } from '../typed/index.ts';
import { pushAll } from '../api/push-all.ts';

/** The original's default limit for a request body (3 MiB) plus headroom for encoding. */
export const MAX_BODY_BYTES = 3 * 1024 * 1024 + 512 * 1024;

export const JSON_MEDIA_TYPES = ['application/json', 'application/yaml'] as const;

/** The media type without parameters, lower-cased. */
export function mediaType(header: string | undefined): string {
  if (header === undefined || header === '') return '';
  return header.split(';')[0]!.trim().toLowerCase();
}

export async function readBodyBytes(ctx: RequestContext): Promise<Uint8Array> {
  return ctx.req.body(MAX_BODY_BYTES);
}

/** Reads a JSON object body (DELETE options). Empty bodies give undefined. */
export async function readJsonObject(ctx: RequestContext, { required }: { required: boolean }): Promise<Record<string, unknown> | undefined> {
  const bytes = await readJsonBytes(ctx, { required });
  if (bytes === undefined) return undefined;
  // The same nesting limit as written objects: nothing later walks a deeper value.
  const tooDeepAt = jsonDepthExceeded(bytes);
  if (tooDeepAt >= 0) throw errors.badRequest(`error decoding request body: ${jsonDepthMessage(bytes, tooDeepAt)}`);
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  } catch (err) {
    throw errors.badRequest(`error decoding request body: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!isPlainObject(value)) throw errors.badRequest('the request body must be a JSON object');
  return value;
}

/** The bytes of a JSON body, after the content type check; undefined when empty and not required. */
async function readJsonBytes(ctx: RequestContext, { required }: { required: boolean }): Promise<Uint8Array | undefined> {
  const type = mediaType(ctx.req.header('content-type'));
  const bytes = await readBodyBytes(ctx);
  if (bytes.length === 0) {
    if (required) throw errors.badRequest('the request body is empty; an object was expected');
    return undefined;
  }
  if (type !== '' && type !== 'application/json' && type !== '*/*') {
    throw errors.unsupportedMediaType(type, ['application/json']);
  }
  return bytes;
}

/**
 * Reads the object of a POST or PUT (JSON or Protobuf) and decodes it into
 * `target`'s kind: ill-typed values are a 400, unknown and repeated fields
 * are dropped and answered by `fieldValidation` (warnings go on the response).
 */
export async function readObject(ctx: RequestContext, target: DecodeTarget): Promise<KObject> {
  const type = mediaType(ctx.req.header('content-type'));
  let obj: Record<string, unknown>;
  let warnings: string[];
  if (isProtobufMediaType(type)) {
    const bytes = await readBodyBytes(ctx);
    let decoded;
    try {
      decoded = decodeObject(bytes);
    } catch (err) {
      throw errors.badRequest(`error decoding request body: ${err instanceof Error ? err.message : String(err)}`);
    }
    obj = decoded.object as Record<string, unknown>;
    warnings = decodeObjectBody(obj, target);
  } else {
    const body = decodeJsonBody((await readJsonBytes(ctx, { required: true }))!, target);
    obj = body.object;
    warnings = body.warnings;
  }
  if (warnings.length > 0) pushAll(ctx.warnings, warnings);
  if (obj['metadata'] === undefined || obj['metadata'] === null) obj['metadata'] = {};
  if (!isPlainObject(obj['metadata'])) throw errors.badRequest('metadata must be a JSON object');
  return obj as KObject;
}
