/**
 * ShardRouter places resource types on shards and is the one door the main
 * thread uses to reach storage: typed get/list/create/update/delete/watch
 * calls, each forwarded to the shard that owns the resource.
 *
 * With the embedded backend it also runs the store host thread that owns the
 * data directory, and connects every shard to it.
 */
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import os from 'node:os';
import { Piscina } from 'piscina';
import type { ShardStoreConfig, StoreOpenNote } from '../src/storage/config.ts';
import { SharedRevision } from '../src/storage/shared-revision.ts';
import type { StoreHostResult, StoreHostTask } from '../workers/store-host-worker.ts';
import { shardFor } from './hash.ts';
import { Compactor } from '../src/storage/compactor.ts';
import { ShardHandle, WORKER_RESOURCE_LIMITS, compiled, workerEntry, type WatchRequestBody, type WatchSink } from './shard-handle.ts';
import { RoutedCalls, type ShardEndpoint } from './shard-access.ts';
import { directWriteResources } from './direct-writes.ts';
import type { ShardRuntimeOptions } from './shard-runtime.ts';
import type { Filter, ReadMode, ResourceSpec } from './protocol.ts';
import type { Revision } from '../src/storage/interface.ts';

export const storeHostWorkerFile = new URL(`../workers/store-host-worker.${compiled ? 'js' : 'ts'}`, import.meta.url).href;

export interface ShardRouterOptions {
  /** Number of shards (`--shards`); default the CPU count. */
  shards?: number;
  resources: ResourceSpec[];
  store: ShardStoreConfig;
  runtime?: ShardRuntimeOptions;
  /**
   * Compact the store's history on this schedule (the original's
   * --etcd-compaction-interval, 5 minutes; 0 = never). With etcd, several
   * servers take turns through a shared key.
   */
  compactionIntervalMs?: number;
  /** Told of failures the shards contained (a thread that died and was restarted, a watch sink that threw). */
  onError?: ((err: unknown, what: string) => void) | undefined;
}

export class ShardRouter extends RoutedCalls {
  readonly #shards: ShardHandle[];
  readonly #placement = new Map<string, ShardHandle>();
  readonly #storeHost: Piscina | null;
  readonly #onClose: Array<() => Promise<void>> = [];
  #storeOpenNotes: readonly StoreOpenNote[] = [];
  /** A new channel to the store host's StoreServer (embedded store only). */
  #connectStore: ((name?: string) => Promise<MessagePort>) | undefined;
  /** The types every serving thread writes directly to the store host (direct-writes.ts); empty: none. */
  #directResources: readonly string[] = [];

  private constructor(shards: ShardHandle[], placement: Map<string, ShardHandle>, storeHost: Piscina | null) {
    super();
    this.#shards = shards;
    this.#placement = placement;
    this.#storeHost = storeHost;
  }

  /** What opening the embedded store found (torn-write cuts, repairs, skipped snapshots), for the server log. */
  get storeOpenNotes(): readonly StoreOpenNote[] {
    return this.#storeOpenNotes;
  }

  static async start(opts: ShardRouterOptions): Promise<ShardRouter> {
    const count = Math.max(1, opts.shards ?? os.availableParallelism());
    let storeHost: Piscina | null = null;
    let connectStore: ((name?: string) => Promise<MessagePort>) | undefined;
    let storeOpenNotes: readonly StoreOpenNote[] = [];
    let storeRevision: SharedRevision | undefined;
    if (opts.store.backend === 'embedded') {
      const host = new Piscina({
        ...workerEntry(storeHostWorkerFile),
        minThreads: 1,
        maxThreads: 1,
        idleTimeout: Number.MAX_SAFE_INTEGER,
        atomics: 'disabled',
        resourceLimits: WORKER_RESOURCE_LIMITS,
      });
      storeHost = host;
      const { encryption: _keys, ...hostStore } = opts.store;
      // The store host sees sealed bytes only: the keys stay with the shards.
      // Consistent reads in the shards read the committed revision from shared memory, not by a message.
      storeRevision = SharedRevision.allocate();
      const opened: StoreHostResult = await host.run({
        kind: 'open',
        store: hostStore,
        compactionIntervalMs: opts.compactionIntervalMs,
        revisionCell: storeRevision.buffer,
      } satisfies StoreHostTask);
      storeOpenNotes = opened.notes ?? [];
      connectStore = async (name?: string) => {
        const ch = new MessageChannel();
        await host.run({ kind: 'connect', port: ch.port1, name } satisfies StoreHostTask, {
          transferList: [ch.port1],
        });
        return ch.port2;
      };
    }
    // The handles ask the router, once it exists, for the front-end threads' watch revisions.
    let routerRef: ShardRouter | undefined;
    const bySlot: ResourceSpec[][] = Array.from({ length: count }, () => []);
    for (const spec of opts.resources) bySlot[shardFor(spec.groupResource, count)]!.push(spec);
    const shards = bySlot.map(
      (resources, index) =>
        new ShardHandle({
          index,
          resources,
          store: opts.store,
          connectStore,
          storeRevisionCell: storeRevision?.buffer,
          runtime: opts.runtime ?? {},
          onError: opts.onError,
          otherClientsResumeRevisions: (shard) => routerRef?.otherClientsResumeRevisions?.(shard) ?? Promise.resolve({}),
        }),
    );
    const placement = new Map<string, ShardHandle>();
    for (const shard of shards) {
      for (const spec of bySlot[shard.index]!) placement.set(spec.groupResource, shard);
    }
    const router = new ShardRouter(shards, placement, storeHost);
    routerRef = router;
    router.#storeOpenNotes = storeOpenNotes;
    router.#connectStore = connectStore;
    if (opts.store.backend === 'etcd3' && opts.compactionIntervalMs !== undefined && opts.compactionIntervalMs > 0) {
      const { EtcdStore } = await import('../src/storage/etcd/index.ts');
      const etcd = new EtcdStore({ endpoints: opts.store.endpoints, prefix: opts.store.prefix });
      const compactor = new Compactor(etcd, { intervalMs: opts.compactionIntervalMs, coordinator: etcd.compactionCoordinator() });
      compactor.start();
      router.#onClose.push(async () => {
        await compactor.stop();
        await etcd.close();
      });
    }
    try {
      await Promise.all(shards.map((s) => s.start()));
      const direct = connectStore === undefined ? [] : directWriteResources(opts.store, opts.resources);
      if (direct.length > 0) {
        router.#directResources = direct;
        router.useDirectWrites(await connectStore!(), direct);
      }
    } catch (err) {
      await router.close();
      throw err;
    }
    return router;
  }

  /**
   * Where the front-end threads' watchers on a shard stand (set by their
   * manager): a restarted shard loads its caches far enough back for them.
   */
  otherClientsResumeRevisions: ((shard: number) => Promise<Record<string, Revision>>) | undefined;

  protected endpointOf(groupResource: string): ShardEndpoint {
    return this.shardOf(groupResource);
  }

  protected endpoints(): readonly ShardEndpoint[] {
    return this.#shards;
  }

  /** Which shard serves each `<group>/<resource>` (front-end threads route by the same table). */
  placement(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [groupResource, shard] of this.#placement) out[groupResource] = shard.index;
    return out;
  }

  /** The types written directly to the store host (direct-writes.ts): a front-end thread does the same for them. */
  directWriteResources(): readonly string[] {
    return this.#directResources;
  }

  /** A new channel to the store host, for a front-end thread's DirectWrites; rejects without the embedded store. */
  connectStoreClient(): Promise<MessagePort> {
    if (this.#connectStore === undefined) return Promise.reject(new Error('no store host: the store is not the embedded one'));
    return this.#connectStore();
  }

  /** Hands `port` to shard `index` as one more client (a front-end thread's channel). */
  connectClient(index: number, port: MessagePort): Promise<void> {
    const shard = this.#shards[index];
    if (shard === undefined) return Promise.reject(new Error(`no shard ${index}`));
    return shard.connectClient(port);
  }

  shard(index: number): ShardHandle {
    return this.#shards[index]!;
  }

  shardOf(groupResource: string): ShardHandle {
    // A type outside the start-up list (a custom resource) lives where its name hashes, in every thread.
    return this.#placement.get(groupResource) ?? this.#shards[shardFor(groupResource, this.#shards.length)]!;
  }

  async close(): Promise<void> {
    this.direct?.close();
    this.direct = undefined;
    for (const f of this.#onClose.splice(0)) await f();
    await Promise.all(this.#shards.map((s) => s.close()));
    if (this.#storeHost !== null) {
      await this.#storeHost.run({ kind: 'close' } satisfies StoreHostTask).catch(() => undefined);
      await this.#storeHost.destroy();
    }
  }
}

export type { Filter, ReadMode, ResourceSpec, WatchRequestBody, WatchSink };
