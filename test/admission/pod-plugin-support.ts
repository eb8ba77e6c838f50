/**
 * Attributes for the pod admission plugin tests: a real registry's resource
 * types, warnings and annotations collected, the original's test shapes
 * (pod in namespace `myns`, name `mypod`) by default.
 */
import { builtinResourceTypes } from '../../src/registry/catalog/index.ts';
import { ResourceRegistry } from '../../src/registry/registry.ts';
import type { ResourceType } from '../../src/registry/resource-type.ts';
import type { KObject } from '../../src/registry/object.ts';
import type { AdmissionAttributes, AdmissionPlugin, Operation } from '../../src/admission/types.ts';
import { StatusError } from '../../src/api/status.ts';
import { apiGroup } from '../../src/naming/index.ts';

export const registry = new ResourceRegistry(builtinResourceTypes, { defaultWatchCacheSize: 100, watchCacheSizes: new Map(), isEnabled: () => true });
export const rt = {
  pods: registry.lookup('', 'v1', 'pods')!,
  nodes: registry.lookup('', 'v1', 'nodes')!,
  namespaces: registry.lookup('', 'v1', 'namespaces')!,
  configmaps: registry.lookup('', 'v1', 'configmaps')!,
  serviceaccounts: registry.lookup('', 'v1', 'serviceaccounts')!,
  priorityclasses: registry.lookup(apiGroup('scheduling'), 'v1', 'priorityclasses')!,
};

export interface Attrs extends AdmissionAttributes {
  warnings: string[];
}

export function attrs(init: {
  rt?: ResourceType;
  operation?: Operation;
  subresource?: string;
  namespace?: string;
  name?: string;
  object?: KObject | null;
  oldObject?: KObject | null;
  dryRun?: boolean;
}): Attrs {
  const warnings: string[] = [];
  const object = init.object === undefined ? null : init.object;
  return {
    operation: init.operation ?? 'CREATE',
    resourceType: init.rt ?? rt.pods,
    subresource: init.subresource ?? '',
    namespace: init.namespace ?? 'myns',
    name: init.name ?? object?.metadata.name ?? '',
    object,
    oldObject: init.oldObject ?? null,
    user: undefined,
    dryRun: init.dryRun ?? false,
    options: undefined,
    warnings,
    warn: (m) => void warnings.push(m),
    annotate: () => undefined,
  };
}

export function pod(spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): KObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'mypod', namespace: 'myns', ...meta }, spec };
}

/** Runs the plugin's mutating then validating phase, as the chain would for the handled combination. */
export async function admitAndValidate(plugin: AdmissionPlugin, a: AdmissionAttributes): Promise<void> {
  if (plugin.handles !== undefined && !plugin.handles(a.resourceType, a.subresource, a.operation)) return;
  await plugin.admit?.(a);
  await plugin.validate?.(a);
}

/** The StatusError a promise (or a function, sync or async) rejects with; fails when it resolves or rejects otherwise. */
export async function rejection(p: Promise<unknown> | (() => unknown)): Promise<StatusError> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  throw new Error('expected a rejection');
}
