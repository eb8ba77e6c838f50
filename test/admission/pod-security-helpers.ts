/**
 * Shared by the PodSecurity unit tests: served types, an in-memory cluster
 * (namespaces and pods) behind the plugin's sources, and admission
 * attributes that record warnings and audit annotations.
 */
import type { AdmissionAttributes, Operation } from '../../src/admission/types.ts';
import type { UserInfo } from '../../src/server/context.ts';
import type { KObject } from '../../src/registry/object.ts';
import type { ResourceType } from '../../src/registry/resource-type.ts';
import { builtinResourceTypes } from '../../src/registry/catalog/index.ts';
import { ResourceRegistry } from '../../src/registry/registry.ts';
import type { PodSecuritySources } from '../../src/admission/plugins/pod-security/admission.ts';

export const registry = new ResourceRegistry(builtinResourceTypes, { defaultWatchCacheSize: 100, watchCacheSizes: new Map(), isEnabled: () => true });

export function served(group: string, version: string, resource: string): ResourceType {
  const rt = registry.lookup(group, version, resource);
  if (rt === undefined) throw new Error(`not served: ${group}/${version}/${resource}`);
  return rt;
}

export const POD = served('', 'v1', 'pods');
export const NAMESPACE = served('', 'v1', 'namespaces');

/** Namespaces (name → labels) and pods of a pretend cluster. */
export class FakeCluster implements PodSecuritySources {
  readonly namespaces = new Map<string, Record<string, string>>();
  readonly pods: KObject[] = [];
  podLists = 0;

  async namespaceLabels(name: string): Promise<Record<string, string> | null> {
    return this.namespaces.get(name) ?? null;
  }

  async listPods(namespace: string): Promise<KObject[]> {
    this.podLists++;
    return this.pods.filter((p) => p.metadata.namespace === namespace);
  }
}

export interface Recorded extends AdmissionAttributes {
  readonly warnings: string[];
  readonly annotations: Record<string, string>;
}

export function attrs(opts: {
  rt: ResourceType;
  operation: Operation;
  object: KObject | null;
  oldObject?: KObject | null;
  namespace?: string;
  name?: string;
  subresource?: string;
  user?: UserInfo;
}): Recorded {
  const warnings: string[] = [];
  const annotations: Record<string, string> = {};
  return {
    operation: opts.operation,
    resourceType: opts.rt,
    subresource: opts.subresource ?? '',
    namespace: opts.namespace ?? opts.object?.metadata.namespace ?? '',
    name: opts.name ?? opts.object?.metadata.name ?? '',
    object: opts.object,
    oldObject: opts.oldObject ?? null,
    user: opts.user ?? { name: 'alice', groups: ['system:authenticated'] },
    dryRun: false,
    options: undefined,
    warnings,
    annotations,
    warn: (m) => void warnings.push(m),
    annotate: (k, v) => void (annotations[k] = v),
  };
}

export function pod(name: string, namespace: string, spec: Record<string, unknown>, metadata: Record<string, unknown> = {}): KObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace, ...metadata }, spec } as KObject;
}
