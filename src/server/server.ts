/**
 * startServer wires the whole server from its options: credentials in the
 * data dir, registry, shards and store, admission, the generic store and its
 * HTTP endpoints, the filter chain, the front ends, and the controllers the
 * server runs itself. close() stops it all in reverse order.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
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
import type { GenericStore } from '../registry/generic-store.ts';
import { unbuiltDefaultPlugins } from '../admission/plugin-names.ts';
import { DEFAULT_LIST_RESULT_CACHE } from '../../shards/list-result-cache.ts';
import { ShardRouter, type ResourceSpec } from '../../shards/router.ts';
import { withDataThreadHeaps } from './heap-sizing.ts';
import { useSingleThreadedScavenges } from './scavenge-threads.ts';
import type { ShardStoreConfig, StoreConfig } from '../storage/config.ts';
import { readEncryptionConfig } from '../storage/encryption/config.ts';
import { NamespaceController, ensureSystemNamespaces } from '../controllers/namespace-controller.ts';
import { ControllerManager } from '../controllers/controller-manager.ts';
import { resolveServiceAccountConfig } from '../authn/service-account/config.ts';
import { TokenSigner } from '../authn/service-account/issuer.ts';
import { CrdController } from '../apiextensions/controller.ts';
import { ResourceQuotaController } from '../controllers/resource-quota-controller.ts';
import { ClusterRoleAggregationController } from '../controllers/clusterrole-aggregation-controller.ts';
import { reconcileDefaultPolicy } from '../authz/rbac/reconcile.ts';
import { RbacIndex } from '../authz/rbac/index.ts';
import { ApiServiceController } from '../controllers/api-service-controller.ts';
import type { LeaderElector } from '../controllers/leader-election.ts';
import { CsrSigningController } from '../controllers/csr-signing-controller.ts';
import { IdentityLeaseController } from '../controllers/identity-lease-controller.ts';
import { RANGES_RESOURCE_SPEC, startServiceAllocation } from '../registry/service-allocation/index.ts';
import { startNodeFrontend } from '../frontends/node-http2.ts';
import { startUwsFrontend } from '../frontends/uws.ts';
import { loadUws } from '../frontends/uws-loader.ts';
import type { Frontend } from '../frontends/frontend.ts';
import { WatchBudget } from '../frontends/watch-budget.ts';
import { registerWatchBudgetMetrics } from './watch-budget-metrics.ts';
import type { ApiRequest, ApiResponse } from './http.ts';
import { API_FLAVOR, API_FLAVOR_ENV, apiGroup, names } from '../naming/index.ts';
import { buildPipeline, buildRegistry } from './pipeline.ts';
import { FeatureGates } from '../versions/feature-gates.ts';
import { SHARED_INFLIGHT_BYTES, SharedInflightCounter } from './shared-inflight.ts';
import { FrontendThreads } from './frontend-threads.ts';
import { sharedPortMethod } from '../frontends/shared-port.ts';
import { openAuditSink } from '../audit/index.ts';
import { ShutdownSignals } from './lifecycle.ts';
import { drainThread } from './drain-thread.ts';
import { startApfBootstrap, type ApfBootstrap } from '../flowcontrol/bootstrap/index.ts';

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
  /** The main thread's generic store (what the controllers write through). */
  readonly store: GenericStore;
  readonly health: HealthChecks;
  /** The request pipeline both front ends call: for in-process drivers (the fuzz harness). */
  readonly handler: RequestHandler;
  /** The main thread's view of service accounts, secrets and pods for authentication (object-source.ts). */
  readonly objects: ObjectSource;
  /** The controllers that run once per cluster, while this server holds the controller manager lease. */
  readonly elected: { readonly elector: LeaderElector | null; readonly csrSigning: CsrSigningController };
  /** The front-end worker threads, or null when the main thread serves alone. */
  readonly frontendThreads: FrontendThreads | null;
  /** The elected built-in controllers (src/controllers/controller-manager.ts). */
  readonly controllerManager: ControllerManager;
  /** The shutdown phase every serving thread reads (lifecycle.ts). */
  readonly signals: ShutdownSignals;
  /** The APF bootstrap configuration's ensurer and Dangling condition, or null when priority and fairness is off. */
  readonly apfBootstrap: ApfBootstrap | null;
  /**
   * The graceful shutdown of SIGTERM: /readyz fails at once, requests are
   * served for --shutdown-delay-duration, then every serving thread stops
   * taking new ones, drains, ends its watches cleanly, and everything closes
   * (the store flushed). Resolves when all is closed.
   */
  shutdown(): Promise<void>;
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
    // Every thread's scavenges on the thread alone (scavenge-threads.ts); the store host's and the shards' heaps
    // keep the cluster's objects: sized as such (heap-sizing.ts).
    useSingleThreadedScavenges();
    const router = await withDataThreadHeaps(() => ShardRouter.start({
      shards: opts.shards,
      // The range records of service allocation ride along as a storage resource of their own.
      resources: [...withEventTtl(registry.shardResources(), opts.eventTtlMs), RANGES_RESOURCE_SPEC],
      store,
      compactionIntervalMs: opts.etcdCompactionIntervalMs,
      onError: (err, what) => logger.error({ err }, what),
      runtime: {
        retentionMs: opts.watchCacheRetentionMs,
        bookmarkIntervalMs: opts.watchBookmarkIntervalMs,
        listResultCache: { ...DEFAULT_LIST_RESULT_CACHE, budgetBytes: opts.listCacheBytes, maxEntryBytes: Math.min(DEFAULT_LIST_RESULT_CACHE.maxEntryBytes, opts.listCacheBytes) },
        listStreamBytes: opts.listStreamBytes,
      },
    }));
    cleanups.push(() => router.close());
    if (opts.storageBackend === 'etcd3') await checkEtcdPrefixFlavor(opts.etcdServers, opts.etcdPrefix, opts.apiFlavor);
    for (const note of router.storeOpenNotes) logger[note.level](note.details, note.msg);

    const unbuilt = unbuiltDefaultPlugins(opts.disableAdmissionPlugins);
    if (unbuilt.length > 0) logger.warn({ plugins: unbuilt }, 'default admission plugins not implemented by this server; their policies are not enforced');

    // The request pipeline (pipeline.ts): the same in this thread and in every front-end thread.
    const continueKey = createHash('sha256').update('orch continue tokens\0').update(files.saPrivateKey.export({ format: 'der', type: 'pkcs8' })).digest();
    const inflightBuffer = new SharedArrayBuffer(SHARED_INFLIGHT_BYTES);
    const signals = new ShutdownSignals();
    let threads: FrontendThreads | null = null;
    // Audit backends: opened once, here; closed (flushed) after every serving thread stopped.
    const auditSink = await openAuditSink(opts.audit, logger);
    if (auditSink !== null) cleanups.push(() => auditSink.close());
    let shuttingDown: Promise<void> | undefined;
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
      shutdown: signals,
      processMetrics: () => (threads === null ? pipeline.metrics.registry.metrics() : threads.processMetrics()),
    });
    cleanups.push(() => pipeline.close());
    const { handler, health, objects, metrics } = pipeline;
    // Events the backends lose are counted with this thread's metrics (the process's /metrics sums every thread's).
    if (auditSink !== null) auditSink.metrics = metrics.audit;
    // Ready (and, after --livez-grace-period, live) only once every serving thread serves: the main
    // thread's listener opens before the workers have started (the original's post-start hooks).
    let started = false;
    health.addBootSequence('poststarthook/start-serving-threads', () => {
      if (!started) throw new Error('not finished');
    });
    const genericStore = pipeline.store;

    // What runs once per process: system namespaces, controllers, service allocation repair.
    await ensureSystemNamespaces(genericStore, registry, SYSTEM_NAMESPACES);
    // The default RBAC policy, reconciled before anything is served (the original's bootstrap-roles hook),
    // and the aggregation of ClusterRoles (admin, edit, view), complete before the first request.
    await reconcileDefaultPolicy(genericStore, registry, logger);
    // The mandatory and suggested priority-and-fairness objects, kept up to date (the original's
    // priority-and-fairness-config-producer hook), and the FlowSchemas' Dangling condition.
    let apfBootstrap: ApfBootstrap | null = null;
    if (opts.enablePriorityAndFairness) {
      apfBootstrap = await startApfBootstrap({ store: genericStore, registry, log: logger, addBootCheck: (name, check) => health.addBootSequence(name, check) });
      const started = apfBootstrap;
      if (started !== null) cleanups.push(() => started.stop());
    }
    const aggregationIndex = new RbacIndex(genericStore.router, registry).start();
    cleanups.push(() => aggregationIndex.close());
    const aggregation = new ClusterRoleAggregationController(genericStore, registry, aggregationIndex, logger);
    cleanups.push(() => aggregation.stop());
    await aggregation.start();
    const nsController = new NamespaceController(genericStore, registry, logger);
    nsController.start();
    cleanups.push(() => nsController.stop());
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
    // Once per cluster: the controllers of the original's controller manager, under its lease
    // (src/controllers/controller-manager.ts); stopped, and the lease released, in reverse order at close.
    const csrSigning = new CsrSigningController({
      store: genericStore,
      registry,
      signing: opts.clusterSigning,
      defaultCa: { certFile: files.caCertPath, keyFile: files.caKeyPath },
      log: logger,
    });
    const saConfig = await resolveServiceAccountConfig(opts, files);
    const rootCaPem = opts.rootCaFile === undefined ? files.caCertPem : await readFile(opts.rootCaFile, 'utf8');
    const advertise = opts.bindAddress === '0.0.0.0' || opts.bindAddress === '::' ? '127.0.0.1' : opts.bindAddress;
    const controllerManager = new ControllerManager({
      ctx: { store: genericStore, registry, log: logger, now: Date.now },
      authorizer: pipeline.authorizer,
      tokenSigner: new TokenSigner(saConfig.signingKey),
      rootCaPem,
      serverUrl: `https://${advertise.includes(':') ? `[${advertise}]` : advertise}:${opts.securePort}`,
      controllers: opts.controllers,
      extra: [csrSigning],
      leaderElect: opts.leaderElection.enabled,
      timings: opts.leaderElection,
    });
    await controllerManager.start();
    cleanups.push(() => controllerManager.stop());
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
      const advertiseAddress = opts.bindAddress === '0.0.0.0' || opts.bindAddress === '::' ? '127.0.0.1' : opts.bindAddress;
      // Each server's identity Lease; with --endpoint-reconciler-type=lease the endpoints list the live ones.
      let identity: IdentityLeaseController | null = null;
      if (registry.lookup(apiGroup('coordination'), 'v1', 'leases') !== undefined) {
        identity = new IdentityLeaseController({
          store: genericStore,
          registry,
          hostname: os.hostname(),
          advertiseAddress,
          securePort: opts.securePort,
          durationSeconds: opts.identityLeaseDurationSeconds,
          renewIntervalMs: opts.identityLeaseRenewIntervalSeconds * 1000,
          log: logger,
          afterRenew: () => (opts.endpointReconcilerType === 'lease' && apiServiceRef !== null ? apiServiceRef.reconcile() : Promise.resolve()),
        });
      }
      let apiServiceRef: ApiServiceController | null = null;
      const leaseSource = identity;
      const apiService = new ApiServiceController({
        store: genericStore,
        registry,
        serviceIP: allocation.apiServiceIP,
        advertiseAddress,
        securePort: opts.securePort,
        log: logger,
        reconcilerType: opts.endpointReconcilerType === 'none' ? 'none' : 'lease',
        ...(opts.endpointReconcilerType === 'lease' && leaseSource !== null ? { liveEndpoints: () => leaseSource.liveEndpoints() } : {}),
      });
      if (identity !== null) {
        const started = identity;
        await started.start();
        cleanups.push(() => started.stop());
      }
      await apiService.start(API_SERVICE_RECONCILE_MS);
      apiServiceRef = apiService;
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
    // Workers share the secure port where node's servers can (SO_REUSEPORT, shared-port.ts); else this thread serves it alone.
    const uws = opts.uwsPort !== 0 ? loadUws() : null;
    const shareSecurePort = opts.frontendThreads > 1 && sharedPortMethod() !== null;
    const node: Frontend = await startNodeFrontend({
      host: opts.bindAddress,
      port: opts.securePort,
      ...(shareSecurePort ? { sharePort: 'first' as const } : {}),
      tls: { cert: servingCert, key: servingKey, clientCa: handshakeCa },
      handler,
      maxStreamsPerConnection: opts.http2MaxStreamsPerConnection,
      http2Engine: opts.http2Engine,
      timeouts: { idleMs: opts.httpIdleTimeoutMs, headerReadMs: opts.httpReadHeaderTimeoutMs },
      onError,
      watchBudget,
    });
    cleanups.push(() => node.close(1000));
    const mainFronts: Frontend[] = [node];
    let uwsPort: number | null = null;
    if (opts.uwsPort !== 0) {
      if (uws === null) {
        logger.warn({}, 'uWS front end unavailable on this Node.js; serving on node:http2 alone');
      } else {
        const front = await startUwsFrontend({ host: opts.bindAddress, port: opts.uwsPort, tls: { certFile: servingCertPath, keyFile: servingKeyPath }, handler, onError, uws, watchBudget });
        cleanups.push(() => front.close(1000));
        mainFronts.push(front);
        uwsPort = front.port;
      }
    }
    // Front-end worker threads: on the same ports, with their own pipelines and shard channels; stopped first. The
    // first uwsThreads - 1 of them listen on the uWS port too; where the secure port cannot be shared, only they run.
    const uwsWorkers = uwsPort === null ? 0 : Math.max(0, Math.min(opts.frontendThreads, opts.uwsThreads) - 1);
    const workerCount = shareSecurePort ? opts.frontendThreads - 1 : uwsWorkers;
    if (workerCount > 0) {
      threads = await FrontendThreads.start({
        count: workerCount,
        inputs: {
          // Each worker's share of the flow-control seats is by the threads that really serve.
          opts: workerCount + 1 === opts.frontendThreads ? opts : { ...opts, frontendThreads: workerCount + 1 },
          logLevel: logger.level,
          clientCa,
          handshakeCa,
          tokenFilePath,
          serviceAccountKeys: { saPrivateKey: files.saPrivateKey, saPublicKeys: files.saPublicKeys, saPrivateKeyPath: files.saPrivateKeyPath, saPublicKeyPath: files.saPublicKeyPath },
          continueKey: new Uint8Array(continueKey),
          servingCertPath,
          servingKeyPath,
          inflight: inflightBuffer,
          shutdownSignals: signals.buffer,
          watchBudgetBytes,
        },
        uwsPort,
        uwsWorkers,
        securePort: shareSecurePort ? node.port : null,
        router,
        logger,
        localMetrics: () => metrics.registry.getMetricsAsJSON(),
        audit: auditSink,
      });
      const started = threads;
      cleanups.push(() => started.close());
    } else if (opts.frontendThreads > 1) {
      logger.info({}, 'no port the front-end threads can share (uWS off or on the main thread alone, and node:http2 cannot share the secure port on this Node.js): serving from the main thread alone');
    }
    if (workerCount + 1 !== opts.frontendThreads) {
      // Priority and fairness: the main thread's share of the seats was one of more threads than serve.
      pipeline.flowcontrol?.setServerConcurrencyLimit(Math.max(1, Math.ceil((opts.maxRequestsInflight + opts.maxMutatingRequestsInflight) / (workerCount + 1))));
    }
    started = true;
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
      store: genericStore,
      health,
      handler,
      objects,
      frontendThreads: threads,
      controllerManager,
      elected: { elector: controllerManager.elector, csrSigning },
      signals,
      apfBootstrap,
      shutdown: async () => {
        if (shuttingDown !== undefined) return shuttingDown;
        shuttingDown = (async () => {
          signals.initiateShutdown();
          logger.info({ delay: opts.shutdownDelayMs }, '[graceful-termination] shutdown initiated: /readyz fails, requests served until the delay is over');
          if (opts.shutdownDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, opts.shutdownDelayMs));
          signals.beginDrain(1 + (threads?.count ?? 0));
          signals.stopAcceptingNewRequests();
          logger.info({ sendRetryAfter: opts.shutdownSendRetryAfter }, '[graceful-termination] not accepting new requests');
          const drainOpts = { sendRetryAfter: opts.shutdownSendRetryAfter, requestTimeoutMs: opts.requestTimeoutMs, logger };
          await Promise.all([drainThread({ ...drainOpts, drain: pipeline.drain, fronts: mainFronts, signals }), threads?.drain(opts.requestTimeoutMs)]);
          health.markShuttingDown();
          await closeAll();
          logger.info({}, '[graceful-termination] apiserver is exiting');
        })();
        return shuttingDown;
      },
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

/** Events (core and events.<group> share one storage) expire `--event-ttl` after their last write. */
function withEventTtl(specs: ResourceSpec[], ttlMs: number): ResourceSpec[] {
  if (!(ttlMs > 0)) return specs;
  const ttlSeconds = Math.max(1, Math.ceil(ttlMs / 1000));
  return specs.map((s) => (s.groupResource === '/events' ? { ...s, ttlSeconds } : s));
}

export type { ApiRequest, ApiResponse, RequestContext };
