/**
 * Answers GET requests for the OpenAPI documents, with the original's
 * caching rules, as a plain function so any front end can call it:
 *
 * - `/openapi/v2` and `/openapi/v3` carry an ETag and honour If-None-Match.
 * - `/openapi/v3/<gv>?hash=<h>` with the current hash is immutable for a
 *   year; with a stale hash it redirects (301) to the current URL, so a
 *   client following an old index never gets a mismatched body.
 * - v2 is also served as gnostic's Protobuf Document (v2-protobuf.ts), which
 *   client-go's discovery asks for; everything else is JSON, and a request
 *   that accepts neither gets 406.
 */
import { createHash } from 'node:crypto';
import type { OpenApiDocuments } from './build.ts';
import { OPENAPI_V2_PROTOBUF, OPENAPI_V2_PROTOBUF_CONTENT_TYPE, openApiV2Protobuf } from './v2-protobuf.ts';

export interface OpenApiRequest {
  /** Path without query, e.g. `/openapi/v3/apis/apps/v1`. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly accept?: string | undefined;
  readonly ifNoneMatch?: string | undefined;
}

export interface OpenApiResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array;
}

const EMPTY = new Uint8Array(0);
const V3_PREFIX = '/openapi/v3/';

/** The response for an OpenAPI path, or undefined when `path` is not one of ours. */
export function openApiResponse(docs: OpenApiDocuments, req: OpenApiRequest): OpenApiResponse | undefined {
  if (req.path === '/openapi/v2') {
    if (prefersV2Protobuf(req.accept)) {
      const pb = v2Protobuf(docs);
      return withCaching(req, pb.body, pb.etag, false, OPENAPI_V2_PROTOBUF_CONTENT_TYPE);
    }
    return document(req, docs.v2, docs.etags.v2, false);
  }
  if (req.path === '/openapi/v3' || req.path === '/openapi/v3/') return document(req, docs.v3Index, docs.etags.v3Index, false);
  if (!req.path.startsWith(V3_PREFIX)) return undefined;
  const gv = req.path.slice(V3_PREFIX.length);
  const body = docs.v3ByPath.get(gv);
  const hash = docs.v3Hashes.get(gv);
  if (body === undefined || hash === undefined) return undefined;
  const asked = req.query.get('hash');
  if (asked !== null && asked !== '' && asked !== hash) {
    return { status: 301, headers: { location: `${V3_PREFIX}${gv}?hash=${hash}` }, body: EMPTY };
  }
  return document(req, body, docs.etags.v3.get(gv)!, asked === hash);
}

const V2_PROTOBUF_TYPES = new Set([OPENAPI_V2_PROTOBUF, OPENAPI_V2_PROTOBUF_CONTENT_TYPE]);

/** Whether the Accept list names v2's Protobuf form before any JSON it accepts. */
function prefersV2Protobuf(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  for (const part of accept.split(',')) {
    const type = part.split(';')[0]!.trim().toLowerCase();
    if (V2_PROTOBUF_TYPES.has(type)) return true;
    if (type === 'application/json' || type === 'application/*' || type === '*/*') return false;
  }
  return false;
}

/** v2 as Protobuf, encoded on first request (most clients never ask) and kept with its ETag. */
const v2ProtobufCache = new WeakMap<OpenApiDocuments, { body: Uint8Array; etag: string }>();
function v2Protobuf(docs: OpenApiDocuments): { body: Uint8Array; etag: string } {
  let pb = v2ProtobufCache.get(docs);
  if (pb === undefined) {
    const body = openApiV2Protobuf(docs.v2);
    pb = { body, etag: `"${createHash('sha512').update(body).digest('hex').slice(0, 64).toUpperCase()}"` };
    v2ProtobufCache.set(docs, pb);
  }
  return pb;
}

function document(req: OpenApiRequest, body: Uint8Array, etag: string, immutable: boolean): OpenApiResponse {
  if (!acceptsJson(req.accept)) {
    return { status: 406, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: new TextEncoder().encode('only application/json is served\n') };
  }
  return withCaching(req, body, etag, immutable, 'application/json');
}

function withCaching(req: OpenApiRequest, body: Uint8Array, etag: string, immutable: boolean, contentType: string): OpenApiResponse {
  const headers: Record<string, string> = { etag, vary: 'Accept', 'content-type': contentType };
  headers['cache-control'] = immutable ? 'public, immutable' : 'no-cache, private';
  if (immutable) headers['expires'] = new Date(Date.now() + 365 * 24 * 3600 * 1000).toUTCString();
  if (req.ifNoneMatch !== undefined && req.ifNoneMatch.split(',').some((t) => t.trim() === etag || t.trim() === '*')) {
    return { status: 304, headers, body: EMPTY };
  }
  return { status: 200, headers, body };
}

function acceptsJson(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === '') return true;
  return accept.split(',').some((part) => {
    const type = part.split(';')[0]!.trim().toLowerCase();
    return type === 'application/json' || type === 'application/*' || type === '*/*';
  });
}
