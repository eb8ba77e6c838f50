/**
 * Answers GET requests for the OpenAPI documents, with the original's
 * caching rules, as a plain function so any front end can call it:
 *
 * - `/openapi/v2` and `/openapi/v3` carry an ETag and honour If-None-Match.
 * - `/openapi/v3/<gv>?hash=<h>` with the current hash is immutable for a
 *   year; with a stale hash it redirects (301) to the current URL, so a
 *   client following an old index never gets a mismatched body.
 * - Only JSON is served: a request that accepts neither JSON nor anything
 *   (kubectl asks for the protobuf form of v2 first) gets 406, which makes
 *   client-go fall back or give up cleanly instead of misparsing JSON.
 */
import type { OpenApiDocuments } from './build.ts';

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
  if (req.path === '/openapi/v2') return document(req, docs.v2, docs.etags.v2, false);
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

function document(req: OpenApiRequest, body: Uint8Array, etag: string, immutable: boolean): OpenApiResponse {
  if (!acceptsJson(req.accept)) {
    return { status: 406, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: new TextEncoder().encode('only application/json is served\n') };
  }
  const headers: Record<string, string> = { etag, vary: 'Accept', 'content-type': 'application/json' };
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
