/**
 * MutatingAdmissionWebhook and ValidatingAdmissionWebhook. Per serving
 * thread, one watch-fed index of both configuration kinds (shared by the
 * two plugins) and one namespace-label index; per plugin, its HTTPS clients
 * with the credentials of the admission configuration file. `handles`
 * answers from the index, and the chain is recompiled whenever a
 * configuration changes: with no configuration, no write enters the
 * plugins.
 */
import type { AdmissionPlugin } from '../types.ts';
import type { AdmissionDeps, AdmissionPluginFactory } from '../plugin-table.ts';
import type { ResourceRegistry } from '../../registry/registry.ts';
import { servedSchemas } from '../../openapi/served-schemas.ts';
import { TypedDecoders, type KindDecoder } from '../../typed/index.ts';
import { apiGroup } from '../../naming/index.ts';
import { WebhookConfigIndex, type WebhookSource } from './config-index.ts';
import { NamespaceLabelIndex } from './namespaces.ts';
import { couldMatch, Equivalents, type NamespaceLabels } from './matcher.ts';
import { WebhookClients } from './client.ts';
import { EndpointServiceResolver, type ServiceResolver } from './resolver.ts';
import { webhookCredentials, CredentialResolver } from './admission-config.ts';
import { webhookMetrics, type WebhookMetrics } from './metrics.ts';
import { dispatchMutating, dispatchValidating, type DispatchDeps } from './dispatch.ts';
import type { WebhookKind } from './hook.ts';
import type { GVK } from './review.ts';

export const MUTATING_WEBHOOK = 'MutatingAdmissionWebhook';
export const VALIDATING_WEBHOOK = 'ValidatingAdmissionWebhook';

/** What both webhook plugins of one thread share. */
interface ThreadShared {
  readonly index: WebhookConfigIndex;
  readonly namespaces: NamespaceLabels;
  readonly equivalents: Equivalents;
  readonly decoder: (gvk: GVK) => KindDecoder | undefined;
  readonly resolver: ServiceResolver;
}

const shared = new WeakMap<AdmissionDeps, ThreadShared>();

/** Typed decoders of the served kinds, built on the first patched object (most servers never need them). */
function lazyDecoders(registry: ResourceRegistry): (gvk: GVK) => KindDecoder | undefined {
  let built: { decoders: TypedDecoders; schemas: ReturnType<typeof servedSchemas> } | undefined;
  const cache = new Map<string, KindDecoder | undefined>();
  return (gvk) => {
    const key = `${gvk.group}/${gvk.version}/${gvk.kind}`;
    if (cache.has(key)) return cache.get(key);
    if (built === undefined) {
      const schemas = servedSchemas(registry.types);
      built = { decoders: new TypedDecoders(schemas.set), schemas };
    }
    let d: KindDecoder | undefined;
    try {
      d = built.decoders.forSchema(built.schemas.kindSchema(gvk));
    } catch {
      d = undefined;
    }
    cache.set(key, d);
    return d;
  };
}

function threadShared(deps: AdmissionDeps): ThreadShared {
  let s = shared.get(deps);
  if (s !== undefined) return s;
  const namespaces = new NamespaceLabelIndex(deps.store, deps.lookup);
  const group = apiGroup('admissionregistration');
  const mutating = deps.lookup.type(group, 'v1', 'mutatingwebhookconfigurations');
  const validating = deps.lookup.type(group, 'v1', 'validatingwebhookconfigurations');
  const index = new WebhookConfigIndex(
    () => deps.recompile(),
    async (kind) => {
      const rt = kind === 'mutating' ? mutating : validating;
      return rt === undefined ? [] : deps.lookup.list(rt);
    },
  );
  // The store exists once the chain does: start the watches on the next turn.
  let timer: NodeJS.Timeout | null = null;
  let closed = false;
  const start = (): void => {
    timer = null;
    if (closed) return;
    let store;
    try {
      store = deps.store();
    } catch {
      store = undefined;
    }
    if (store === undefined) {
      timer = setTimeout(start, 10);
      timer.unref();
      return;
    }
    if (mutating !== undefined) index.watch(store, 'mutating', mutating);
    if (validating !== undefined) index.watch(store, 'validating', validating);
  };
  timer = setTimeout(start, 0);
  timer.unref();
  deps.onClose(() => {
    closed = true;
    if (timer !== null) clearTimeout(timer);
    index.close();
    namespaces.close();
  });
  s = { index, namespaces, equivalents: new Equivalents(deps.registry), decoder: lazyDecoders(deps.registry), resolver: new EndpointServiceResolver(deps.lookup) };
  shared.set(deps, s);
  return s;
}

export interface WebhookPluginParts {
  readonly source: WebhookSource;
  readonly namespaces: NamespaceLabels;
  readonly equivalents: Equivalents;
  readonly clients: WebhookClients;
  readonly metrics: WebhookMetrics;
  readonly decoder: (gvk: GVK) => KindDecoder | undefined;
  readonly logger: DispatchDeps['logger'];
}

/** The plugin over its parts (tests build it without a server). */
export function webhookPlugin(kind: WebhookKind, parts: WebhookPluginParts): AdmissionPlugin {
  const d: DispatchDeps = parts;
  const name = kind === 'mutating' ? MUTATING_WEBHOOK : VALIDATING_WEBHOOK;
  const handles: AdmissionPlugin['handles'] = (rt, sub, op) => {
    for (const h of parts.source.hooks(kind)) if (couldMatch(h, rt, sub, op, parts.equivalents)) return true;
    return false;
  };
  return kind === 'mutating'
    ? { name, handles, admit: (attrs) => dispatchMutating(d, attrs) }
    : { name, handles, validate: (attrs) => dispatchValidating(d, attrs) };
}

function factory(kind: WebhookKind): AdmissionPluginFactory {
  const name = kind === 'mutating' ? MUTATING_WEBHOOK : VALIDATING_WEBHOOK;
  return {
    name,
    async create(deps) {
      const s = threadShared(deps);
      const credentials = deps.opts.admissionControlConfigFile ? await webhookCredentials(deps.opts.admissionControlConfigFile, name) : new CredentialResolver();
      const clients = new WebhookClients(s.resolver, credentials);
      deps.onClose(() => clients.close());
      return webhookPlugin(kind, {
        source: s.index,
        namespaces: s.namespaces,
        equivalents: s.equivalents,
        clients,
        metrics: webhookMetrics(() => deps.metrics?.()),
        decoder: s.decoder,
        logger: deps.logger,
      });
    },
  };
}

export const mutatingWebhookFactory = factory('mutating');
export const validatingWebhookFactory = factory('validating');
