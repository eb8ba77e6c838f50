/**
 * Request bodies: content type check and JSON decoding into an object, with
 * the original's messages for the common mistakes.
 */
import type { RequestContext } from '../server/context.ts';
import type { KObject } from '../registry/object.ts';
import { isPlainObject } from '../registry/object.ts';
import { errors } from './status.ts';
import { decodeObject, isProtobufMediaType } from '../protobuf/index.ts';

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

/** Reads a JSON object body (POST, PUT, DELETE options). Empty bodies give undefined. */
export async function readJsonObject(ctx: RequestContext, { required }: { required: boolean }): Promise<Record<string, unknown> | undefined> {
  const type = mediaType(ctx.req.header('content-type'));
  const bytes = await readBodyBytes(ctx);
  if (bytes.length === 0) {
    if (required) throw errors.badRequest('the request body is empty; an object was expected');
    return undefined;
  }
  if (type !== '' && type !== 'application/json' && type !== '*/*') {
    throw errors.unsupportedMediaType(type, ['application/json']);
  }
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  } catch (err) {
    throw errors.badRequest(`error decoding request body: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!isPlainObject(value)) throw errors.badRequest('the request body must be a JSON object');
  return value;
}

export async function readObject(ctx: RequestContext): Promise<KObject> {
  const type = mediaType(ctx.req.header('content-type'));
  if (isProtobufMediaType(type)) {
    const bytes = await readBodyBytes(ctx);
    let decoded;
    try {
      decoded = decodeObject(bytes);
    } catch (err) {
      throw errors.badRequest(`error decoding request body: ${err instanceof Error ? err.message : String(err)}`);
    }
    const obj = decoded.object as Record<string, unknown>;
    if (obj['metadata'] === undefined || obj['metadata'] === null) obj['metadata'] = {};
    return obj as KObject;
  }
  const obj = (await readJsonObject(ctx, { required: true }))!;
  if (obj['metadata'] === undefined || obj['metadata'] === null) obj['metadata'] = {};
  if (!isPlainObject(obj['metadata'])) throw errors.badRequest('metadata must be a JSON object');
  return obj as KObject;
}
