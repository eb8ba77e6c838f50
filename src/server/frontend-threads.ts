/**
 * Front-end worker threads (`--frontend-threads=N`): N-1 threads besides the
 * main one, each serving requests with its own copy of the pipeline
 * (pipeline.ts) and its own channel to every shard, on the same uWS port
 * (SO_REUSEPORT: the kernel spreads connections over the threads' listening
 * sockets) and, where node's servers can share a port (Node >= 22.12 / 23.1
 * by `listen({ reusePort })`, older ones through the orch-reuseport addon;
 * src/frontends/shared-port.ts), on the secure port too.
 *
 * This is the main thread's side: it starts the workers, hands each a fresh
 * channel to a shard when it asks (at start, and after a shard thread was
 * restarted), answers for the process's metrics, collects the workers' watch
 * revisions when a shard restarts, restarts a worker that dies, and stops
 * them first on close.
 */
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { AggregatorRegistry } from 'prom-client';
import type { Revision } from '../storage/interface.ts';
import type { ServerOptions } from './options.ts';
import { logDestinationOf, type Logger } from './logging.ts';
import type { ShardRouter } from '../../shards/router.ts';
import { mergeResumeRevisions } from '../../shards/shard-client.ts';
import { compiled, tsEntryFile } from '../../shards/shard-handle.ts';
import { ControlChannel } from './control-channel.ts';
import { serveRemoteAuditSink, type LocalAuditSink } from '../audit/index.ts';
import type { DataDirServiceAccountKeys } from '../authn/service-account/config.ts';

/** Set in the workers' environment by tests: `1` enables the 'crash' control request, `fail-start` fails the start. */
export const TEST_HOOKS_ENV = 'ORCH_FRONTEND_THREAD_TEST_HOOKS';

/** One thread's metrics as `registry.getMetricsAsJSON()` gives them (plain data: it crosses threads). */
export type MetricsJson = object[];

export const frontendWorkerFile = new URL(`../../workers/frontend-worker.${compiled ? 'js' : 'ts'}`, import.meta.url).href;

/** Everything a front-end worker builds its pipeline and listeners from (structured-cloned). */
export interface FrontendWorkerData {
  /** The module the TypeScript shim loads (workers/ts-entry.mjs). */
  entry: string;
  /** 1..N-1; the main thread is 0. */
  thread: number;
  opts: ServerOptions;
  logLevel: string;
  clientCa: string;
  /** The CAs named in the TLS handshake (the client CA and the request-header proxy's). */
  handshakeCa: string;
  tokenFilePath: string;
  /** The data dir's service-account keys (KeyObjects are cloneable across threads). */
  serviceAccountKeys: DataDirServiceAccountKeys;
  continueKey: Uint8Array;
  servingCertPath: string;
  servingKeyPath: string;
  /** The uWS port the main thread bound, or null when it serves none. */
  uwsPort: number | null;
  /** The secure port, when node's servers can share it here (shared-port.ts); null: the main thread alone serves it. */
  securePort: number | null;
  placement: Record<string, number>;
  shardCount: number;
  /** The types written directly to the store host (shards/direct-writes.ts); empty: none. */
  directWriteResources: string[];
  /** The in-flight counts of every serving thread (shared-inflight.ts). */
  inflight: SharedArrayBuffer;
  /** The shutdown phase every serving thread reads (lifecycle.ts). */
  shutdownSignals: SharedArrayBuffer;
  /** This thread's part of --watch-max-total-buffered-bytes. */
  watchBudgetBytes: number;
  /** Where this thread's log lines go (batches of lines; the main thread writes them to its own destination). */
  logPort: MessagePort;
  /** Where this thread's audit events go (the main thread owns the backends), when auditing is on. */
  auditPort: MessagePort | null;
}

/** What the main thread gives each worker besides its number and listening ports. */
export type FrontendThreadsInputs = Omit<FrontendWorkerData, 'entry' | 'thread' | 'uwsPort' | 'securePort' | 'placement' | 'shardCount' | 'directWriteResources' | 'logPort' | 'auditPort'>;

/** How long a worker may take to answer a metrics or revisions question before it is left out. */
const ASK_TIMEOUT_MS = 2000;
/** What a worker's drain may take beyond the request timeout (its final writes' grace, 5 s, and slack). */
const DRAIN_EXTRA_MS = 10_000;
/** How long a stopping worker may take before it is terminated. */
const STOP_TIMEOUT_MS = 5000;
/** How long a stopped worker may take to end by itself before it is terminated. */
const EXIT_TIMEOUT_MS = 2000;
/** First wait before restarting a worker that died; doubles to 30 s while restarts keep failing. */
const RESTART_MIN_MS = 500;
const RESTART_MAX_MS = 30_000;

interface Slot {
  thread: number;
  worker: Worker | null;
  control: ControlChannel | null;
  restarts: number;
  /** Told the main thread it serves, and has not exited since. */
  serving: boolean;
}

export interface FrontendThreadsOptions {
  count: number;
  inputs: FrontendThreadsInputs;
  uwsPort: number | null;
  /** Workers 1..uwsWorkers listen on uwsPort too (the others serve the secure port alone). */
  uwsWorkers: number;
  securePort: number | null;
  router: ShardRouter;
  logger: Logger;
  /** This (the main) thread's metrics, in the JSON prom-client aggregates. */
  localMetrics: () => Promise<MetricsJson>;
  /** The audit backends (main thread): every worker's events are written through them. */
  audit?: LocalAuditSink | null | undefined;
}

export class FrontendThreads {
  readonly #opts: FrontendThreadsOptions;
  readonly #slots: Slot[];
  #closed = false;

  private constructor(opts: FrontendThreadsOptions) {
    this.#opts = opts;
    this.#slots = Array.from({ length: opts.count }, (_, i) => ({ thread: i + 1, worker: null, control: null, restarts: 0, serving: false }));
  }

  /** Starts `count` workers; resolves when all serve, rejects with the first one's failure (the others stopped). */
  static async start(opts: FrontendThreadsOptions): Promise<FrontendThreads> {
    const threads = new FrontendThreads(opts);
    opts.router.otherClientsResumeRevisions = (shard) => threads.resumeRevisions(shard);
    try {
      await Promise.all(threads.#slots.map((slot) => threads.#spawn(slot)));
    } catch (err) {
      await threads.close();
      throw err;
    }
    return threads;
  }

  get count(): number {
    return this.#slots.length;
  }

  /** Restarts of each worker so far (tests). */
  get restarts(): number[] {
    return this.#slots.map((s) => s.restarts);
  }

  /** Which workers serve now (tests). */
  serving(): boolean[] {
    return this.#slots.map((s) => s.serving);
  }

  /** Makes worker `index` fail with an uncaught error (tests; needs ORCH_FRONTEND_THREAD_TEST_HOOKS=1 in the workers' environment). */
  async crashForTest(index: number): Promise<void> {
    await this.#slots[index]?.control?.request('crash', null, ASK_TIMEOUT_MS);
  }

  #spawn(slot: Slot): Promise<void> {
    const o = this.#opts;
    // The worker's log lines come here and go out through this thread's destination: one writer, whole lines.
    const logs = new MessageChannel();
    const destination = logDestinationOf(o.logger);
    logs.port1.on('message', (lines: string[]) => {
      for (const line of lines) destination.write(line);
    });
    logs.port1.unref();
    // Audit events likewise: one writer per log file, the main thread's.
    const audit = o.audit ? new MessageChannel() : null;
    if (audit !== null && o.audit) serveRemoteAuditSink(audit.port1, o.audit);
    const data: FrontendWorkerData = {
      ...o.inputs,
      logPort: logs.port2,
      auditPort: audit?.port2 ?? null,
      entry: frontendWorkerFile,
      thread: slot.thread,
      uwsPort: slot.thread <= o.uwsWorkers ? o.uwsPort : null,
      securePort: o.securePort,
      placement: o.router.placement(),
      shardCount: o.router.shardCount,
      directWriteResources: [...o.router.directWriteResources()],
    };
    const worker = new Worker(new URL(compiled ? frontendWorkerFile : tsEntryFile), { workerData: data, transferList: audit === null ? [logs.port2] : [logs.port2, audit.port2], execArgv: [] });
    const control = new ControlChannel(worker);
    slot.worker = worker;
    slot.control = control;
    control.handle('connect', async (body) => {
      const shard = body as number;
      const channel = new MessageChannel();
      try {
        await o.router.connectClient(shard, channel.port2);
      } catch (err) {
        channel.port1.close();
        throw err;
      }
      return { body: channel.port1, transfer: [channel.port1] };
    });
    control.handle('connectStore', async () => {
      const port = await o.router.connectStoreClient();
      return { body: port, transfer: [port] };
    });
    control.handle('processMetrics', async () => ({ body: await this.processMetrics() }));
    return new Promise<void>((resolve, reject) => {
      let started = false;
      control.handle('ready', async () => {
        started = true;
        if (slot.worker === worker) slot.serving = true;
        resolve();
        return { body: null };
      });
      let failure: Error | null = null;
      worker.on('error', (err) => {
        failure = err;
      });
      worker.on('exit', (code) => {
        control.close(`front-end thread ${slot.thread} exited`);
        logs.port1.close();
        audit?.port1.close();
        if (slot.worker === worker) {
          slot.worker = null;
          slot.control = null;
          slot.serving = false;
        }
        const why = failure ?? new Error(`front-end thread ${slot.thread} exited with code ${code}`);
        if (!started) {
          reject(why);
          return;
        }
        if (this.#closed) return;
        o.logger.error({ thread: slot.thread, err: why.message }, 'front-end thread died; restarting it');
        this.#restartLater(slot, RESTART_MIN_MS);
      });
    });
  }

  #restartLater(slot: Slot, delayMs: number): void {
    setTimeout(() => {
      if (this.#closed) return;
      slot.restarts++;
      this.#spawn(slot).then(
        () => this.#opts.logger.info({ thread: slot.thread }, 'front-end thread restarted'),
        (err: unknown) => {
          if (this.#closed) return;
          this.#opts.logger.error({ thread: slot.thread, err: err instanceof Error ? err.message : String(err) }, 'front-end thread failed to restart; trying again');
          this.#restartLater(slot, Math.min(RESTART_MAX_MS, delayMs * 2));
        },
      );
    }, delayMs).unref();
  }

  /** Every serving thread's metrics, aggregated (counters and histograms summed), as Prometheus text. */
  async processMetrics(): Promise<string> {
    const all = await Promise.all([
      this.#opts.localMetrics(),
      ...this.#slots.map((s) => (s.control === null ? Promise.resolve(null) : s.control.request<MetricsJson>('metricsJson', null, ASK_TIMEOUT_MS).catch(() => null))),
    ]);
    return AggregatorRegistry.aggregate(all.filter((m): m is MetricsJson => m !== null)).metrics();
  }

  /** Where the workers' watchers on `shard` stand, per resource (the oldest of each). */
  async resumeRevisions(shard: number): Promise<Record<string, Revision>> {
    const replies = await Promise.all(
      this.#slots.map((s) => (s.control === null ? Promise.resolve({}) : s.control.request<Record<string, Revision>>('resumeRevisions', shard, ASK_TIMEOUT_MS).catch(() => ({})))),
    );
    const out: Record<string, Revision> = {};
    for (const r of replies) mergeResumeRevisions(out, r);
    return out;
  }

  /**
   * A graceful shutdown's drain in every worker (drain-thread.ts): each
   * stops listening, lets its requests finish, ends its watches cleanly and
   * closes its front ends. Resolves when all have (or the time is up).
   */
  async drain(requestTimeoutMs: number): Promise<void> {
    await Promise.all(
      this.#slots.map((s) =>
        s.control === null
          ? Promise.resolve()
          : s.control.request('drain', null, requestTimeoutMs + DRAIN_EXTRA_MS).catch((err: unknown) => {
              this.#opts.logger.warn({ thread: s.thread, err: err instanceof Error ? err.message : String(err) }, 'front-end thread did not drain');
            }),
      ),
    );
  }

  /** Stops every worker (its listeners first, then its pipeline and channels). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#opts.router.otherClientsResumeRevisions = undefined;
    await Promise.all(
      this.#slots.map(async (slot) => {
        const { worker, control } = slot;
        if (worker === null) return;
        const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
        await control?.request('stop', null, STOP_TIMEOUT_MS).catch(() => undefined);
        // The worker ends by itself once stopped; terminate() only one that does not (its listeners are closed by then).
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), EXIT_TIMEOUT_MS)));
        if ((await Promise.race([exited, late])) === 'late') await worker.terminate();
        clearTimeout(timer);
      }),
    );
  }
}
