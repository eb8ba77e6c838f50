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
import { OptionsError, validateOptions } from './options.ts';
import { checkDataDirFlavor, checkEtcdPrefixFlavor, recordDataDirFlavor } from './data-dir-flavor.ts';
import { RequestContext } from './context.ts';
import type { Logger } from './logging.ts';
import type { HealthChecks } from './health/index.ts';
import type { ObjectSource } from '../authn/object-source.ts';
import type { RequestHandler } from './http.ts';
import { ensureDataDir, type DataDirFiles } from '../pki/data-dir.ts';
import { ResourceRegistry } from '../registry/registry.ts';
import { unbuiltDefaultPlugins } from '../admission/plugin-names.ts';
import { DEFAULT_LIST_RESULT_CACHE } from '../../shards/list-result-cache.ts';
import { ShardRouter } from '../../shards/router.ts';
import type { ShardStoreConfig, StoreConfig } from '../storage/config.ts';
import { readEncryptionConfig } from '../storage/encryption/config.ts';
import { NamespaceController, ensureSystemNamespaces } from '../controllers/namespace-controller.ts';
import { ServiceAccountsController } from '../controllers/serviceaccounts-controller.ts';
import { CrdController } from '../apiextensions/controller.ts';
import { ResourceQuotaController } from '../controllers/resource-quota-controller.ts';
import { ClusterRoleAggregationController } from '../controllers/clusterrole-aggregation-controller.ts';
import { reconcileDefaultPolicy } from '../authz/rbac/reconcile.ts';
import { RbacIndex } from '../authz/rbac/index.ts';
import { ApiServiceController } from '../controllers/api-service-controller.ts';
import { RANGES_RESOURCE_SPEC, startServiceAllocation } from '../registry/service-allocation/index.ts';
import { startNodeFrontend } from '../frontends/node-http2.ts';
import { startUwsFrontend } from '../frontends/uws.ts';
import { loadUws } from '../frontends/uws-loader.ts';
import type { Frontend } from '../frontends/frontend.ts';
import { WatchBudget } from '../frontends/watch-budget.ts';
import { registerWatchBudgetMetrics } from './watch-budget-metrics.ts';
import type { ApiRequest, ApiResponse } from './http.ts';
import { API_FLAVOR, API_FLAVOR_ENV, names } from '../naming/index.ts';
import { buildPipeline, buildRegistry } from './pipeline.ts';
import { FeatureGates } from '../versions/feature-gates.ts';
import { SHARED_INFLIGHT_BYTES, SharedInflightCounter } from './shared-inflight.ts';
import { FrontendThreads, nodeReusePortSupported } from './frontend-threads.ts';
import { openAuditSink } from '../audit/index.ts';

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
  /** The front-end worker threads, or null when the main thread serves alone. */
  readonly frontendThreads: FrontendThreads | null;
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
  // The original logs a warning for each GA or deprecated feature gate that was set.
  for (const warning of new FeatureGates(opts.featureGates).warnings) logger.warn(warning);
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
    const { registry, reviews } = buildRegistry(opts);
    const backend: StoreConfig =
      opts.storageBackend === 'etcd3'
        ? { backend: 'etcd3', endpoints: opts.etcdServers, prefix: opts.etcdPrefix }
        : { backend: 'embedded', dataDir: path.join(files.dir, 'store'), repair: opts.embeddedWalRepair };
    // Encryption at rest: read and checked here, so a bad file refuses the start before anything is stored.
    const store: ShardStoreConfig = opts.encryptionProviderConfig === undefined ? backend : { ...backend, encryption: await readEncryptionConfig(opts.encryptionProviderConfig) };
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

    const unbuilt = unbuiltDefaultPlugins(opts.disableAdmissionPlugins);
    if (unbuilt.length > 0) logger.warn({ plugins: unbuilt }, 'default admission plugins not implemented by this server; their policies are not enforced');

    // The request pipeline (pipeline.ts): the same in this thread and in every front-end thread.
    const continueKey = createHash('sha256').update('orch continue tokens\0').update(files.saPrivateKey.export({ format: 'der', type: 'pkcs8' })).digest();
    const inflightBuffer = new SharedArrayBuffer(SHARED_INFLIGHT_BYTES);
    let threads: FrontendThreads | null = null;
    // Audit backends: opened once, here; closed (flushed) after every serving thread stopped.
    const auditSink = await openAuditSink(opts.audit, logger);
    if (auditSink !== null) cleanups.push(() => auditSink.close());
    const pipeline = await buildPipeline({
      auditSink: auditSink ?? undefined,
      opts,
      logger,
      registry,
      reviews,
      router,
      clientCa,
      tokenFilePath,
      serviceAccountKeys: files,
      continueKey,
      thread: 0,
      inflight: new SharedInflightCounter(inflightBuffer),
      processMetrics: () => (threads === null ? pipeline.metrics.registry.metrics() : threads.processMetrics()),
    });
    cleanups.push(() => pipeline.close());
    const { handler, health, objects, metrics } = pipeline;
    const genericStore = pipeline.store;

    // What runs once per process: system namespaces, controllers, service allocation repair.
    await ensureSystemNamespaces(genericStore, registry, SYSTEM_NAMESPACES);
    // The default RBAC policy, reconciled before anything is served (the original's bootstrap-roles hook),
    // and the aggregation of ClusterRoles (admin, edit, view), complete before the first request.
    await reconcileDefaultPolicy(genericStore, registry, logger);
    const aggregationIndex = new RbacIndex(genericStore.router, registry).start();
    cleanups.push(() => aggregationIndex.close());
    const aggregation = new ClusterRoleAggregationController(genericStore, registry, aggregationIndex, logger);
    cleanups.push(() => aggregation.stop());
    await aggregation.start();
    const nsController = new NamespaceController(genericStore, registry, logger);
    nsController.start();
    cleanups.push(() => nsController.stop());
    const saController = new ServiceAccountsController(genericStore, registry, logger);
    saController.start();
    cleanups.push(() => saController.stop());
    // Custom resource definitions: names, Established, and deletion of their instances (src/apiextensions).
    const crdController = new CrdController(genericStore, registry, logger);
    cleanups.push(() => crdController.close());
    await crdController.start();
    // Quota status (hard from spec, used recounted from the objects) that ResourceQuota admission charges against.
    if (registry.lookup('', 'v1', 'resourcequotas') !== undefined) {
      const quotaController = new ResourceQuotaController(genericStore, registry, logger);
      cleanups.push(() => quotaController.stop());
      await quotaController.start();
    }
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
        installed: pipeline.serviceAllocators ?? undefined,
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

    // Front ends, with one budget for what slow watchers hold across both, split evenly between the serving threads.
    const watchBudgetBytes = Math.max(1, Math.floor(opts.watchMaxTotalBufferedBytes / opts.frontendThreads));
    const watchBudget = new WatchBudget({
      maxBytes: watchBudgetBytes,
      onDrop: (d) =>
        logger.warn(
          { frontend: d.label.frontend, path: d.label.path, queuedBytes: d.queuedBytes, heldBytes: d.heldBytes, maxBytes: d.maxBytes },
          'closed the watch holding the most output: slow watchers together passed --watch-max-total-buffered-bytes',
        ),
    });
    registerWatchBudgetMetrics(metrics.registry, watchBudget);
    const onError = (err: unknown): void => logger.error({ err: err instanceof Error ? err.message : String(err) }, 'front end error');
    // Workers share the secure port only where node:http2 can (reusePort); else this thread serves it alone.
    const uws = opts.uwsPort !== 0 ? loadUws() : null;
    const shareSecurePort = opts.frontendThreads > 1 && nodeReusePortSupported();
    const node: Frontend = await startNodeFrontend({
      host: opts.bindAddress,
      port: opts.securePort,
      reusePort: shareSecurePort,
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
      if (uws === null) {
        logger.warn({}, 'uWS front end unavailable on this Node.js; serving on node:http2 alone');
      } else {
        const front = await startUwsFrontend({ host: opts.bindAddress, port: opts.uwsPort, tls: { certFile: servingCertPath, keyFile: servingKeyPath }, handler, onError, uws, watchBudget });
        cleanups.push(() => front.close(1000));
        uwsPort = front.port;
      }
    }
    // Front-end worker threads: on the same ports, with their own pipelines and shard channels; stopped first.
    if (opts.frontendThreads > 1 && (uwsPort !== null || shareSecurePort)) {
      threads = await FrontendThreads.start({
        count: opts.frontendThreads - 1,
        inputs: {
          opts,
          logLevel: logger.level,
          clientCa,
          handshakeCa,
          tokenFilePath,
          serviceAccountKeys: { saPrivateKey: files.saPrivateKey, saPublicKeys: files.saPublicKeys, saPrivateKeyPath: files.saPrivateKeyPath, saPublicKeyPath: files.saPublicKeyPath },
          continueKey: new Uint8Array(continueKey),
          servingCertPath,
          servingKeyPath,
          inflight: inflightBuffer,
          watchBudgetBytes,
        },
        uwsPort,
        securePort: shareSecurePort ? node.port : null,
        router,
        logger,
        localMetrics: () => metrics.registry.getMetricsAsJSON(),
        audit: auditSink,
      });
      const started = threads;
      cleanups.push(() => started.close());
    } else if (opts.frontendThreads > 1) {
      logger.info({}, 'no port the front-end threads can share (uWS off, and node:http2 cannot share the secure port on this Node.js): serving from the main thread alone');
    }
    logger.info(
      { securePort: node.port, uwsPort, storage: opts.storageBackend, shards: router.shardCount, frontendThreads: 1 + (threads?.count ?? 0), dataDir: files.dir },
      'orch-apiserver is serving',
    );
    return {
      securePort: node.port,
      uwsPort,
      files,
      router,
      registry,
      health,
      handler,
      objects,
      frontendThreads: threads,
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
