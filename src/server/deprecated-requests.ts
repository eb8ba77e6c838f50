/**
 * What a request to a deprecated API version records besides its Warning
 * header (spec 6.2, 6.4, 9.2 rule 9), as the original's MonitorRequest does:
 * the audit annotations `<domain>/deprecated: "true"` and, when a removal
 * release is known, `<domain>/removed-release: "<major>.<minor>"`, and the
 * `apiserver_requested_deprecated_apis` gauge set to 1 for the
 * group/version/resource/subresource/removed_release.
 */
import type { RequestContext, RequestInfo } from './context.ts';
import type { ResourceType } from '../registry/resource-type.ts';
import type { ApiserverMetrics } from './metrics.ts';
import { names } from '../naming/index.ts';

export function recordDeprecatedRequest(metrics: ApiserverMetrics, ctx: RequestContext, rt: ResourceType, info: RequestInfo): void {
  const removed = rt.deprecated?.removed ?? '';
  ctx.annotate(names.annotations.deprecatedApi, 'true');
  if (removed !== '') ctx.annotate(names.annotations.removedRelease, removed);
  metrics.markDeprecatedApiRequested({ group: rt.group, version: rt.version, resource: rt.resource, subresource: info.subresource, removedRelease: removed });
}
