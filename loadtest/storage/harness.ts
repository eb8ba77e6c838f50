/**
 * Per-backend state shared by the sections: one ShardRouter (started on
 * first use) over a key space of its own, the list data sets it was filled
 * with, and the memory it took to hold them.
 */
import { ShardRouter } from '../../shards/router.ts';
import { testResources } from '../../test/support/shard-fixtures.ts';
import type { Revision } from '../../src/storage/interface.ts';
import type { BenchBackend, RouterStore } from './backends.ts';
import { ObjectFactory } from './objects.ts';
import { drive, waitUntil } from '../lib/timer.ts';
import { settledRss } from '../lib/memory.ts';

export const RESOURCE = '/configmaps';
export const PREFIX = '/configmaps/';

export interface Population {
  readonly objects: number;
  /** Process RSS (all threads) before and after, bytes. */
  readonly rssBefore: number;
  readonly rssAfter: number;
  /** The backend's own process (etcd), bytes; null when none. */
  readonly serverRssBefore: number | null;
  readonly serverRssAfter: number | null;
  readonly createRate: number;
}

export class BackendHarness {
  readonly backend: BenchBackend;
  #router: ShardRouter | null = null;
  #routerStore: RouterStore | null = null;
  #starting: Promise<ShardRouter> | null = null;
  readonly #datasets = new Map<string, number>();
  population: Population | null = null;

  constructor(backend: BenchBackend) {
    this.backend = backend;
  }

  router(): Promise<ShardRouter> {
    if (this.#router !== null) return Promise.resolve(this.#router);
    this.#starting ??= (async () => {
      const rs = await this.backend.routerStore('router');
      this.#routerStore = rs;
      // Default shard count (the CPU count) and runtime options: the real path.
      const router = await ShardRouter.start({ resources: testResources, store: rs.config });
      this.#router = router;
      return router;
    })();
    return this.#starting;
  }

  /** The store's current revision, read through the router (a consistent read). */
  async revision(): Promise<Revision> {
    const router = await this.router();
    const reply = await router.list(RESOURCE, { kind: 'latest' }, { namespace: 'no-such-namespace' });
    return reply.revision;
  }

  /** Waits until a consistent list of `namespace` counts `n` objects (the cache has them all). */
  async awaitCount(namespace: string, n: number): Promise<void> {
    const router = await this.router();
    await waitUntil(
      async () => (await router.list(RESOURCE, { kind: 'latest' }, { namespace })).count >= n,
      `${n} objects of ${namespace} in the cache`,
      60_000,
      50,
    );
  }

  /** Creates `n` objects in `namespace` through the router (concurrency 128), once per namespace. */
  async dataset(namespace: string, n: number): Promise<number> {
    if ((this.#datasets.get(namespace) ?? 0) >= n) return 0;
    const router = await this.router();
    const factory = new ObjectFactory(namespace);
    const res = await drive({ concurrency: 128, count: n, latencies: false }, (i) =>
      router.create(RESOURCE, factory.key(PREFIX, i), factory.bytes(i)),
    );
    await this.awaitCount(namespace, n);
    this.#datasets.set(namespace, n);
    return res.rate;
  }

  /**
   * Creates the list data sets (namespace -> object count), measuring the
   * process RSS around the first time this runs.
   */
  async listData(sets: ReadonlyArray<readonly [string, number]>): Promise<void> {
    const todo = sets.filter(([ns, n]) => (this.#datasets.get(ns) ?? 0) < n);
    if (todo.length === 0) return;
    await this.router();
    const measure = this.population === null;
    const rssBefore = measure ? await settledRss() : 0;
    const serverRssBefore = measure ? this.backend.serverRss() : null;
    let objects = 0;
    let rateSum = 0;
    for (const [ns, n] of todo) {
      rateSum += (await this.dataset(ns, n)) * n;
      objects += n;
    }
    if (measure) {
      this.population = {
        objects,
        rssBefore,
        rssAfter: await settledRss(),
        serverRssBefore,
        serverRssAfter: this.backend.serverRss(),
        createRate: rateSum / objects,
      };
    }
  }

  async close(): Promise<void> {
    const router = this.#router ?? (this.#starting ? await this.#starting.catch(() => null) : null);
    this.#router = null;
    this.#starting = null;
    await router?.close();
    await this.#routerStore?.dispose();
    this.#routerStore = null;
  }
}
