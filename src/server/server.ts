/**
 * startServer wires the whole server from its options: credentials in the
 * data dir, registry, shards and store, admission, the generic store and its
 * HTTP endpoints, the filter chain, the front ends, and the controllers the
 * server runs itself. close() stops it all in reverse order.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ServerOptions } from './options.ts';
import { OptionsError, runtimeEnabled, validateOptions } from './options.ts';
import { checkDataDirFlavor, checkEtcdPrefixFlavor, recordDataDirFlavor } from './data-dir-flavor.ts';
import { RequestContext } from './context.ts';
import { buildHandlerChain } from './chain.ts';
import { HealthChecks, healthHandler, isHealthPath } from './health/index.ts';
import { createMetrics } from './metrics.ts';
import type { Logger } from './logging.ts';
import type { RequestHandler } from './http.ts';
import { createRoutes } from './routes.ts';
import { ensureDataDir, type DataDirFiles } from '../pki/data-dir.ts';
import { builtinResourceTypes } from '../registry/catalog/index.ts';
import { ResourceRegistry } from '../registry/registry.ts';
import { GenericStore } from '../registry/generic-store.ts';
import { AdmissionChain, type AdmissionPlugin } from '../admission/types.ts';
import { namespaceLifecycle } from '../admission/plugins/namespace-lifecycle.ts';
import { admissionPluginEnabled, unbuiltDefaultPlugins } from '../admission/plugin-names.ts';
import { createResourceHandler } from '../endpoints/resource-handler.ts';
import { PatchSchemas } from '../endpoints/patch-handler.ts';
import { preloadProtobuf } from '../protobuf/index.ts';
import { FieldManager, keepTimesIfUnchanged } from '../apply/index.ts';
import { ContinueTokens } from '../endpoints/continue-token.ts';
import { buildDiscovery } from '../endpoints/discovery.ts';
import { buildOpenApi, openApiResponse } from '../openapi/index.ts';
import { DEFAULT_LIST_RESULT_CACHE } from '../../shards/list-result-cache.ts';
import { ShardRouter } from '../../shards/router.ts';
import type { StoreConfig } from '../storage/config.ts';
import { NamespaceController, ensureSystemNamespaces } from '../controllers/namespace-controller.ts';
import { ApiServiceController } from '../controllers/api-service-controller.ts';
import { RANGES_RESOURCE_SPEC, startServiceAllocation } from '../registry/service-allocation/index.ts';
import { buildAuthenticator } from '../authn/build.ts';
import { TokenReviewSlot, tokenReviewTypes } from '../registry/reviews/token-review.ts';
import { WatchCacheObjectSource, type ObjectSource } from '../authn/object-source.ts';
import { startServiceAccountTokens } from '../authn/service-account/index.ts';
import { buildServerAuthorization } from '../authz/build.ts';
import { AccessReviewer, bindAccessReviews } from '../registry/access-reviews/index.ts';
import { startNodeFrontend } from '../frontends/node-http2.ts';
import { startUwsFrontend } from '../frontends/uws.ts';
import { loadUws } from '../frontends/uws-loader.ts';
import type { Frontend } from '../frontends/frontend.ts';
import { WatchBudget } from '../frontends/watch-budget.ts';
import { registerWatchBudgetMetrics } from './watch-budget-metrics.ts';
import type { ApiRequest, ApiResponse } from './http.ts';
import { API_FLAVOR, API_FLAVOR_ENV, names } from '../naming/index.ts';

/** How often the API server's own Service and endpoints are checked (the original's endpoint interval). */
const API_SERVICE_RECONCILE_MS = 10_000;

export const SYSTEM_NAMESPACES = ['default', names.systemNamespace, names.publicNamespace, names.nodeLeaseNamespace] as const;

export interface RunningServer {
  readonly securePort: number;
  /** The uWS listener's port, or null when it is off or unavailable. */
  readonly uwsPort: number | null;
  readonly files: DataDirFiles;
  readonly router: ShardRouter;
  readonly registry: ResourceRegistry;
  readonly health: HealthChecks;
  /** The request pipeline both front ends call: for in-process drivers (the fuzz harness). */
  readonly handler: RequestHandler;
  /** The main thread's view of service accounts, secrets and pods for authentication (object-source.ts). */
  readonly objects: ObjectSource;
  close(): Promise<void>;
}

export async function startServer(opts: ServerOptions, logger: Logger): Promise<RunningServer> {
  // Flag problems stop the start before any side effect (data dir, ports, store).
  validateOptions(opts);
  if (opts.apiFlavor !== API_FLAVOR) {
    throw new OptionsError(
      `--api-flavor=${opts.apiFlavor} contradicts this process's naming table (${API_FLAVOR}), fixed before the server loaded; ` +
        `set ${API_FLAVOR_ENV}=${opts.apiFlavor} before loading the server (main.ts does so from the flag)`,
    );
  }
  await checkDataDirFlavor(opts.dataDir, opts.apiFlavor);
  const cleanups: Array<() => Promise<void> | void> = [];
  const closeAll = async (): Promise<void> => {
    for (const c of cleanups.reverse()) {
      try {
        await c();
      } catch (err) {
        logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'error while stopping');
      }
    }
  };
  try {
    // Credentials: generated in the data dir unless given.
    const files = await ensureDataDir({
      dir: opts.dataDir,
      hosts: opts.tlsSanHosts,
      securePort: opts.securePort,
      uwsPort: opts.uwsPort,
    });
    await recordDataDirFlavor(files.dir, opts.apiFlavor);
    const servingCertPath = opts.tlsCertFile ?? files.servingCertPath;
    const servingKeyPath = opts.tlsPrivateKeyFile ?? files.servingKeyPath;
    const [servingCert, servingKey] = await Promise.all([readFile(servingCertPath), readFile(servingKeyPath)]);
    const clientCaPath = opts.clientCaFile ?? files.caCertPath;
    const clientCa = await readFile(clientCaPath, 'utf8');
    // The TLS handshake names every CA whose client certificates mean something here, the proxy's too
    // (clients such as Go's send a certificate only when its issuer is named), as the original does.
    const handshakeCa = opts.requestheaderClientCaFile === undefined ? clientCa : `${clientCa.trimEnd()}\n${await readFile(opts.requestheaderClientCaFile, 'utf8')}`;
    const tokenFilePath = opts.tokenAuthFile ?? files.tokenFilePath;

    // Types, shards and storage.
    // TokenReview answers through the token authenticators, built further down; access reviews ask the
    // authorizer chain, also built later (its Node graph watches the store).
    const tokenReviews = new TokenReviewSlot();
    const reviewer = new AccessReviewer();
    const registry = new ResourceRegistry([...bindAccessReviews(builtinResourceTypes, reviewer), ...tokenReviewTypes(tokenReviews)], {
      defaultWatchCacheSize: opts.defaultWatchCacheSize,
      watchCacheSizes: opts.watchCacheSizes,
      isEnabled: (group, version) => runtimeEnabled(opts.runtimeConfig, group, version),
    });
    const store: StoreConfig =
      opts.storageBackend === 'etcd3'
        ? { backend: 'etcd3', endpoints: opts.etcdServers, prefix: opts.etcdPrefix }
        : { backend: 'embedded', dataDir: path.join(files.dir, 'store'), repair: opts.embeddedWalRepair };
    const router = await ShardRouter.start({
      shards: opts.shards,
      // The range records of service allocation ride along as a storage resource of their own.
      resources: [...registry.shardResources(), RANGES_RESOURCE_SPEC],
      store,
      compactionIntervalMs: opts.etcdCompactionIntervalMs,
      onError: (err, what) => logger.error({ err }, what),
      runtime: {
        retentionMs: opts.watchCacheRetentionMs,
        bookmarkIntervalMs: opts.watchBookmarkIntervalMs,
        listResultCache: { ...DEFAULT_LIST_RESULT_CACHE, budgetBytes: opts.listCacheBytes, maxEntryBytes: Math.min(DEFAULT_LIST_RESULT_CACHE.maxEntryBytes, opts.listCacheBytes) },
      },
    });
    cleanups.push(() => router.close());
    if (opts.storageBackend === 'etcd3') await checkEtcdPrefixFlavor(opts.etcdServers, opts.etcdPrefix, opts.apiFlavor);
    for (const note of router.storeOpenNotes) logger[note.level](note.details, note.msg);

    // Admission and the generic store.
    const namespaces = registry.lookup('', 'v1', 'namespaces')!;
    const plugins: AdmissionPlugin[] = [];
    const generic: { store?: GenericStore } = {};
    const unbuilt = unbuiltDefaultPlugins(opts.disableAdmissionPlugins);
    if (unbuilt.length > 0) logger.warn({ plugins: unbuilt }, 'default admission plugins not implemented by this server; their policies are not enforced');
    if (admissionPluginEnabled('NamespaceLifecycle', opts.enableAdmissionPlugins, opts.disableAdmissionPlugins)) {
      plugins.push(
        namespaceLifecycle({
          async phase(name) {
            const ns = await generic.store!.getObject(namespaces, '', name, { kind: 'any' });
            if (ns === null) return undefined;
            return ns.obj.metadata.deletionTimestamp ? 'Terminating' : 'Active';
          },
        }),
      );
    }
    const openapi = buildOpenApi(registry);
    const fieldManager = new FieldManager(openapi.schemas);
    const genericStore = new GenericStore(router, new AdmissionChain(plugins), undefined, {
      update: (req) => fieldManager.update(req),
      keepTimesIfUnchanged: (next, old) => keepTimesIfUnchanged(next, old),
    });
    generic.store = genericStore;
    await ensureSystemNamespaces(genericStore, registry, SYSTEM_NAMESPACES);
    const nsController = new NamespaceController(genericStore, registry, logger);
    nsController.start();
    cleanups.push(() => nsController.stop());
    const services = registry.lookup('', 'v1', 'services');
    if (services !== undefined) {
      const allocation = await startServiceAllocation({
        router,
        store: genericStore,
        services,
        clusterIPRange: opts.serviceClusterIPRange,
        nodePortRange: opts.serviceNodePortRange,
        repairIntervalMs: opts.serviceAllocationRepairIntervalMs,
        log: logger,
      });
      cleanups.push(() => allocation.stop());
      const apiService = new ApiServiceController({
        store: genericStore,
        registry,
        serviceIP: allocation.apiServiceIP,
        advertiseAddress: opts.bindAddress === '0.0.0.0' || opts.bindAddress === '::' ? '127.0.0.1' : opts.bindAddress,
        securePort: opts.securePort,
        log: logger,
      });
      await apiService.start(API_SERVICE_RECONCILE_MS);
      cleanups.push(() => apiService.stop());
    }

    // Documents and codecs built once.
    preloadProtobuf();
    const continueKey = createHash('sha256').update('orch continue tokens\0').update(files.saPrivateKey.export({ format: 'der', type: 'pkcs8' })).digest();
    const discovery = buildDiscovery(registry, `${opts.bindAddress === '0.0.0.0' ? '127.0.0.1' : opts.bindAddress}:${opts.securePort}`);
    // Service-account tokens: keys, issuers, TokenRequest and issuer discovery (authn/service-account).
    const serviceAccounts = await startServiceAccountTokens(opts, files, `${opts.bindAddress === '0.0.0.0' ? '127.0.0.1' : opts.bindAddress}:${opts.securePort}`, logger);

    // Health and metrics.
    const health = new HealthChecks();
    health.add('readyz', 'shards', async () => {
      const stats = await router.stats();
      const notReady = stats.flatMap((s) => s.resources.filter((r) => !r.ready).map((r) => r.groupResource));
      if (notReady.length > 0) throw new Error(`caches not ready: ${notReady.join(', ')}`);
    });
    health.add('healthz', opts.storageBackend === 'etcd3' ? 'etcd' : 'storage', async () => {
      await router.get(namespaces.storageResource, `${namespaces.keyPrefix}default`, { kind: 'latest' });
    });
    const metrics = createMetrics();
    router.observe = (op, resource, seconds) => metrics.observeStorageRequest(op, resource, seconds);
    const healthHandle = healthHandler(health, logger);

    // Authentication and authorization.
    const objects = new WatchCacheObjectSource(genericStore, registry);
    cleanups.push(() => objects.close());
    const authn = await buildAuthenticator(opts, {
      logger,
      clientCaPem: clientCa,
      tokenFilePath,
      objects,
      serviceAccounts: serviceAccounts.config,
      publicPaths: new Set(serviceAccounts.documents.keys()),
    });
    cleanups.push(() => authn.close());
    const authenticator = authn.authenticator;
    tokenReviews.bind(authn.tokenReviewer);
    const authz = await buildServerAuthorization(opts, { store: genericStore, registry, logger });
    cleanups.push(() => authz.close());
    const authorizer = authz.authorizer;
    reviewer.bind(authz.authorizer, authz.rules);

    // Endpoints and the chain.
    const resources = createResourceHandler({
      registry,
      store: genericStore,
      patchSchemas: new PatchSchemas(openapi.schemas),
      fieldManager,
      continueTokens: new ContinueTokens(continueKey, opts.continueTokenLifetimeMs),
      watch: { minRequestTimeoutSeconds: opts.minRequestTimeoutSeconds, maxBufferedBytes: opts.watchMaxBufferedBytes },
      tokenRequest: serviceAccounts.tokenRequest,
    });
    const routes = createRoutes({
      resources,
      discovery,
      health: { isHealthPath, handle: healthHandle },
      metrics: (ctx) => {
        // Gauges read at scrape time: shard queues and watch counts live in the router.
        for (let i = 0; i < router.shardCount; i++) {
          const shard = router.shard(i);
          metrics.setShardQueueDepth(i, shard.pendingCount);
        }
        for (const rt of registry.storedTypes()) {
          const shard = router.shardOf(rt.storageResource);
          metrics.setRegisteredWatchers(rt.group, rt.kind, shard.watchersByResource().get(rt.storageResource) ?? 0);
        }
        return metrics.metricsHandler(ctx);
      },
      openapi: (req) => openApiResponse(openapi, req),
      documents: serviceAccounts.documents,
    });
    const handler = buildHandlerChain({
      authenticator,
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
    });

    // Front ends, with one budget for what slow watchers hold across both.
    const watchBudget = new WatchBudget({
      maxBytes: opts.watchMaxTotalBufferedBytes,
      onDrop: (d) =>
        logger.warn(
          { frontend: d.label.frontend, path: d.label.path, queuedBytes: d.queuedBytes, heldBytes: d.heldBytes, maxBytes: d.maxBytes },
          'closed the watch holding the most output: slow watchers together passed --watch-max-total-buffered-bytes',
        ),
    });
    registerWatchBudgetMetrics(metrics.registry, watchBudget);
    const onError = (err: unknown): void => logger.error({ err: err instanceof Error ? err.message : String(err) }, 'front end error');
    const node: Frontend = await startNodeFrontend({
      host: opts.bindAddress,
      port: opts.securePort,
      tls: { cert: servingCert, key: servingKey, clientCa: handshakeCa },
      handler,
      maxStreamsPerConnection: opts.http2MaxStreamsPerConnection,
      timeouts: { idleMs: opts.httpIdleTimeoutMs, headerReadMs: opts.httpReadHeaderTimeoutMs },
      onError,
      watchBudget,
    });
    cleanups.push(() => node.close(1000));
    let uwsPort: number | null = null;
    if (opts.uwsPort !== 0) {
      const uws = loadUws();
      if (uws === null) {
        logger.warn({}, 'uWS front end unavailable on this Node.js; serving on node:http2 alone');
      } else {
        const front = await startUwsFrontend({ host: opts.bindAddress, port: opts.uwsPort, tls: { certFile: servingCertPath, keyFile: servingKeyPath }, handler, onError, uws, watchBudget });
        cleanups.push(() => front.close(1000));
        uwsPort = front.port;
      }
    }
    logger.info({ securePort: node.port, uwsPort, storage: opts.storageBackend, shards: router.shardCount, dataDir: files.dir }, 'orch-apiserver is serving');
    return {
      securePort: node.port,
      uwsPort,
      files,
      router,
      registry,
      health,
      handler,
      objects,
      close: async () => {
        health.markShuttingDown();
        await closeAll();
      },
    };
  } catch (err) {
    await closeAll();
    throw err;
  }
}

export type { ApiRequest, ApiResponse, RequestContext };
