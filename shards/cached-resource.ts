/**
 * CachedResource keeps one resource type's watch cache fed from the store:
 * it lists the type at one revision, page by page, then watches from there.
 * After a store failure it resumes the watch from the cache's revision; when
 * the cache cannot follow (history compacted, a stored value it cannot
 * decode) it rebuilds it, ending its watchers. Retries back off while they
 * keep failing, so one broken resource cannot keep its shard busy.
 */
import type { KeyValue, Revision, Store, StoreWatch } from '../src/storage/interface.ts';
import { CompactedError } from '../src/storage/errors.ts';
import type { WatchCache } from '../src/watchcache/watch-cache.ts';
import type { JsonObjectCodec } from '../src/watchcache/json-codec.ts';
import type { GroupVersionKind } from '../src/openapi/schema-dsl.ts';
import type { ResourceSpec } from './protocol.ts';

/** A progress request unanswered this long (a lost answer) no longer holds back new ones. */
const PROGRESS_ANSWER_MS = 1_000;

export interface CachedResourceOptions {
  store: Store;
  /** Page size when loading from the store. */
  loadPageSize: number;
  /**
   * Load the first time as of this revision instead of the latest, so that
   * watchers resuming after a shard restart find their next events in the
   * window (the latest state if the store compacted it).
   */
  resumeAt?: Revision | undefined;
  /** Its slot in the shard's ReadCells (read-cells.ts), where the cache publishes how far it is. */
  readSlot?: number | undefined;
}

/**
 * Wait before retrying a resource's store watch or load: 500 ms, doubling
 * with each consecutive failure up to 30 s (a corrupt stored value fails
 * every reload until it is gone).
 */
export function retryDelayMs(failures: number): number {
  return Math.min(500 * 2 ** Math.max(0, failures - 1), 30_000);
}

export class CachedResource {
  /** Loading or re-loading; reads wait on it. */
  loading: Promise<void> | null = null;
  /** See CachedResourceOptions.readSlot. */
  readonly readSlot: number | undefined;
  readonly #store: Store;
  readonly #loadPageSize: number;
  #resumeAt: Revision | undefined;
  #watch: StoreWatch | null = null;
  #retryTimer: NodeJS.Timeout | null = null;
  /** Consecutive failures to load or feed the cache (see retryDelayMs). */
  #failures = 0;
  #closed = false;
  /** A progress request is outstanding; concurrent reads share it. */
  #progressPending = false;
  /** A read asked while one was outstanding: its answer may predate that read, so ask once more after it. */
  #progressAgain = false;
  /** When the outstanding request was sent (performance.now()): one unanswered for a second is asked again. */
  #progressSentAt = 0;

  constructor(
    readonly spec: ResourceSpec,
    readonly codec: JsonObjectCodec,
    readonly gvk: GroupVersionKind,
    readonly cache: WatchCache,
    opts: CachedResourceOptions,
  ) {
    this.#store = opts.store;
    this.#loadPageSize = opts.loadPageSize;
    this.#resumeAt = opts.resumeAt;
    this.readSlot = opts.readSlot;
  }

  /** Lists the resource at one revision, then watches from it; on failure retries later (never rejects). */
  load(): Promise<void> {
    const run = async (): Promise<void> => {
      this.#watch?.close();
      this.#watch = null;
      const resumeAt = this.#resumeAt;
      this.#resumeAt = undefined; // only the first load resumes
      let loaded: { kvs: KeyValue[]; revision: Revision };
      try {
        loaded = await this.#loadPages(resumeAt);
      } catch (err) {
        if (!(err instanceof CompactedError) || resumeAt === undefined) throw err;
        loaded = await this.#loadPages(undefined);
      }
      if (this.#closed) return;
      this.cache.reset(loaded.kvs, loaded.revision);
      this.#watchFrom(loaded.revision);
    };
    const p = run().then(
      () => {
        if (this.loading === p) this.loading = null;
        this.#failures = 0;
      },
      () => {
        if (this.loading === p) this.loading = null;
        this.#failures++;
        this.#retryLater();
      },
    );
    this.loading = p;
    return p;
  }

  /**
   * Asks the store's watch to confirm progress, once for all reads waiting on
   * revisions up to `revision` (a progress request can cost store writes on
   * old etcd versions, so concurrent consistent reads share one).
   */
  requestProgress(revision: Revision): void {
    if (revision <= this.cache.revision) return;
    if (this.#progressPending && performance.now() - this.#progressSentAt < PROGRESS_ANSWER_MS) {
      this.#progressAgain = true;
      return;
    }
    // Pending until the next progress answer, whatever revision it carries: a read of a revision the store
    // has not reached (a client's future resourceVersion) must not keep later reads from asking again.
    this.#sendProgressRequest();
  }

  #sendProgressRequest(): void {
    this.#progressPending = this.#watch !== null;
    this.#progressSentAt = performance.now();
    this.#watch?.requestProgress();
  }

  #progressAnswered(): void {
    this.#progressPending = false;
    if (!this.#progressAgain) return;
    this.#progressAgain = false;
    this.#sendProgressRequest();
  }

  /** Stops the watch and any retry; the cache is left as it is. */
  close(): void {
    this.#closed = true;
    this.#watch?.close();
    this.#watch = null;
    if (this.#retryTimer !== null) clearTimeout(this.#retryTimer);
    this.#retryTimer = null;
  }

  /** Reads the whole prefix at one revision (the latest when none is given), page by page. */
  async #loadPages(at: Revision | undefined): Promise<{ kvs: KeyValue[]; revision: Revision }> {
    const kvs: KeyValue[] = [];
    let revision = at;
    let startKey: string | undefined;
    for (;;) {
      const page = await this.#store.range(this.spec.prefix, {
        limit: this.#loadPageSize,
        ...(revision !== undefined ? { revision } : {}),
        ...(startKey !== undefined ? { startKey } : {}),
      });
      revision = page.revision;
      kvs.push(...page.kvs);
      if (!page.more || page.kvs.length === 0) break;
      startKey = page.kvs.at(-1)!.key + '\x00';
    }
    return { kvs, revision: revision! };
  }

  #watchFrom(after: Revision): void {
    // An outstanding progress request died with the old watch.
    this.#progressPending = false;
    this.#progressAgain = false;
    this.#watch = this.#store.watch(this.spec.prefix, after, {
      onEvents: (events) => this.#feed(() => this.cache.applyEvents(events)),
      onProgress: (revision) => {
        this.#feed(() => this.cache.markProgress(revision));
        this.#progressAnswered();
      },
      onError: (err) => {
        this.#watch = null;
        if (this.#closed) return;
        if (err instanceof CompactedError) {
          // History we need is gone: rebuild; the reset ends current watchers with 410.
          void this.load();
        } else {
          this.#retryLater();
        }
      },
    });
  }

  /**
   * Feeds the store watch's output to the cache. Encoding failures end only
   * the watchers concerned (see WatcherGroups); anything that still escapes
   * (a stored value the codec cannot decode) means the cache has fallen
   * behind the store: its watchers end with the error and it is rebuilt,
   * while the shard and its other resources carry on.
   */
  #feed(apply: () => void): void {
    try {
      apply();
    } catch (err) {
      if (this.#closed) return;
      this.#watch?.close();
      this.#watch = null;
      this.cache.closeAllWatchers(err instanceof Error ? err : new Error(String(err)));
      this.#failures++;
      this.#later(() => void this.load());
    }
  }

  /** After a store failure: resume the watch from the cache's revision, or load if it has none. */
  #retryLater(): void {
    this.#later(() => {
      if (this.cache.ready) this.#watchFrom(this.cache.revision);
      else void this.load();
    });
  }

  #later(retry: () => void): void {
    if (this.#closed || this.#retryTimer !== null) return;
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = null;
      if (!this.#closed) retry();
    }, retryDelayMs(this.#failures));
  }
}
