/**
 * Writing answers: JSON bodies with their headers, Status errors, and list
 * bodies assembled from the shard's pre-joined item bytes without parsing
 * them again.
 */
import type { RequestContext } from '../server/context.ts';
import type { ListReply } from '../../shards/protocol.ts';
import type { ResourceType } from '../registry/resource-type.ts';
import { StatusError, statusBody } from '../api/status.ts';

const encoder = new TextEncoder();

/** The headers of a complete answer of `length` bytes (with the request's warnings). */
function answerHeaders(ctx: RequestContext, contentType: string, length: number): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {
    'content-type': contentType,
    'content-length': String(length),
    'cache-control': 'no-cache, private',
  };
  if (ctx.warnings.length > 0) headers['warning'] = ctx.warnings.map((w) => `299 - ${JSON.stringify(w)}`);
  return headers;
}

export function writeBytes(ctx: RequestContext, status: number, body: Uint8Array, contentType = 'application/json'): void {
  if (ctx.res.closed) return;
  ctx.status = status;
  ctx.res.writeHead(status, answerHeaders(ctx, contentType, body.byteLength));
  ctx.res.end(body);
}

/**
 * Like writeBytes for a body in parts (a list's head, its items as the shard
 * sent them, its tail): the parts are never joined, and a large body streams
 * out as the client reads it.
 */
export function writeParts(ctx: RequestContext, status: number, parts: readonly Uint8Array[], contentType = 'application/json'): void {
  if (ctx.res.closed) return;
  let length = 0;
  for (const p of parts) length += p.byteLength;
  ctx.status = status;
  ctx.res.writeHead(status, answerHeaders(ctx, contentType, length));
  ctx.res.endParts(parts);
}

export function writeJson(ctx: RequestContext, status: number, value: unknown): void {
  writeBytes(ctx, status, encoder.encode(JSON.stringify(value)));
}

export function writeStatusError(ctx: RequestContext, err: StatusError): void {
  if (ctx.res.closed) return;
  const body = statusBody(err);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'content-length': String(body.byteLength),
    'cache-control': 'no-cache, private',
    ...(err.headers ?? {}),
  };
  ctx.status = err.code;
  ctx.res.writeHead(err.code, headers);
  ctx.res.end(body);
}

export interface ListMetadata {
  resourceVersion: string;
  continue?: string | undefined;
  remainingItemCount?: number | undefined;
}

const LIST_TAIL = encoder.encode(']}');

/** `{"kind":"<Kind>List","apiVersion":...,"metadata":{...},"items":[<items>]}` as parts around the shard's bytes. */
export function listBodyParts(rt: ResourceType, reply: ListReply, meta: ListMetadata): Uint8Array[] {
  const metadata: Record<string, unknown> = { resourceVersion: meta.resourceVersion };
  if (meta.continue) metadata['continue'] = meta.continue;
  if (meta.remainingItemCount !== undefined) metadata['remainingItemCount'] = meta.remainingItemCount;
  const head = encoder.encode(
    `{"kind":${JSON.stringify(rt.listKind)},"apiVersion":${JSON.stringify(rt.apiVersion)},"metadata":${JSON.stringify(metadata)},"items":[`,
  );
  return [head, reply.items, LIST_TAIL];
}
