/**
 * Thread entry of one front-end worker (`--frontend-threads`): builds the
 * same request pipeline as the main thread (src/server/pipeline.ts) over
 * channels of its own to every shard (ClientShardRouter), listens on the
 * main thread's uWS port (SO_REUSEPORT) and, where Node can share it, on the
 * secure port, then tells the main thread it serves. Whatever fails before
 * that ends the thread with the error, which fails the server's start.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { readFile } from 'node:fs/promises';
import { TEST_HOOKS_ENV, type FrontendWorkerData } from '../src/server/frontend-threads.ts';
import { ControlChannel } from '../src/server/control-channel.ts';
import { batchedDestination, createLogger, type LogLevel } from '../src/server/logging.ts';
import { buildPipeline, buildRegistry } from '../src/server/pipeline.ts';
import { RemoteAuditSink, auditAcceptsLines, auditBlocking } from '../src/audit/index.ts';
import { SharedInflightCounter } from '../src/server/shared-inflight.ts';
import { ClientShardRouter } from '../shards/client-router.ts';
import { WatchBudget } from '../src/frontends/watch-budget.ts';
import { registerWatchBudgetMetrics } from '../src/server/watch-budget-metrics.ts';
import { startUwsFrontend } from '../src/frontends/uws.ts';
import { startNodeFrontend } from '../src/frontends/node-http2.ts';
import { loadUws } from '../src/frontends/uws-loader.ts';
import type { Frontend } from '../src/frontends/frontend.ts';
import type { MessagePort } from 'node:worker_threads';
import { ShutdownSignals } from '../src/server/lifecycle.ts';
import { drainThread } from '../src/server/drain-thread.ts';

/** The listeners this thread opened (closed at once, uWS's native sockets first of all, before it ends on an error). */
const fronts: Frontend[] = [];

/** Thrown out of the start when a stop came first: ends the start quietly. */
class Stopped extends Error {}

/**
 * A thread that ends with uWS sockets still open takes the process down
 * (libuv refuses to close a loop with open handles: abort). So an error that
 * escapes everything first closes the listeners, then is thrown again on the
 * next turn: the thread still ends with it, the main thread hears it and
 * starts a new one. This is not error handling: nothing is recovered here.
 */
process.once('uncaughtException', (err) => {
  try {
    for (const f of fronts) void f.close(0);
  } finally {
    setTimeout(() => {
      throw err;
    }, 10);
  }
});

async function main(): Promise<void> {
  if (parentPort === null) throw new Error('frontend-worker runs in a worker thread');
  const data = workerData as FrontendWorkerData;
  const { opts } = data;
  const control = new ControlChannel(parentPort);
  const logger = createLogger({
    level: data.logLevel as LogLevel,
    destination: batchedDestination((lines) => data.logPort.postMessage(lines)),
  }).child({ thread: data.thread });
  const cleanups: Array<() => Promise<void> | void> = [];
  const closeAll = async (): Promise<void> => {
    for (const c of cleanups.splice(0).reverse()) {
      try {
        await c();
      } catch (err) {
        logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'error while stopping');
      }
    }
  };
  // Answered from the start: the main thread may ask while this thread still builds.
  let router: ClientShardRouter | null = null;
  let localMetrics: (() => Promise<unknown>) | null = null;
  control.handle('resumeRevisions', async (shard) => ({ body: router?.resumeRevisions(shard as number) ?? {} }));
  control.handle('metricsJson', async () => ({ body: localMetrics === null ? [] : await localMetrics() }));
  let stopping = false;
  /** After each step of the start: a stop that came meanwhile closes what exists and ends the start. */
  const checkStop = async (): Promise<void> => {
    if (!stopping) return;
    await closeAll();
    throw new Stopped();
  };
  control.handle('stop', async () => {
    stopping = true;
    await closeAll();
    // With nothing left open, the thread ends on its own once the reply is out.
    setImmediate(() => parentPort?.close());
    return { body: null };
  });
  if (process.env[TEST_HOOKS_ENV] === '1') {
    // Tests only: an error no code path catches, to see the thread restarted.
    control.handle('crash', async () => {
      setImmediate(() => {
        throw new Error('front-end thread crash requested by a test');
      });
      return { body: null };
    });
  }

  if (process.env[TEST_HOOKS_ENV] === 'fail-start') throw new Error('front-end thread start failure requested by a test');
  const { registry, reviews } = buildRegistry(opts);
  const shards = await ClientShardRouter.start({
    placement: data.placement,
    shardCount: data.shardCount,
    connect: (index) => control.request<MessagePort>('connect', index),
    directWrites: { resources: data.directWriteResources, connect: () => control.request<MessagePort>('connectStore', null) },
    onError: (err, what) => logger.warn({ err: err instanceof Error ? err.message : String(err) }, what),
  });
  router = shards;
  cleanups.push(() => shards.close());
  await checkStop();
  // Closed after the pipeline (pushed before it): the pipeline's close hands over the last events, the
  // sink's waits until the main thread has them all, so none is lost when this thread ends.
  const auditSink = data.auditPort === null ? undefined : new RemoteAuditSink(data.auditPort, auditBlocking(opts.audit), auditAcceptsLines(opts.audit));
  if (auditSink !== undefined) cleanups.push(() => auditSink.close());
  const signals = new ShutdownSignals(data.shutdownSignals);
  const pipeline = await buildPipeline({
    opts,
    logger,
    registry,
    reviews,
    router,
    clientCa: data.clientCa,
    tokenFilePath: data.tokenFilePath,
    serviceAccountKeys: data.serviceAccountKeys,
    continueKey: data.continueKey,
    thread: data.thread,
    inflight: new SharedInflightCounter(data.inflight),
    shutdown: signals,
    reportsInflight: false,
    defaultMetrics: false,
    processMetrics: () => control.request<string>('processMetrics'),
    auditSink,
  });
  cleanups.push(() => pipeline.close());
  await checkStop();
  localMetrics = () => pipeline.metrics.registry.getMetricsAsJSON();
  // The graceful shutdown's drain, the same as the main thread's (drain-thread.ts), over this thread's own listeners.
  control.handle('drain', async () => {
    await drainThread({ drain: pipeline.drain, fronts, sendRetryAfter: opts.shutdownSendRetryAfter, requestTimeoutMs: opts.requestTimeoutMs, logger, signals });
    return { body: null };
  });

  const watchBudget = new WatchBudget({
    maxBytes: data.watchBudgetBytes,
    onDrop: (d) =>
      logger.warn(
        { frontend: d.label.frontend, path: d.label.path, queuedBytes: d.queuedBytes, heldBytes: d.heldBytes, maxBytes: d.maxBytes },
        "closed the watch holding the most output: slow watchers together passed this thread's part of --watch-max-total-buffered-bytes",
      ),
  });
  registerWatchBudgetMetrics(pipeline.metrics.registry, watchBudget);
  const onError = (err: unknown): void => logger.error({ err: err instanceof Error ? err.message : String(err) }, 'front end error');
  // Listeners close first on stop (registered last), each as soon as it exists.
  const listen = async (front: Promise<Frontend>): Promise<void> => {
    const f = await front;
    fronts.push(f);
    cleanups.push(() => f.close(1000));
    await checkStop();
  };
  if (data.securePort !== null) {
    const [cert, key] = await Promise.all([readFile(data.servingCertPath), readFile(data.servingKeyPath)]);
    await listen(
      startNodeFrontend({
        host: opts.bindAddress,
        port: data.securePort,
        sharePort: 'join',
        tls: { cert, key, clientCa: data.handshakeCa },
        handler: pipeline.handler,
        maxStreamsPerConnection: opts.http2MaxStreamsPerConnection,
      http2Engine: opts.http2Engine,
        timeouts: { idleMs: opts.httpIdleTimeoutMs, headerReadMs: opts.httpReadHeaderTimeoutMs },
        onError,
        watchBudget,
      }),
    );
  }
  if (data.uwsPort !== null) {
    const uws = loadUws();
    if (uws === null) throw new Error('uWS is unavailable in this thread');
    await listen(
      startUwsFrontend({
        host: opts.bindAddress,
        port: data.uwsPort,
        tls: { certFile: data.servingCertPath, keyFile: data.servingKeyPath },
        handler: pipeline.handler,
        onError,
        uws,
        watchBudget,
      }),
    );
  }
  await control.request('ready');
  logger.debug({ uwsPort: data.uwsPort, securePort: data.securePort }, 'front-end thread is serving');
}

main().catch((err: unknown) => {
  if (err instanceof Stopped) return;
  // Thrown out of the thread: the main thread's 'error' event carries it, failing the start.
  setImmediate(() => {
    throw err;
  });
});
