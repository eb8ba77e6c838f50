/**
 * The innermost handler of the chain: resource requests go to the resource
 * handler; everything else (discovery, /version, health, /metrics, OpenAPI)
 * is answered from documents built at start.
 */
import type { RequestContext } from './context.ts';
import { errors } from '../api/status.ts';
import { writeBytes, writeJson } from '../endpoints/respond.ts';
import { VERSION_INFO, type DiscoveryDocuments } from '../endpoints/discovery.ts';

export interface RouteDeps {
  resources: (ctx: RequestContext) => Promise<void>;
  discovery: DiscoveryDocuments;
  health: { isHealthPath(path: string): boolean; handle: (ctx: RequestContext) => Promise<void> };
  metrics: (ctx: RequestContext) => Promise<void>;
  /** OpenAPI answers (`/openapi/v2`, `/openapi/v3`, `/openapi/v3/api/v1`, ...); undefined when not a document. */
  openapi: (req: { path: string; query: URLSearchParams; accept?: string | undefined; ifNoneMatch?: string | undefined }) =>
    | { status: number; headers: Readonly<Record<string, string>>; body: Uint8Array }
    | undefined;
  /** Fixed documents by path (service-account issuer discovery), with their media type and caching. */
  documents?: ReadonlyMap<string, { contentType: string; cacheControl: string; body: Uint8Array }> | undefined;
  /** `/debug/pprof/...` when `--profiling` (profiling.ts); absent: 404. */
  profiling?: ((ctx: RequestContext, path: string) => Promise<void>) | undefined;
}

export function createRoutes(deps: RouteDeps): (ctx: RequestContext) => Promise<void> {
  // A resource request goes straight on: no frame of this function's own around the resource handler's.
  return (ctx) => (ctx.info!.isResourceRequest ? deps.resources(ctx) : serveNonResource(deps, ctx));
}

async function serveNonResource(deps: RouteDeps, ctx: RequestContext): Promise<void> {
  const path = trimSlash(ctx.req.path);
  const method = ctx.req.method;
  if (deps.health.isHealthPath(path)) return deps.health.handle(ctx);
  if (method !== 'GET' && method !== 'HEAD') throw errors.methodNotAllowed(method.toLowerCase());
  if (path === '/version') return writeJson(ctx, 200, VERSION_INFO);
  if (path === '/metrics') return deps.metrics(ctx);
  if (deps.profiling !== undefined && (path === '/debug/pprof' || path.startsWith('/debug/pprof/'))) return deps.profiling(ctx, path);
  const disco = deps.discovery.byPath.get(path);
  if (disco !== undefined) return writeBytes(ctx, 200, disco);
  const doc = deps.documents?.get(path);
  if (doc !== undefined) {
    ctx.status = 200;
    ctx.res.writeHead(200, { 'content-type': doc.contentType, 'cache-control': doc.cacheControl, 'content-length': String(doc.body.byteLength) });
    ctx.res.end(doc.body);
    return;
  }
  if (path.startsWith('/openapi/')) {
    const answer = deps.openapi({ path, query: ctx.req.query, accept: ctx.req.header('accept'), ifNoneMatch: ctx.req.header('if-none-match') });
    if (answer === undefined) throw errors.notFoundMessage();
    ctx.status = answer.status;
    ctx.res.writeHead(answer.status, { ...answer.headers, 'content-length': String(answer.body.byteLength) });
    ctx.res.end(answer.body);
    return;
  }
  throw errors.notFoundMessage();
}

function trimSlash(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}
