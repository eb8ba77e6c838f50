/**
 * Writing answers: JSON bodies with their headers, Status errors, and list
 * bodies assembled from the shard's pre-joined item bytes without parsing
 * them again.
 */
import type { RequestContext } from '../server/context.ts';
import type { ListReply } from '../../shards/protocol.ts';
import type { ResourceType } from '../registry/resource-type.ts';
import { StatusError, statusBody } from './status.ts';

const encoder = new TextEncoder();

export function writeBytes(ctx: RequestContext, status: number, body: Uint8Array, contentType = 'application/json'): void {
  if (ctx.res.closed) return;
  const headers: Record<string, string | string[]> = {
    'content-type': contentType,
    'content-length': String(body.byteLength),
    'cache-control': 'no-cache, private',
  };
  if (ctx.warnings.length > 0) headers['warning'] = ctx.warnings.map((w) => `299 - ${JSON.stringify(w)}`);
  ctx.status = status;
  ctx.res.writeHead(status, headers);
  ctx.res.end(body);
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

/** `{"kind":"<Kind>List","apiVersion":...,"metadata":{...},"items":[<items>]}` around the shard's bytes. */
export function listBody(rt: ResourceType, reply: ListReply, meta: ListMetadata): Uint8Array {
  const metadata: Record<string, unknown> = { resourceVersion: meta.resourceVersion };
  if (meta.continue) metadata['continue'] = meta.continue;
  if (meta.remainingItemCount !== undefined) metadata['remainingItemCount'] = meta.remainingItemCount;
  const head = encoder.encode(
    `{"kind":${JSON.stringify(rt.listKind)},"apiVersion":${JSON.stringify(rt.apiVersion)},"metadata":${JSON.stringify(metadata)},"items":[`,
  );
  const tail = encoder.encode(']}');
  const out = new Uint8Array(head.length + reply.items.byteLength + tail.length);
  out.set(head, 0);
  out.set(reply.items, head.length);
  out.set(tail, head.length + reply.items.byteLength);
  return out;
}
