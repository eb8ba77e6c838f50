/**
 * The innermost handler of the chain: resource requests go to the resource
 * handler; everything else (discovery, /version, health, /metrics, OpenAPI)
 * is answered from documents built at start.
 */
import type { RequestContext } from './context.ts';
import { errors } from '../endpoints/status.ts';
import { writeBytes, writeJson } from '../endpoints/respond.ts';
import { VERSION_INFO, type DiscoveryDocuments } from '../endpoints/discovery.ts';

export interface StaticDocument {
  body: Uint8Array;
  contentType: string;
  etag?: string | undefined;
}

export interface RouteDeps {
  resources: (ctx: RequestContext) => Promise<void>;
  discovery: DiscoveryDocuments;
  health: { isHealthPath(path: string): boolean; handle: (ctx: RequestContext) => Promise<void> };
  metrics: (ctx: RequestContext) => Promise<void>;
  /** OpenAPI documents by path (`/openapi/v2`, `/openapi/v3`, `/openapi/v3/api/v1`, ...). */
  openapi: (path: string) => StaticDocument | undefined;
}

export function createRoutes(deps: RouteDeps): (ctx: RequestContext) => Promise<void> {
  return async (ctx) => {
    const info = ctx.info!;
    if (info.isResourceRequest) return deps.resources(ctx);
    const path = trimSlash(ctx.req.path);
    const method = ctx.req.method;
    if (deps.health.isHealthPath(path)) return deps.health.handle(ctx);
    if (method !== 'GET' && method !== 'HEAD') throw errors.methodNotAllowed(method.toLowerCase());
    if (path === '/version') return writeJson(ctx, 200, VERSION_INFO);
    if (path === '/metrics') return deps.metrics(ctx);
    const disco = deps.discovery.byPath.get(path);
    if (disco !== undefined) return writeBytes(ctx, 200, disco);
    if (path.startsWith('/openapi/')) {
      const doc = deps.openapi(path);
      if (doc === undefined) throw errors.notFoundMessage();
      if (doc.etag !== undefined && ctx.req.header('if-none-match') === doc.etag) {
        ctx.status = 304;
        ctx.res.writeHead(304, { etag: doc.etag });
        ctx.res.end();
        return;
      }
      if (doc.etag !== undefined) ctx.warnings.length = 0;
      return writeBytes(ctx, 200, doc.body, doc.contentType);
    }
    throw errors.notFoundMessage();
  };
}

function trimSlash(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}
