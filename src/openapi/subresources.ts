/**
 * Facts about subresources that the documents need beyond the registry's
 * description: which group/version/kind a subresource speaks, and which ones
 * stream bytes (logs, exec, attach, port forwarding, proxy) rather than
 * exchange objects.
 */
import type { ResourceType, SubresourceType } from '../registry/resource-type.ts';
import type { GroupVersionKind } from './schema-dsl.ts';

/** The kind of a subresource, which may live in another group/version (Scale is autoscaling/v1). */
export function subresourceGvk(rt: ResourceType, sub: SubresourceType): GroupVersionKind {
  return { group: sub.group ?? rt.group, version: sub.version ?? rt.version, kind: sub.kind };
}

const STREAMING = new Set(['log', 'exec', 'attach', 'portforward', 'proxy']);

/** Subresources whose responses are byte streams; `log` is a plain read, the rest are connections. */
export function streamingKind(sub: SubresourceType): 'read' | 'connect' | undefined {
  if (!STREAMING.has(sub.name)) return undefined;
  return sub.name === 'log' ? 'read' : 'connect';
}
