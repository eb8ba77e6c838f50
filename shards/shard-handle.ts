/**
 * ShardHandle is the main thread's side of one shard: a Piscina pool of one
 * thread, and the main thread's ShardClient (a MessageChannel carrying
 * batched requests, replies and watch frames; each watcher resumes after its
 * last revision when the thread is restarted or dies). Front-end worker
 * threads get channels of their own to the same thread (connectClient);
 * a restart loads the caches far enough back for their watchers too.
 */
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { Revision } from '../src/storage/interface.ts';
import type { ShardStoreConfig } from '../src/storage/config.ts';
import type { ShardRuntimeOptions } from './shard-runtime.ts';
import type { ShardAttachTask, ShardInitTask } from '../workers/shard-worker.ts';
import type { GetReply, ObjectBytes, ReadMode, ReplyValue, ResourceSpec, ShardError } from './protocol.ts';
import type { DirectWrite, DirectWrites } from './direct-writes.ts';
import type { WrittenKey } from '../src/storage/remote/protocol.ts';
import { ShardClient, mergeResumeRevisions, type ShardCall, type WatchRequestBody, type WatchSink } from './shard-client.ts';

export { ShardCallError, type WatchRequestBody, type WatchSink } from './shard-client.ts';

/**
 * V8 limits of the shard and store-host threads. A smaller young generation
 * than V8's default (16 MiB semi-spaces) keeps each thread's resident memory
 * down; their garbage is short-lived request and event buffers, so the extra
 * scavenges cost little.
 */
export const WORKER_RESOURCE_LIMITS = { maxYoungGenerationSizeMb: Number(process.env['ORCH_WORKER_YOUNG_GEN_MB'] ?? 8) };

/** True when running the compiled JavaScript (`npm run build`, dist/), false under tsx. */
export const compiled = import.meta.url.endsWith('.js');
export const shardWorkerFile = new URL(`../workers/shard-worker.${compiled ? 'js' : 'ts'}`, import.meta.url).href;
/** Loads a TypeScript worker module inside a Piscina thread (see workers/ts-entry.mjs). */
export const tsEntryFile = new URL('../workers/ts-entry.mjs', import.meta.url).href;

/**
 * Piscina options that start `entry` in a worker: the compiled module
 * directly, or, from sources, through the shim that registers tsx once in
 * the thread (compiled workers skip tsx and its ~35 MB per thread).
 */
export function workerEntry(entry: string): { filename: string; workerData: { entry: string }; execArgv: string[] } {
  return compiled ? { filename: entry, workerData: { entry }, execArgv: [] } : { filename: tsEntryFile, workerData: { entry }, execArgv: [] };
}

export interface ShardHandleOptions {
  index: number;
  resources: ResourceSpec[];
  store: ShardStoreConfig;
  /** For the embedded backend: makes a fresh port connected to the store host. */
  connectStore?: ((name?: string) => Promise<MessagePort>) | undefined;
  /** The store host's committed revision in shared memory (embedded backend; storage/shared-revision.ts). */
  storeRevisionCell?: SharedArrayBuffer | undefined;
  runtime: ShardRuntimeOptions;
  /** Called when the shard thread died unexpectedly and was restarted. */
  onRestart?: ((index: number) => void) | undefined;
  /**
   * Told of failures contained here: the shard thread dying, a restart that
   * failed (retried), a watch sink that threw (that watcher is ended).
   */
  onError?: ((err: unknown, what: string) => void) | undefined;
  /**
   * Where the watchers of the other clients (front-end threads) stand, per
   * resource: a restart loads the caches as of the oldest so they resume too.
   */
  otherClientsResumeRevisions?: ((shard: number) => Promise<Record<string, Revision>>) | undefined;
}

export class ShardHandle {
  readonly index: number;
  readonly #opts: ShardHandleOptions;
  readonly #client: ShardClient;
  /** Threads started so far (names each one's store connection). */
  #starts = 0;
  #pool: Piscina | null = null;
  #starting: Promise<void> | null = null;
  #closed = false;
  /** connectClient calls waiting for the thread to be up. */
  #upWaiters: Array<() => void> = [];
  restarts = 0;

  constructor(opts: ShardHandleOptions) {
    this.index = opts.index;
    this.#opts = opts;
    this.#client = new ShardClient({ index: opts.index, onLost: () => this.#onShardLost(), onError: opts.onError });
  }

  /** Starts the shard thread and waits until its caches are loaded. */
  start(): Promise<void> {
    this.#starting ??= this.#boot(undefined).finally(() => {
      this.#starting = null;
    });
    return this.#starting;
  }

  async #boot(loadAt: Record<string, Revision> | undefined): Promise<void> {
    const pool = new Piscina({
      ...workerEntry(shardWorkerFile),
      minThreads: 1,
      maxThreads: 1,
      idleTimeout: Number.MAX_SAFE_INTEGER,
      atomics: 'disabled',
      resourceLimits: WORKER_RESOURCE_LIMITS,
      concurrentTasksPerWorker: 4,
    });
    // A dying thread makes the pool emit 'error'; unheard, that would end the
    // process. The port's close (ShardClient) restarts the shard.
    pool.on('error', (err: unknown) => this.#opts.onError?.(err, `shard ${this.index} thread failed`));
    this.#pool = pool; // set at once so a failed boot's thread is destroyed by the next restart or close
    const channel = new MessageChannel();
    // Named once per thread started: routed writes name the connection they answer on (shards/direct-writes.ts).
    const storeConn = `shard ${this.index} #${++this.#starts}`;
    const storePort = this.#opts.connectStore ? await this.#opts.connectStore(storeConn) : undefined;
    const task: ShardInitTask = {
      kind: 'init',
      shardIndex: this.index,
      port: channel.port2,
      resources: this.#opts.resources,
      store: this.#opts.store,
      storePort,
      storeConn: storePort === undefined ? undefined : storeConn,
      storeRevisionCell: this.#opts.storeRevisionCell,
      options: this.#opts.runtime,
      loadAt,
    };
    const transfer: MessagePort[] = storePort ? [channel.port2, storePort] : [channel.port2];
    await pool.run(task, { transferList: transfer });
    // Watchers registered before or during the boot (re)attach now, then queued requests go out.
    this.#client.attach(channel.port1);
    for (const wake of this.#upWaiters.splice(0)) wake();
  }

  /** Sends a request to the shard and waits for its reply. */
  call<T extends ReplyValue>(req: ShardCall): Promise<T> {
    return this.#client.call<T>(req);
  }

  writeDirect(direct: DirectWrites, resource: string, write: DirectWrite): Promise<ObjectBytes> | null {
    return this.#client.writeDirect(direct, resource, write);
  }

  receiveWritten(tag: number, id: number, value: WrittenKey | undefined, prev: Uint8Array | undefined, error: ShardError | undefined): void {
    this.#client.receiveWritten(tag, id, value, prev, error);
  }

  get(resource: string, key: string, read: ReadMode): Promise<GetReply> {
    return this.#client.get(resource, key, read);
  }

  /** See ShardClient.readCacheStats. */
  readCacheStats(): { hits: number; misses: number; entries: number } | null {
    return this.#client.readCacheStats();
  }

  /** Serves `spec` from now on (a custom resource type); asked again of a restarted thread. */
  ensure(spec: ResourceSpec): Promise<void> {
    return this.#client.ensure(spec);
  }

  /** Starts a watch; frames go to `sink` until it ends or `close()` is called. */
  watch(req: WatchRequestBody, sink: WatchSink): { id: number; close(): void } {
    return this.#client.watch(req, sink);
  }

  /**
   * Hands `port` to the shard thread as one more client (a front-end worker's
   * own channel), once the thread is up. Rejects if the thread is not the one
   * that is up (it just died): the worker asks again.
   */
  async connectClient(port: MessagePort): Promise<void> {
    if (this.#closed) throw new Error(`shard ${this.index} is closed`);
    if (!this.#client.attached) await new Promise<void>((resolve) => this.#upWaiters.push(resolve));
    if (this.#closed || this.#pool === null) throw new Error(`shard ${this.index} is closed`);
    await this.#pool.run({ kind: 'attach', port } satisfies ShardAttachTask, { transferList: [port] });
  }

  /** Asks the shard to send bookmarks now (tests, shutdown). */
  bookmark(resource?: string): void {
    this.#client.bookmark(resource);
  }

  get watcherCount(): number {
    return this.#client.watcherCount;
  }

  /** Requests sent and not yet answered (the shard's queue depth, for metrics). */
  get pendingCount(): number {
    return this.#client.pendingCount;
  }

  /** Watchers per resource (`<group>/<resource>` of the storage) on this shard. */
  watchersByResource(): Map<string, number> {
    return this.#client.watchersByResource();
  }

  #onShardLost(): void {
    if (this.#closed) return;
    this.#restartUntilUp();
  }

  /** Restarts the lost shard, trying again every second while it fails (the store may be down). */
  #restartUntilUp(): void {
    this.restart().then(
      () => this.#opts.onRestart?.(this.index),
      (err: unknown) => {
        if (this.#closed) return;
        this.#opts.onError?.(err, `shard ${this.index} failed to restart`);
        setTimeout(() => {
          if (!this.#closed && !this.#client.attached) this.#restartUntilUp();
        }, 1000).unref();
      },
    );
  }

  /**
   * Replaces the shard thread. Requests in flight fail with Unavailable (the
   * caller retries or reports 503); watchers resume from their last revision,
   * here and in every front-end thread.
   */
  async restart(): Promise<void> {
    this.restarts++;
    const old = this.#pool;
    this.#pool = null;
    this.#client.detach(`shard ${this.index} restarted`);
    await old?.destroy();
    const loadAt = this.#client.resumeRevisions();
    if (this.#opts.otherClientsResumeRevisions !== undefined) {
      try {
        mergeResumeRevisions(loadAt, await this.#opts.otherClientsResumeRevisions(this.index));
      } catch (err) {
        this.#opts.onError?.(err, `shard ${this.index}: the front-end threads' watch revisions could not be collected`);
      }
    }
    await this.#boot(loadAt);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#client.close();
    for (const wake of this.#upWaiters.splice(0)) wake();
    const pool = this.#pool;
    this.#pool = null;
    if (pool !== null) {
      await pool.run({ kind: 'stop' }).catch(() => undefined);
      await pool.destroy();
    }
  }
}
