/**
 * Builds the webhook plugins without a server: the real registry, a
 * configuration index filled by hand, a lookup over fixed objects, real
 * HTTPS clients, and the request's recorder kept for assertions.
 */
import { builtinResourceTypes } from '../../../src/registry/catalog/index.ts';
import { ResourceRegistry } from '../../../src/registry/registry.ts';
import type { ResourceType } from '../../../src/registry/resource-type.ts';
import type { KObject } from '../../../src/registry/object.ts';
import type { AdmissionAttributes, AdmissionPlugin, Operation } from '../../../src/admission/types.ts';
import type { AdmissionLookup } from '../../../src/admission/lookup.ts';
import { WebhookConfigIndex } from '../../../src/admission/webhook/config-index.ts';
import { Equivalents } from '../../../src/admission/webhook/matcher.ts';
import { WebhookClients } from '../../../src/admission/webhook/client.ts';
import { EndpointServiceResolver } from '../../../src/admission/webhook/resolver.ts';
import { CredentialResolver } from '../../../src/admission/webhook/admission-config.ts';
import { webhookMetrics } from '../../../src/admission/webhook/metrics.ts';
import { webhookPlugin } from '../../../src/admission/webhook/plugin.ts';
import { servedSchemas } from '../../../src/openapi/served-schemas.ts';
import { TypedDecoders } from '../../../src/typed/index.ts';
import { createMetrics, type ApiserverMetrics } from '../../../src/server/metrics.ts';
import { createLogger } from '../../../src/server/logging.ts';
import { apiGroup } from '../../../src/naming/index.ts';
import type { UserInfo } from '../../../src/server/context.ts';

export const registry = new ResourceRegistry(builtinResourceTypes, { defaultWatchCacheSize: 100, watchCacheSizes: new Map(), isEnabled: () => true });
const schemas = servedSchemas(registry.types);
const decoders = new TypedDecoders(schemas.set);

export function rt(group: string, version: string, resource: string): ResourceType {
  const t = registry.lookup(group, version, resource);
  if (t === undefined) throw new Error(`no type ${group}/${version}/${resource}`);
  return t;
}

export const ADMISSIONREGISTRATION = apiGroup('admissionregistration');

/** Objects the lookup answers with (namespaces, services, endpoints, slices), by `<resource>/<ns>/<name>`. */
export class FixedLookup implements AdmissionLookup {
  readonly objects = new Map<string, KObject>();
  put(rt: ResourceType, obj: KObject): void {
    this.objects.set(`${rt.resource}/${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`, obj);
  }
  type(group: string, version: string, resource: string): ResourceType | undefined {
    return registry.lookup(group, version, resource);
  }
  async get(t: ResourceType, namespace: string, name: string): Promise<KObject | null> {
    return this.objects.get(`${t.resource}/${namespace}/${name}`) ?? null;
  }
  async list(t: ResourceType, namespace?: string): Promise<KObject[]> {
    return [...this.objects.entries()].filter(([k]) => k.startsWith(`${t.resource}/${namespace ?? ''}/`)).map(([, v]) => v);
  }
}

export interface Harness {
  readonly index: WebhookConfigIndex;
  readonly lookup: FixedLookup;
  readonly mutating: AdmissionPlugin;
  readonly validating: AdmissionPlugin;
  readonly metrics: ApiserverMetrics;
  close(): void;
}

export function harness(credentials = new CredentialResolver()): Harness {
  const index = new WebhookConfigIndex(() => undefined);
  const lookup = new FixedLookup();
  const equivalents = new Equivalents(registry);
  const clients = new WebhookClients(new EndpointServiceResolver(lookup), credentials);
  const metrics = createMetrics({ defaultMetrics: false });
  const logger = createLogger({ level: 'silent' });
  const namespaces = {
    labels: async (name: string) => (await lookup.get(rt('', 'v1', 'namespaces'), '', name))?.metadata.labels ?? ((await lookup.get(rt('', 'v1', 'namespaces'), '', name)) === null ? undefined : {}),
  };
  const parts = {
    source: index,
    namespaces,
    equivalents,
    clients,
    metrics: webhookMetrics(() => metrics),
    decoder: (g: { group: string; version: string; kind: string }) => {
      try {
        return decoders.forSchema(schemas.kindSchema(g));
      } catch {
        return undefined;
      }
    },
    logger,
  };
  return {
    index,
    lookup,
    mutating: webhookPlugin('mutating', parts),
    validating: webhookPlugin('validating', parts),
    metrics,
    close: () => clients.close(),
  };
}

export interface RecordedAttributes extends AdmissionAttributes {
  readonly warnings: string[];
  readonly annotations: Map<string, string>;
}

export function attributes(
  t: ResourceType,
  operation: Operation,
  object: KObject | null,
  extra: { oldObject?: KObject | null; subresource?: string; dryRun?: boolean; user?: UserInfo; options?: Record<string, unknown>; name?: string; namespace?: string } = {},
): RecordedAttributes {
  const warnings: string[] = [];
  const annotations = new Map<string, string>();
  const o = object ?? extra.oldObject ?? null;
  return {
    operation,
    resourceType: t,
    subresource: extra.subresource ?? '',
    namespace: extra.namespace ?? o?.metadata.namespace ?? '',
    name: extra.name ?? o?.metadata.name ?? '',
    object,
    oldObject: extra.oldObject ?? null,
    user: extra.user ?? { name: 'alice', uid: 'u-1', groups: ['dev', 'system:authenticated'], extra: { scopes: ['a'] } },
    dryRun: extra.dryRun ?? false,
    options: extra.options ?? { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' },
    warnings,
    annotations,
    warn: (m) => void warnings.push(m),
    annotate: (k, v) => void (annotations.has(k) ? undefined : annotations.set(k, v)),
  };
}

/** A webhook entry with v1's defaults spelled out, pointed at `url`. */
export function hook(name: string, url: string, caBundle: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    clientConfig: { url, caBundle },
    rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods', 'configmaps'], scope: '*' }],
    failurePolicy: 'Fail',
    matchPolicy: 'Equivalent',
    sideEffects: 'None',
    timeoutSeconds: 10,
    admissionReviewVersions: ['v1'],
    namespaceSelector: {},
    objectSelector: {},
    ...over,
  };
}

export function configuration(name: string, webhooks: Array<Record<string, unknown>>): KObject {
  return { apiVersion: `${ADMISSIONREGISTRATION}/v1`, kind: 'X', metadata: { name }, webhooks } as KObject;
}

export function pod(name: string, labels: Record<string, string> = {}, ns = 'default'): KObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns, labels }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } as KObject;
}
