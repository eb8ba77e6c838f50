/**
 * ShardHandle is the main thread's side of one shard: a Piscina pool of one
 * thread, and a MessageChannel carrying batched requests, replies and watch
 * frames. It keeps each watcher's last revision so that, when the shard
 * thread is restarted (or dies), every watcher resumes exactly after the last
 * event it got, or ends with a clear 410 if that history is gone.
 */
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { Revision } from '../src/storage/interface.ts';
import type { StoreConfig } from '../src/storage/config.ts';
import type { ShardRuntimeOptions } from './shard-runtime.ts';
import type { ShardInitTask } from '../workers/shard-worker.ts';
import { BatchedPort } from './batched-port.ts';
import type { ReplyValue, ResourceSpec, ShardError, ShardMessage, ShardRequest } from './protocol.ts';

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

/** Receives one watcher's output on the main thread. */
export interface WatchSink {
  /** Frames in the watcher's encoding, in order. */
  onFrames(frames: Uint8Array, revision: Revision): void;
  /** The watch ended (410 Compacted, store gone, bad selector, ...). Nothing follows. */
  onEnd(error: ShardError): void;
}

export type WatchRequestBody = Omit<Extract<ShardRequest, { op: 'watch' }>, 'op' | 'watchId'>;

export class ShardCallError extends Error {
  constructor(readonly error: ShardError) {
    super(error.message);
  }
}

interface Watcher {
  req: WatchRequestBody;
  sink: WatchSink;
  /** Revision the watcher is current up to; null until its first frames. */
  lastRevision: Revision | null;
}

type RequestBody = Exclude<ShardRequest, { op: 'watch' | 'unwatch' | 'bookmark' }>;
type WithoutId<T> = T extends { id: number } ? Omit<T, 'id'> : never;

export interface ShardHandleOptions {
  index: number;
  resources: ResourceSpec[];
  store: StoreConfig;
  /** For the embedded backend: makes a fresh port connected to the store host. */
  connectStore?: (() => Promise<MessagePort>) | undefined;
  runtime: ShardRuntimeOptions;
  /** Called when the shard thread died unexpectedly and was restarted. */
  onRestart?: ((index: number) => void) | undefined;
  /**
   * Told of failures contained here: the shard thread dying, a restart that
   * failed (retried), a watch sink that threw (that watcher is ended).
   */
  onError?: ((err: unknown, what: string) => void) | undefined;
}

export class ShardHandle {
  readonly index: number;
  readonly #opts: ShardHandleOptions;
  #pool: Piscina | null = null;
  #port: BatchedPort<ShardRequest, ShardMessage> | null = null;
  #pending = new Map<number, { resolve: (v: ReplyValue) => void; reject: (e: Error) => void }>();
  #watchers = new Map<number, Watcher>();
  #nextId = 1;
  #starting: Promise<void> | null = null;
  #closed = false;
  /** Requests queued while the shard (re)starts. */
  #backlog: ShardRequest[] = [];
  restarts = 0;

  constructor(opts: ShardHandleOptions) {
    this.index = opts.index;
    this.#opts = opts;
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
    // process. The port's close (below) restarts the shard.
    pool.on('error', (err: unknown) => this.#opts.onError?.(err, `shard ${this.index} thread failed`));
    this.#pool = pool; // set at once so a failed boot's thread is destroyed by the next restart or close
    const channel = new MessageChannel();
    const storePort = this.#opts.connectStore ? await this.#opts.connectStore() : undefined;
    const task: ShardInitTask = {
      kind: 'init',
      shardIndex: this.index,
      port: channel.port2,
      resources: this.#opts.resources,
      store: this.#opts.store,
      storePort,
      options: this.#opts.runtime,
      loadAt,
    };
    const transfer: MessagePort[] = storePort ? [channel.port2, storePort] : [channel.port2];
    const port = new BatchedPort<ShardRequest, ShardMessage>(channel.port1, (msgs) => this.#onMessages(msgs));
    channel.port1.on('close', () => {
      if (this.#port === port) this.#onShardLost();
    });
    await pool.run(task, { transferList: transfer });
    this.#port = port;
    // Watchers registered before or during the boot (re)attach now, then queued requests go out.
    for (const [watchId, w] of this.#watchers) this.#sendWatch(watchId, w);
    const backlog = this.#backlog;
    this.#backlog = [];
    for (const req of backlog) port.send(req);
  }

  #send(req: ShardRequest): void {
    if (this.#port !== null) this.#port.send(req);
    else this.#backlog.push(req);
  }

  #onMessages(msgs: ShardMessage[]): void {
    for (const m of msgs) {
      switch (m.t) {
        case 'ok':
        case 'err': {
          const p = this.#pending.get(m.id);
          if (p === undefined) break;
          this.#pending.delete(m.id);
          if (m.t === 'ok') p.resolve(m.value);
          else p.reject(new ShardCallError(m.error));
          break;
        }
        case 'frames':
          for (const id of m.ids) {
            const w = this.#watchers.get(id);
            if (w === undefined) continue;
            w.lastRevision = m.revision;
            try {
              w.sink.onFrames(m.frames, m.revision);
            } catch (err) {
              this.#sinkFailed(id, w, err);
            }
          }
          break;
        case 'end':
          for (const id of m.ids) {
            const w = this.#watchers.get(id);
            if (w === undefined) continue;
            this.#watchers.delete(id);
            try {
              w.sink.onEnd(m.error);
            } catch (err) {
              this.#opts.onError?.(err, `watch ${id} on shard ${this.index}: ending it failed`);
            }
          }
          break;
      }
    }
  }

  /**
   * A watcher's sink threw on its frames: that watcher alone ends (the shard
   * stops sending to it), and the others of the batch still get theirs.
   */
  #sinkFailed(id: number, w: Watcher, err: unknown): void {
    this.#opts.onError?.(err, `watch ${id} on shard ${this.index}: its frames could not be sent`);
    this.#watchers.delete(id);
    this.#send({ op: 'unwatch', watchId: id, resource: w.req.resource });
    try {
      w.sink.onEnd({ code: 'Internal', message: err instanceof Error ? err.message : String(err) });
    } catch {
      // already reported above; nothing more this watcher can be told
    }
  }

  /** Sends a request to the shard and waits for its reply. */
  call<T extends ReplyValue>(req: WithoutId<RequestBody>): Promise<T> {
    if (this.#closed) return Promise.reject(new ShardCallError({ code: 'Unavailable', message: 'shard is closed' }));
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (v: ReplyValue) => void, reject });
      this.#send({ ...req, id } as ShardRequest);
    });
  }

  /** Starts a watch; frames go to `sink` until it ends or `close()` is called. */
  watch(req: WatchRequestBody, sink: WatchSink): { id: number; close(): void } {
    const watchId = this.#nextId++;
    const w: Watcher = { req, sink, lastRevision: null };
    this.#watchers.set(watchId, w);
    if (this.#port !== null) this.#sendWatch(watchId, w);
    return {
      id: watchId,
      close: () => {
        if (this.#watchers.delete(watchId)) this.#send({ op: 'unwatch', watchId, resource: req.resource });
      },
    };
  }

  #sendWatch(watchId: number, w: Watcher): void {
    // A watcher that has seen events resumes right after them.
    const start = w.lastRevision === null ? w.req.start : { kind: 'from' as const, revision: w.lastRevision };
    const initialEventsEnd = w.lastRevision === null ? w.req.initialEventsEnd : false;
    this.#port!.send({ ...w.req, start, initialEventsEnd, op: 'watch', watchId });
  }

  /** Asks the shard to send bookmarks now (tests, shutdown). */
  bookmark(resource?: string): void {
    this.#send({ op: 'bookmark', resource });
  }

  get watcherCount(): number {
    return this.#watchers.size;
  }

  /** Requests sent and not yet answered (the shard's queue depth, for metrics). */
  get pendingCount(): number {
    return this.#pending.size + this.#backlog.length;
  }

  /** Watchers per resource (`<group>/<resource>` of the storage) on this shard. */
  watchersByResource(): Map<string, number> {
    const out = new Map<string, number>();
    for (const w of this.#watchers.values()) out.set(w.req.resource, (out.get(w.req.resource) ?? 0) + 1);
    return out;
  }

  #onShardLost(): void {
    if (this.#closed) return;
    this.#port = null;
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
          if (!this.#closed && this.#port === null) this.#restartUntilUp();
        }, 1000).unref();
      },
    );
  }

  /**
   * Replaces the shard thread. Requests in flight fail with Unavailable (the
   * caller retries or reports 503); watchers resume from their last revision.
   */
  async restart(): Promise<void> {
    this.restarts++;
    const old = this.#pool;
    const oldPort = this.#port;
    this.#port = null;
    this.#pool = null;
    const err = new ShardCallError({ code: 'Unavailable', message: `shard ${this.index} restarted` });
    for (const p of this.#pending.values()) p.reject(err);
    this.#pending.clear();
    oldPort?.close();
    await old?.destroy();
    const loadAt: Record<string, Revision> = {};
    for (const w of this.#watchers.values()) {
      if (w.lastRevision === null) continue;
      const cur = loadAt[w.req.resource];
      loadAt[w.req.resource] = cur === undefined ? w.lastRevision : Math.min(cur, w.lastRevision);
    }
    await this.#boot(loadAt);
  }

  async close(): Promise<void> {
    this.#closed = true;
    const port = this.#port;
    this.#port = null;
    port?.close();
    for (const p of this.#pending.values()) p.reject(new ShardCallError({ code: 'Unavailable', message: 'shard closed' }));
    this.#pending.clear();
    this.#watchers.clear();
    const pool = this.#pool;
    this.#pool = null;
    if (pool !== null) {
      await pool.run({ kind: 'stop' }).catch(() => undefined);
      await pool.destroy();
    }
  }
}
