/**
 * Metric labels for a request, computed the way the original's
 * MonitorRequest does (CleanScope, CanonicalVerb, CleanVerb):
 *
 * - verb is upper case and HTTP-flavoured: GET on one object, LIST on a
 *   collection, WATCH for watches (path or ?watch=), POST, PUT, PATCH,
 *   DELETE, APPLY for apply patches, CONNECT for exec/attach/log/... ;
 *   anything else is "other";
 * - scope is resource (a name, or create), namespace, cluster, or "" for
 *   non-resource requests.
 *
 * Cardinality guard: the original only instruments installed routes, while
 * this filter sees every request. So unauthenticated requests and unknown
 * non-resource paths get empty group/version/resource/subresource labels;
 * otherwise anyone could mint label values with made-up URLs.
 */
import type { RequestContext, RequestInfo } from '../context.ts';
import type { RequestLabels } from '../metrics.ts';

export const COMPONENT = 'apiserver';

const VALID_VERBS = new Set([
  'APPLY',
  'CONNECT',
  'CREATE',
  'DELETE',
  'DELETECOLLECTION',
  'GET',
  'LIST',
  'PATCH',
  'POST',
  'PROXY',
  'PUT',
  'UPDATE',
  'WATCH',
  'WATCHLIST',
]);
const CONNECT_SUBRESOURCES = new Set(['log', 'exec', 'portforward', 'attach', 'proxy']);
const APPLY_PATCH = 'application/apply-patch+yaml';
/** Non-resource paths reported by name (the original reports health checks with subresource = path). */
const KNOWN_NON_RESOURCE = new Set(['/healthz', '/livez', '/readyz', '/metrics', '/version', '/api', '/apis', '/openapi', '/.well-known']);

export function cleanScope(info: RequestInfo): string {
  if (info.name !== '' || info.verb === 'create') return 'resource';
  if (info.namespace !== '') return 'namespace';
  if (info.isResourceRequest) return 'cluster';
  return '';
}

function reportedVerb(ctx: RequestContext, info: RequestInfo, scope: string): string {
  const method = ctx.req.method.toUpperCase();
  let verb = method === 'GET' || method === 'HEAD' ? (scope !== 'resource' && scope !== '' ? 'LIST' : 'GET') : method;
  if (info.verb === 'watch') verb = 'WATCH';
  if (verb === 'PATCH' && ctx.req.header('content-type')?.split(';')[0]?.trim() === APPLY_PATCH) verb = 'APPLY';
  if (info.isResourceRequest && CONNECT_SUBRESOURCES.has(info.subresource)) verb = 'CONNECT';
  return VALID_VERBS.has(verb) ? verb : 'other';
}

function nonResourceLabel(path: string): string {
  const first = '/' + (path.split('/')[1] ?? '');
  return KNOWN_NON_RESOURCE.has(first) ? first : '';
}

export function requestLabels(ctx: RequestContext): RequestLabels {
  const info: RequestInfo = ctx.info ?? {
    isResourceRequest: false,
    path: ctx.req.path,
    verb: ctx.req.method.toLowerCase(),
    apiPrefix: '',
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    parts: [],
  };
  const scope = cleanScope(info);
  const verb = reportedVerb(ctx, info, scope);
  const trusted = ctx.user !== undefined;
  if (!info.isResourceRequest) {
    return { verb, group: '', version: '', resource: '', subresource: nonResourceLabel(info.path), scope, component: COMPONENT };
  }
  return {
    verb,
    group: trusted ? info.apiGroup : '',
    version: trusted ? info.apiVersion : '',
    resource: trusted ? info.resource : '',
    subresource: trusted ? info.subresource : '',
    scope,
    component: COMPONENT,
  };
}
