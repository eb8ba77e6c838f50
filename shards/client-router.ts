/**
 * ClientShardRouter: a front-end worker thread's door to the shards. It has
 * the ShardRouter's calls (ShardAccess) but owns no shard thread: each shard
 * is reached through a channel of this thread's own, which the main thread
 * (the shards' owner) hands over on request. When a shard thread is
 * restarted its channel closes; the router asks for a new one, and the
 * ShardClient resumes every watcher after its last revision.
 */
import type { MessagePort } from 'node:worker_threads';
import type { Revision } from '../src/storage/interface.ts';
import { RoutedCalls, type ShardEndpoint } from './shard-access.ts';
import { ShardClient } from './shard-client.ts';
import { shardFor } from './hash.ts';

export interface ClientShardRouterOptions {
  /** Which shard serves each `<group>/<resource>` (the main router's placement). */
  placement: Readonly<Record<string, number>>;
  shardCount: number;
  /** Gets a fresh channel to shard `index` from the shards' owner; rejects while it cannot. */
  connect(index: number): Promise<MessagePort>;
  /** The types this thread writes directly to the store host (the main router's list), and how to get a channel to it. */
  directWrites?: { resources: readonly string[]; connect(): Promise<MessagePort> } | undefined;
  /** Told of failures contained here (a reconnect that failed and is retried, a watch sink that threw). */
  onError?: ((err: unknown, what: string) => void) | undefined;
}

/** First wait before asking again for a channel the owner could not give; doubles to 2 s. */
const RECONNECT_MIN_MS = 50;
const RECONNECT_MAX_MS = 2000;

export class ClientShardRouter extends RoutedCalls {
  readonly #opts: ClientShardRouterOptions;
  readonly #clients: ShardClient[];
  #closed = false;

  private constructor(opts: ClientShardRouterOptions) {
    super();
    this.#opts = opts;
    this.#clients = Array.from(
      { length: opts.shardCount },
      (_, index) => new ShardClient({ index, onLost: () => this.#reconnect(index), onError: opts.onError }),
    );
  }

  /** Connects to every shard; rejects (nothing left open) if a channel cannot be had. */
  static async start(opts: ClientShardRouterOptions): Promise<ClientShardRouter> {
    const router = new ClientShardRouter(opts);
    try {
      const ports = await Promise.all(router.#clients.map((c) => opts.connect(c.index)));
      ports.forEach((port, i) => router.#clients[i]!.attach(port));
      const direct = opts.directWrites;
      if (direct !== undefined && direct.resources.length > 0) router.useDirectWrites(await direct.connect(), direct.resources);
    } catch (err) {
      router.close();
      throw err;
    }
    return router;
  }

  protected endpointOf(groupResource: string): ShardEndpoint {
    // A type outside the start-up list (a custom resource) lives where its name hashes, as the main router places it.
    const index = this.#opts.placement[groupResource] ?? shardFor(groupResource, this.#clients.length);
    return this.#clients[index]!;
  }

  protected endpoints(): readonly ShardEndpoint[] {
    return this.#clients;
  }

  /** Where this thread's watchers on shard `index` stand (see ShardClient.resumeRevisions). */
  resumeRevisions(index: number): Record<string, Revision> {
    return this.#clients[index]?.resumeRevisions() ?? {};
  }

  /** The channel to shard `index` closed (its thread ended): ask for a new one until it comes. */
  #reconnect(index: number, delayMs = 0): void {
    if (this.#closed) return;
    const attempt = (): void => {
      if (this.#closed) return;
      this.#opts.connect(index).then(
        (port) => {
          if (this.#closed) port.close();
          else this.#clients[index]!.attach(port);
        },
        (err: unknown) => {
          if (this.#closed) return;
          this.#opts.onError?.(err, `shard ${index}: no channel yet, asking again`);
          this.#reconnect(index, Math.min(RECONNECT_MAX_MS, Math.max(RECONNECT_MIN_MS, delayMs * 2)));
        },
      );
    };
    if (delayMs === 0) attempt();
    else setTimeout(attempt, delayMs).unref();
  }

  close(): void {
    this.#closed = true;
    for (const c of this.#clients) c.close();
    this.direct?.close();
    this.direct = undefined;
  }
}
