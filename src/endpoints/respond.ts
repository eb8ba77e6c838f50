/**
 * Writing answers: JSON bodies with their headers, Status errors, and list
 * bodies assembled from the shard's pre-joined item bytes without parsing
 * them again.
 */
import type { RequestContext } from '../server/context.ts';
import type { ListReply } from '../../shards/protocol.ts';
import type { ListPieceQueue } from '../../shards/list-pieces.ts';
import type { ResourceType } from '../registry/resource-type.ts';
import { StatusError, statusBody } from '../api/status.ts';

const encoder = new TextEncoder();

/** The headers of a complete answer of `length` bytes, or of one streamed (chunked), with the request's warnings. */
function answerHeaders(ctx: RequestContext, contentType: string, length: number | undefined): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> =
    length === undefined
      ? { 'content-type': contentType, 'cache-control': 'no-cache, private', 'transfer-encoding': 'chunked' }
      : { 'content-type': contentType, 'content-length': String(length), 'cache-control': 'no-cache, private' };
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

/**
 * A 200 list answer whose items come in pieces (ListReply.pieces, a large
 * JSON list streamed by the shard): the list's head, each piece as it
 * arrives, then its tail. Chunked, without Content-Length, as the original
 * sends a large list. A slow client is waited for (a piece is written once
 * it took the previous one), so what waits stays in the queue, outside the
 * front end's budget for streams. If a piece cannot come (the shard thread
 * went away) the connection or stream is reset and the error rethrown: a
 * client must never take a cut answer for a whole one.
 */
export async function writeStreamedList(ctx: RequestContext, head: Uint8Array, pieces: ListPieceQueue, tail: Uint8Array): Promise<void> {
  const res = ctx.res;
  if (res.closed) {
    pieces.abandon();
    pieces.release();
    return;
  }
  ctx.status = 200;
  res.writeHead(200, answerHeaders(ctx, 'application/json', undefined));
  // Waited for before the next write once a write reported a full buffer: asked for at that write, since the
  // drain may come while the next piece is awaited; the client going away ends the wait too.
  let drained: Promise<void> | undefined;
  let wake: (() => void) | undefined;
  res.onClose(() => wake?.());
  const write = (chunk: Uint8Array): void => {
    if (res.write(chunk)) return;
    drained = new Promise<void>((resolve) => {
      wake = resolve;
      res.onDrain(resolve);
    });
  };
  write(head);
  try {
    for await (const piece of pieces) {
      if (drained !== undefined) {
        await drained;
        drained = undefined;
        wake = undefined;
      }
      if (res.closed) break;
      write(piece);
    }
  } catch (err) {
    res.destroy();
    pieces.release();
    throw err;
  } finally {
    pieces.abandon();
  }
  if (res.closed) {
    pieces.release();
    return;
  }
  res.end(tail);
  // Every piece went to the response, but a slow client's front end may still hold some by reference (the uWS
  // response queues what uWS did not take; node's streams buffer chunks until written): onClose comes once it is
  // over, not at end(). Over without the client going away, nothing holds a piece: the shard may make later
  // answers in their memory. An aborted response may still hold some: the shard is told the reader is through,
  // but never reuses them.
  const signal = ctx.req.signal;
  res.onClose(() => {
    if (signal.aborted) pieces.release();
    else pieces.written();
  });
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
