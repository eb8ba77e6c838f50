/**
 * The request pipeline of one serving thread, built from the server's
 * options: registry, generic store with admission and write hooks,
 * endpoints, health checks, metrics, authentication, authorization and the
 * filter chain. The main thread and every front-end worker thread call
 * buildPipeline with the same inputs, so what lands here (authentication,
 * authorization, admission) runs in every thread that serves requests, and
 * discovery, OpenAPI and continue tokens are the same bytes in all of them.
 *
 * What exists once per process (data dir, shard threads, controllers) is
 * not here: see server.ts.
 */
import type { ServerOptions } from './options.ts';
import { RuntimeConfig } from '../versions/runtime-config.ts';
import { FeatureGates } from '../versions/feature-gates.ts';
import { recordDeprecatedRequest } from './deprecated-requests.ts';
import { knownResources } from '../registry/catalog/served.ts';
import { buildHandlerChain } from './chain.ts';
import { HealthChecks, healthHandler, isHealthPath } from './health/index.ts';
import { createMetrics, CURRENT_RELEASE, type ApiserverMetrics } from './metrics.ts';
import type { Logger } from './logging.ts';
import type { RequestHandler } from './http.ts';
import type { RequestContext } from './context.ts';
import { profilingHandler } from './profiling.ts';
import { createRoutes } from './routes.ts';
import { builtinResourceTypes } from '../registry/catalog/index.ts';
import { ResourceRegistry } from '../registry/registry.ts';
import { GenericStore } from '../registry/generic-store.ts';
import { buildAdmissionChain } from '../admission/plugin-table.ts';
import { WatchCacheLookup } from '../admission/lookup.ts';
import type { Authorizer } from '../authz/types.ts';
import { createResourceHandler } from '../endpoints/resource-handler.ts';
import { PatchSchemas } from '../endpoints/patch-handler.ts';
import { preloadProtobuf } from '../protobuf/index.ts';
import { FieldManager, keepTimesIfUnchanged } from '../apply/index.ts';
import { ContinueTokens } from '../endpoints/continue-token.ts';
import { buildDiscovery } from '../endpoints/discovery.ts';
import { buildOpenApi, openApiResponse } from '../openapi/index.ts';
import { installServiceAllocators, type ServiceAllocatorSet } from '../registry/service-allocation/index.ts';
import { buildAuthenticator } from '../authn/build.ts';
import { WatchCacheObjectSource, type ObjectSource } from '../authn/object-source.ts';
import { buildServerAuthorization } from '../authz/build.ts';
import { buildRbac } from '../authz/rbac/build.ts';
import { startServiceAccountTokens } from '../authn/service-account/index.ts';
import type { DataDirServiceAccountKeys } from '../authn/service-account/config.ts';
import { TokenReviewSlot, tokenReviewTypes } from '../registry/reviews/token-review.ts';
import { AccessReviewer, bindAccessReviews } from '../registry/access-reviews/index.ts';
import type { InflightCounts } from './filters/with-max-inflight.ts';
import type { ShardAccess } from '../../shards/shard-access.ts';
import { Counter } from 'prom-client';
import { auditFilters, type AuditSink } from '../audit/index.ts';
import { RequestDrain, ShutdownSignals } from './lifecycle.ts';
import { crdResourceTypes } from '../apiextensions/crd-types.ts';
import { installCustomResources } from '../apiextensions/install.ts';
import { FlowcontrolController } from '../flowcontrol/controller.ts';
import { FlowcontrolMetrics } from '../flowcontrol/metrics.ts';
import { names } from '../naming/index.ts';

/**
 * The review resources answer through this thread's authenticators and
 * authorizer, which are built after the registry (the authorizer's Node graph
 * watches through the store): slots bound once the pipeline has them.
 */
export interface ReviewSlots {
  readonly tokenReviews: TokenReviewSlot;
  readonly reviewer: AccessReviewer;
}

/** The resource types of this server, as the options enable and size them (the same in every thread). */
export function buildRegistry(opts: ServerOptions): { registry: ResourceRegistry; reviews: ReviewSlots } {
  const reviews: ReviewSlots = { tokenReviews: new TokenReviewSlot(), reviewer: new AccessReviewer() };
  const defs = [...bindAccessReviews(builtinResourceTypes, reviews.reviewer), ...tokenReviewTypes(reviews.tokenReviews), ...crdResourceTypes];
  // validateOptions has checked the flag against the same types; this throws only for callers that skipped it.
  const runtime = new RuntimeConfig(opts.runtimeConfig, knownResources(defs));
  const registry = new ResourceRegistry(defs, {
    defaultWatchCacheSize: opts.defaultWatchCacheSize,
    watchCacheSizes: opts.watchCacheSizes,
    isEnabled: (group, version, resource, defaultEnabled) => runtime.isEnabled(group, version, resource, defaultEnabled),
  });
  return { registry, reviews };
}

export interface PipelineInputs {
  readonly opts: ServerOptions;
  readonly logger: Logger;
  readonly registry: ResourceRegistry;
  /** The registry's review slots (buildRegistry), bound here to this thread's authenticators and authorizer. */
  readonly reviews: ReviewSlots;
  readonly router: ShardAccess;
  /** PEM of the CA that signs client certificates. */
  readonly clientCa: string;
  readonly tokenFilePath: string;
  /** The data dir's service-account key pair (KeyObjects cross threads by structured clone). */
  readonly serviceAccountKeys: DataDirServiceAccountKeys;
  /** HMAC key of continue tokens: derived once in the main thread, shared so any thread accepts any token. */
  readonly continueKey: Uint8Array;
  /** Which serving thread this is: 0 the main thread, 1.. the front-end workers (a metric label). */
  readonly thread: number;
  /** In-flight counts shared by every serving thread (a SharedArrayBuffer); this thread's own when absent. */
  readonly inflight?: InflightCounts | undefined;
  /** Whether this thread reports the process's in-flight gauge (one thread does, as the counts are shared). */
  readonly reportsInflight?: boolean | undefined;
  /** Process metrics (CPU, memory) are the process's: collected in one thread only. */
  readonly defaultMetrics?: boolean | undefined;
  /**
   * The text of GET /metrics for the whole process (every thread's metrics
   * aggregated); this thread's own registry when absent.
   */
  readonly processMetrics?: (() => Promise<string>) | undefined;
  /** Where this thread's audit events go (the main thread's backends, or a channel to them); none: no audit. */
  readonly auditSink?: AuditSink | undefined;
  /** The shutdown phase shared by every serving thread (lifecycle.ts); this thread's own when absent. */
  readonly shutdown?: ShutdownSignals | undefined;
}

export interface Pipeline {
  /** Filters, routing and endpoints: what the front ends call. */
  readonly handler: RequestHandler;
  readonly store: GenericStore;
  readonly metrics: ApiserverMetrics;
  readonly health: HealthChecks;
  /** Service accounts, secrets and pods for authentication, fed by watches (object-source.ts). */
  readonly objects: ObjectSource;
  /** The Services' allocators (the main thread repairs with them), or null when Services are off. */
  readonly serviceAllocators: ServiceAllocatorSet | null;
  /** This thread's authorizer (the CSR approver's access checks). */
  readonly authorizer: Authorizer;
  /** This thread's shutdown phase (shared) and its requests to drain on shutdown. */
  readonly shutdown: ShutdownSignals;
  readonly drain: RequestDrain;
  /** This thread's priority-and-fairness configuration (undefined with --enable-priority-and-fairness=false). */
  readonly flowcontrol: FlowcontrolController | undefined;
  close(): Promise<void>;
}

export async function buildPipeline(inp: PipelineInputs): Promise<Pipeline> {
  const { opts, logger, registry, router } = inp;
  const cleanups: Array<() => Promise<void> | void> = [];
  const close = async (): Promise<void> => {
    for (const c of cleanups.splice(0).reverse()) {
      try {
        await c();
      } catch (err) {
        logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'error while stopping');
      }
    }
  };
  try {
    // Validated with the flag; the gates this thread's behaviour follows.
    const gates = new FeatureGates(opts.featureGates);
    // Admission and the generic store.
    const generic: { store?: GenericStore; authorizer?: Authorizer; metrics?: ApiserverMetrics } = {};
    const lookup = new WatchCacheLookup(registry, () => generic.store!);
    cleanups.push(() => lookup.close());
    const admission = await buildAdmissionChain({
      opts,
      logger,
      registry,
      lookup,
      store: () => generic.store!,
      authorizer: () => generic.authorizer!,
      metrics: () => generic.metrics,
      onClose: (c) => cleanups.push(c),
    });
    let openapi = buildOpenApi(registry);
    let staleOpenApi: (() => typeof openapi) | undefined;
    const fieldManager = new FieldManager(openapi.schemas);
    const store = new GenericStore(router, admission, undefined, {
      update: (req) => fieldManager.update(req),
      keepTimesIfUnchanged: (next, old) => keepTimesIfUnchanged(next, old),
    });
    generic.store = store;
    const services = registry.lookup('', 'v1', 'services');
    const serviceAllocators =
      services === undefined
        ? null
        : installServiceAllocators({
            router,
            store,
            services,
            clusterIPRange: opts.serviceClusterIPRange,
            nodePortRange: opts.serviceNodePortRange,
            log: logger,
          });

    // Documents and codecs built once per thread, from the same inputs in every thread.
    preloadProtobuf();
    const externalAddress = `${opts.bindAddress === '0.0.0.0' ? '127.0.0.1' : opts.bindAddress}:${opts.securePort}`;
    let discovery = buildDiscovery(registry, externalAddress);
    // Service-account tokens: keys, issuers, TokenRequest and issuer discovery (authn/service-account).
    const serviceAccounts = await startServiceAccountTokens(opts, inp.serviceAccountKeys, externalAddress, logger);

    // Health and metrics.
    const shutdown = inp.shutdown ?? new ShutdownSignals();
    const drain = new RequestDrain();
    const health = new HealthChecks({ shuttingDown: () => shutdown.shutdownInitiated, livezGracePeriodMs: opts.livezGracePeriodMs });
    health.add('readyz', 'shards', async () => {
      const stats = await router.stats();
      const notReady = stats.flatMap((s) => s.resources.filter((r) => !r.ready).map((r) => r.groupResource));
      if (notReady.length > 0) throw new Error(`caches not ready: ${notReady.join(', ')}`);
    });
    health.add('healthz', opts.storageBackend === 'etcd3' ? 'etcd' : 'storage', async () => {
      const namespaces = registry.lookup('', 'v1', 'namespaces')!;
      await router.get(namespaces.storageResource, `${namespaces.keyPrefix}default`, { kind: 'latest' });
    });
    const metrics = createMetrics({
      defaultMetrics: inp.defaultMetrics ?? true,
      policy: { disabled: new Set(opts.disabledMetrics), showHidden: opts.showHiddenMetricsForVersion !== '', current: CURRENT_RELEASE },
    });
    generic.metrics = metrics;
    router.observe = (op, resource, seconds) => metrics.observeStorageRequest(op, resource, seconds);
    // Counted in a plain number and handed to prom-client when scraped: its inc hashes the labels on every call.
    let threadRequests = 0;
    let threadRequestsReported = 0;
    const threadLabels = { thread: String(inp.thread) };
    new Counter({
      name: 'apiserver_frontend_thread_requests_total',
      help: 'Requests received by each serving thread of this process (0: the main thread, 1..: front-end worker threads).',
      labelNames: ['thread'],
      registers: [metrics.registry],
      collect(this: Counter<'thread'>) {
        this.inc(threadLabels, threadRequests - threadRequestsReported);
        threadRequestsReported = threadRequests;
      },
    });
    const healthHandle = healthHandler(health, logger);

    // Authentication and authorization.
    const objects = new WatchCacheObjectSource(store, registry);
    cleanups.push(() => objects.close());
    const authn = await buildAuthenticator(opts, {
      logger,
      clientCaPem: inp.clientCa,
      tokenFilePath: inp.tokenFilePath,
      objects,
      serviceAccounts: serviceAccounts.config,
    });
    cleanups.push(() => authn.close());
    inp.reviews.tokenReviews.bind(authn.tokenReviewer);
    // RBAC from watches of this thread's shards; role and binding writes on its store check escalation against the chain.
    const rbac = await buildRbac(store, registry);
    cleanups.push(() => rbac.close());
    const authz = await buildServerAuthorization(opts, { store, registry, logger, extraFactories: { RBAC: rbac.factory } });
    cleanups.push(() => authz.close());
    const authorizer = authz.authorizer;
    generic.authorizer = authorizer;
    rbac.installEscalationChecks(authorizer);
    inp.reviews.reviewer.bind(authz.authorizer, authz.rules);

    // Endpoints and the chain.
    const patchSchemas = new PatchSchemas(openapi.schemas);
    // Custom resources (src/apiextensions): this thread serves every established definition; discovery and OpenAPI follow.
    const customResources = await installCustomResources({
      registry,
      router,
      patchSchemas,
      fieldManager,
      rebuild: (buildOpenApiDocs) => {
        discovery = buildDiscovery(registry, externalAddress);
        // Rendered on the next OpenAPI request, not now: a burst of definitions must not stall the thread each time.
        staleOpenApi = buildOpenApiDocs;
      },
      onError: (err, what) => logger.warn({ err: err instanceof Error ? err.message : String(err) }, what),
    });
    cleanups.push(() => customResources.close());
    const resources = createResourceHandler({
      registry,
      store,
      patchSchemas,
      fieldManager,
      continueTokens: new ContinueTokens(Buffer.from(inp.continueKey), opts.continueTokenLifetimeMs),
      watch: { minRequestTimeoutSeconds: opts.minRequestTimeoutSeconds, maxBufferedBytes: opts.watchMaxBufferedBytes, drain, maxBytesPerSec: opts.maxConnectionBytesPerSec },
      tokenRequest: serviceAccounts.tokenRequest,
      onDeprecatedRequest: (ctx, rt, info) => recordDeprecatedRequest(metrics, ctx, rt, info),
      features: { listChunking: gates.enabled('APIListChunking'), remainingItemCount: gates.enabled('RemainingItemCount') },
    });
    const processMetrics = inp.processMetrics;
    const openApiV3 = gates.enabled('OpenAPIV3');
    const routes = createRoutes({
      resources,
      // Read per request: custom resource definitions replace the documents.
      discovery: {
        get byPath() {
          return discovery.byPath;
        },
      },
      health: { isHealthPath, handle: healthHandle },
      metrics: async (ctx: RequestContext) => {
        // Gauges read at scrape time: shard queues and watch counts live in the router.
        for (let i = 0; i < router.shardCount; i++) metrics.setShardQueueDepth(i, router.pendingCount(i));
        for (const rt of registry.storedTypes()) metrics.setRegisteredWatchers(rt.group, rt.kind, router.watcherCount(rt.storageResource));
        if (processMetrics === undefined) return metrics.metricsHandler(ctx);
        const text = await processMetrics();
        if (ctx.res.closed) return;
        ctx.res.writeHead(200, { 'content-type': metrics.registry.contentType });
        ctx.res.end(text);
      },
      openapi: (req) => {
        // OpenAPIV3 off: the v3 documents are not served (undefined: the router's 404).
        if (!openApiV3 && (req.path === '/openapi/v3' || req.path.startsWith('/openapi/v3/'))) return undefined;
        if (staleOpenApi !== undefined) {
          openapi = staleOpenApi();
          staleOpenApi = undefined;
        }
        return openApiResponse(openapi, req);
      },
      documents: serviceAccounts.documents,
      profiling: opts.profiling ? profilingHandler({ shardCount: router.shardCount, profileShard: (i, spec) => router.profile(i, spec) }) : undefined,
    });
    const audit = await auditFilters(opts.audit, inp.auditSink, logger, metrics.audit);
    // First on close: the events of the last requests go to the sink before it is closed.
    if (audit !== undefined) cleanups.push(() => audit.flush());
    // Priority and fairness: each serving thread has its share of the seats (docs/architecture.md, "Priority and fairness").
    let flowcontrol: FlowcontrolController | undefined;
    if (opts.enablePriorityAndFairness) {
      const total = opts.maxRequestsInflight + opts.maxMutatingRequestsInflight;
      const controller = new FlowcontrolController(router, registry, {
        // The main thread learns later if it serves alone after all (server.ts gives it every seat then).
        serverConcurrencyLimit: Math.max(1, Math.ceil(total / Math.max(1, opts.frontendThreads))),
        metrics: new FlowcontrolMetrics(metrics.registry),
        headerNames: names.apfHeaders,
      });
      cleanups.push(() => controller.close());
      flowcontrol = controller;
    }
    const chain = buildHandlerChain({
      audit: audit?.audit,
      auditFailedAuthentication: audit?.failedAuthentication,
      authenticator: authn.authenticator,
      stripHeaders: authn.stripHeaders,
      authorizer,
      handler: routes,
      logger,
      metrics,
      options: {
        requestTimeoutMs: opts.requestTimeoutMs,
        maxRequestsInflight: opts.maxRequestsInflight,
        maxMutatingRequestsInflight: opts.maxMutatingRequestsInflight,
        minRequestTimeoutSeconds: opts.minRequestTimeoutSeconds,
      },
      inflight: inp.inflight,
      reportsInflight: inp.reportsInflight,
      shutdown: { signals: shutdown, drain, sendRetryAfter: opts.shutdownSendRetryAfter },
      goawayChance: opts.goawayChance,
      flowcontrol,
    });
    const handler: RequestHandler = (req, res) => {
      threadRequests++;
      return chain(req, res);
    };
    return { handler, store, metrics, health, objects, serviceAllocators, authorizer, shutdown, drain, flowcontrol, close };
  } catch (err) {
    await close();
    throw err;
  }
}
