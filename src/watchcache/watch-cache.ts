/**
 * WatchCache holds one resource type in memory: the current objects in key
 * order, plus a window of recent events. It is fed from the store's watch and
 * answers gets, lists (latest or as of any revision in the window) and watches
 * (from any revision in the window), in the manner of the original's cacher.
 *
 * It is single-threaded and synchronous: the shard that owns it feeds it and
 * reads it on one event loop, so a watcher's catch-up and its joining of the
 * live stream happen in one step and can neither miss nor repeat an event.
 */
import BTreeModule from 'sorted-btree';
import type { KeyValue, Revision, StoreEvent } from '../storage/interface.ts';
import { CompactedError, FutureRevisionError } from '../storage/errors.ts';
import type { CachedObject, ObjectCodec } from './cached-object.ts';
import { EventWindow, type CacheEvent, type CacheEventType, type EventWindowOptions } from './event-window.ts';
import type { Predicate } from './predicate.ts';
import { WatcherGroups, type FrameEncoders, type WatchOutput, type WatchRequest } from './watchers.ts';

// sorted-btree ships CommonJS; its class is the module's `default` member.
const BTree = BTreeModule.default;
type Tree = import('sorted-btree').default<string, CachedObject>;

/** What a range scan's callback returns to end the scan (sorted-btree's `{ break }`). */
const STOP_RANGE = { break: true } as const;

export interface WatchCacheOptions {
  /** Key prefix of the resource, with trailing slash, e.g. `/pods/`. */
  prefix: string;
  codec: ObjectCodec;
  window: EventWindowOptions;
  encoders: FrameEncoders;
  output: WatchOutput;
  now?: () => number;
  /**
   * Told the cache's revision and its count of changes each time either moves,
   * before anything else runs in this thread (shards/read-cells.ts publishes them).
   */
  publish?: ((revision: Revision, changes: number) => void) | undefined;
}

export interface CacheListOptions {
  /** Narrower key prefix inside the resource, e.g. `/pods/ns1/`. */
  keyPrefix?: string;
  /** List as of this revision (must be in the window); latest when absent. */
  revision?: Revision;
  /** First key to consider (inclusive). */
  startKey?: string;
  /** Maximum items; 0 or absent for all. */
  limit?: number;
  predicate?: Predicate;
  /**
   * Items from startKey to the end of the range, as the previous page of the
   * same list counted them (carried in its continue token): with it a page
   * need not walk the rest of the range to count what remains.
   */
  remainingFromStart?: number;
}

export interface CacheListResult {
  items: CachedObject[];
  revision: Revision;
  /** Set when more matching items exist: the last returned key. */
  lastKey?: string;
  /** Number of items after this page, when it is cheap and meaningful (no filtering). */
  remaining?: number;
  /** The items' JSON bytes in all: summed in the walk, where each object is at hand (a second pass is a cache miss per item). */
  jsonBytes: number;
  /** Their typeMetaBytes in all, summed likewise: what a list of a built-in type leaves out. */
  typeMetaBytes: number;
}

interface FreshWaiter {
  revision: Revision;
  resolve: () => void;
}

/** The state of one key as of a past revision, where the window changed it. */
type Overrides = Map<string, CachedObject | null>;

export class WatchCache {
  readonly prefix: string;
  readonly #codec: ObjectCodec;
  readonly #window: EventWindow;
  readonly #now: () => number;
  readonly #watchers: WatcherGroups;
  #objects: Tree = new BTree<string, CachedObject>();
  /**
   * The same objects by key, for point reads (each event's previous object,
   * GETs): a tree descent over 150,000 keys cost ~2-5 µs (string compares
   * missing the cache at every level), a Map lookup a fraction of that.
   */
  #byKey = new Map<string, CachedObject>();
  #revision: Revision = 0;
  /** Revision of the last change to the objects (a reset, or an event applied): the state is the same from here to #revision. */
  #changedAt: Revision = 0;
  /** Changes to the objects so far (resets and events applied): equal counts, equal objects. */
  #changes = 0;
  readonly #publish: ((revision: Revision, changes: number) => void) | undefined;
  /** Revision of the initial list; the window is complete from here. */
  #listRevision: Revision = 0;
  #ready = false;
  #freshWaiters: FreshWaiter[] = [];
  /** Objects decoded when written through this shard, reused when their event arrives. */
  #recentlyWritten = new Map<string, CachedObject>();

  constructor(opts: WatchCacheOptions) {
    this.prefix = opts.prefix;
    this.#codec = opts.codec;
    this.#window = new EventWindow(opts.window);
    this.#now = opts.now ?? Date.now;
    this.#watchers = new WatcherGroups(opts.encoders, opts.output, opts.codec);
    this.#publish = opts.publish;
  }

  /** The newest revision the cache reflects. */
  get revision(): Revision {
    return this.#revision;
  }

  /**
   * The revision of the last change to the cached objects: a list as of any
   * revision from here to `revision` has the same items (list answers are
   * shared across those revisions, see shards/list-result-cache.ts).
   */
  get changedAt(): Revision {
    return this.#changedAt;
  }

  /** How many times the objects changed (a reset or an applied event each): a read made at the same count reads the same. */
  get changes(): number {
    return this.#changes;
  }

  get ready(): boolean {
    return this.#ready;
  }

  get size(): number {
    return this.#objects.size;
  }

  get watcherCount(): number {
    return this.#watchers.count;
  }

  /** The oldest revision whose state the cache can still reproduce. */
  get oldestRevision(): Revision {
    return Math.max(this.#listRevision, this.#window.lastEvictedRevision);
  }

  get codec(): ObjectCodec {
    return this.#codec;
  }

  /**
   * Replaces the whole state with a list read at `revision`. Existing
   * watchers cannot be continued across a reset and are closed with a
   * Compacted error, which clients answer by relisting.
   */
  reset(kvs: readonly KeyValue[], revision: Revision): void {
    this.#watchers.closeAll(new CompactedError(revision, revision));
    const entries: [string, CachedObject][] = kvs.map((kv) => [
      kv.key,
      this.#codec.decode(kv.key, kv.value, kv.modRevision, kv.stale),
    ]);
    this.#objects = new BTree<string, CachedObject>(entries);
    this.#byKey = new Map(entries);
    this.#window.clear();
    this.#revision = revision;
    this.#changedAt = revision;
    this.#changes++;
    this.#listRevision = revision;
    this.#recentlyWritten.clear();
    this.#ready = true;
    this.#publish?.(this.#revision, this.#changes);
    this.#wakeFreshWaiters();
  }

  /** Remembers an object decoded by a write through the shard, to reuse it for the event. */
  rememberWritten(obj: CachedObject): void {
    if (obj.revision > this.#revision) this.#recentlyWritten.set(obj.key, obj);
  }

  /** Applies a batch of store events (revision order) and fans them out to watchers. */
  applyEvents(events: readonly StoreEvent[]): void {
    const now = this.#now();
    const batch: CacheEvent[] = [];
    for (const ev of events) {
      if (ev.revision <= this.#revision) continue; // already reflected (e.g. replay after resume)
      const prev = this.#byKey.get(ev.key) ?? null;
      let cacheEvent: CacheEvent;
      if (ev.type === 'put') {
        const remembered = this.#recentlyWritten.get(ev.key);
        let object: CachedObject;
        if (remembered !== undefined && remembered.revision === ev.revision) {
          object = remembered;
          this.#recentlyWritten.delete(ev.key);
        } else {
          object = this.#codec.decode(ev.key, ev.value!, ev.revision, ev.stale);
        }
        this.#objects.set(ev.key, object);
        this.#byKey.set(ev.key, object);
        this.#changedAt = ev.revision;
        this.#changes++;
        const type: CacheEventType = prev === null ? 'ADDED' : 'MODIFIED';
        cacheEvent = { type, revision: ev.revision, key: ev.key, object, prev, receivedAt: now };
      } else {
        this.#objects.delete(ev.key);
        this.#byKey.delete(ev.key);
        this.#changes++;
        const last =
          ev.prevValue !== null
            ? this.#codec.decode(ev.key, ev.prevValue, ev.revision)
            : prev !== null
              ? this.#codec.represent(prev, ev.revision)
              : null;
        this.#changedAt = ev.revision;
        if (last === null) {
          this.#revision = ev.revision;
          continue; // a delete of a key the cache never saw: nothing to tell anyone
        }
        cacheEvent = { type: 'DELETED', revision: ev.revision, key: ev.key, object: last, prev, receivedAt: now };
      }
      this.#window.push(cacheEvent);
      this.#revision = ev.revision;
      batch.push(cacheEvent);
    }
    if (this.#recentlyWritten.size > 1024) this.#recentlyWritten.clear();
    // Published before the fan-out: a watcher's client that reads the object next must not find it unchanged.
    this.#publish?.(this.#revision, this.#changes);
    if (batch.length > 0) this.#watchers.dispatch(batch, this.#revision);
    this.#watchers.promotePending(this.#revision, (after) => this.#window.after(after));
    this.#wakeFreshWaiters();
  }

  /** The store says every event up to `revision` has been delivered. */
  markProgress(revision: Revision): void {
    if (revision <= this.#revision) return;
    this.#revision = revision;
    this.#publish?.(this.#revision, this.#changes);
    this.#watchers.promotePending(this.#revision, (after) => this.#window.after(after));
    this.#wakeFreshWaiters();
  }

  /** Sheds expired events of a quiet resource; call periodically. */
  expire(): void {
    this.#window.expire(this.#now());
  }

  /** Resolves once the cache reflects `revision`; FutureRevisionError after `timeoutMs`. */
  waitFor(revision: Revision, timeoutMs: number): Promise<void> {
    if (this.#ready && this.#revision >= revision) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const waiter = {
        revision,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.#freshWaiters = this.#freshWaiters.filter((w) => w !== waiter);
        reject(new FutureRevisionError(revision, this.#revision));
      }, timeoutMs);
      this.#freshWaiters.push(waiter);
    });
  }

  #wakeFreshWaiters(): void {
    if (this.#freshWaiters.length === 0 || !this.#ready) return;
    const still: FreshWaiter[] = [];
    for (const w of this.#freshWaiters) {
      if (this.#revision >= w.revision) w.resolve();
      else still.push(w);
    }
    this.#freshWaiters = still;
  }

  #checkRevision(revision: Revision): void {
    if (revision > this.#revision) throw new FutureRevisionError(revision, this.#revision);
    if (revision < this.oldestRevision) throw new CompactedError(revision, this.oldestRevision);
  }

  /** For each key changed after `revision`, its state as of `revision`. */
  #overridesAt(revision: Revision): Overrides {
    const overrides: Overrides = new Map();
    for (const ev of this.#window.after(revision)) {
      if (!overrides.has(ev.key)) overrides.set(ev.key, ev.prev);
    }
    return overrides;
  }

  /** One object at the latest revision, or as of `revision` when given. */
  get(key: string, revision?: Revision): CachedObject | null {
    if (revision === undefined || revision === this.#revision) return this.#byKey.get(key) ?? null;
    this.#checkRevision(revision);
    for (const ev of this.#window.after(revision)) {
      if (ev.key === key) return ev.prev;
    }
    return this.#byKey.get(key) ?? null;
  }

  /**
   * Lists objects in key order. With a revision older than the latest, merges
   * the current tree with the window's earlier states of changed keys.
   */
  list(opts: CacheListOptions = {}): CacheListResult {
    const revision = opts.revision ?? this.#revision;
    const overrides: Overrides | null = revision === this.#revision ? null : (this.#checkRevision(revision), this.#overridesAt(revision));
    const keyPrefix = opts.keyPrefix ?? this.prefix;
    const start = opts.startKey !== undefined && opts.startKey > keyPrefix ? opts.startKey : keyPrefix;
    const limit = opts.limit !== undefined && opts.limit > 0 ? opts.limit : Infinity;
    const pred = opts.predicate;
    const items: CachedObject[] = [];
    const known = opts.remainingFromStart;
    // What remains after a page is counted only when cheap and meaningful (no filtering beyond the scope).
    const countRest = pred === undefined || pred.scopeOnly;
    let lastKey: string | undefined;
    let more = false;
    let remaining = 0;
    let jsonBytes = 0;
    let typeMetaBytes = 0;
    /** Takes one object of the range in key order; false stops the walk. */
    const visit = (obj: CachedObject): boolean => {
      if (pred !== undefined && !pred.matches(obj)) return true;
      if (more) {
        remaining++;
        return true;
      }
      if (items.length >= limit) {
        more = true;
        remaining = 1; // the item that stopped the page
        return countRest && !(known !== undefined && known - items.length > 0);
      }
      items.push(obj);
      jsonBytes += obj.jsonLength;
      typeMetaBytes += obj.typeMetaBytes;
      lastKey = obj.key;
      return true;
    };
    if (overrides === null) this.#walkLatest(keyPrefix, start, visit);
    else for (const obj of this.#iterate(keyPrefix, start, overrides)) if (!visit(obj)) break;
    const result: CacheListResult = { items, revision, jsonBytes, typeMetaBytes };
    if (more) {
      result.lastKey = lastKey!;
      if (countRest) result.remaining = known !== undefined && known - items.length > 0 ? known - items.length : remaining;
    }
    return result;
  }

  /**
   * The current objects under keyPrefix from `start`, in key order, each to
   * `visit` until it returns false. The tree's own range scan visits a leaf's
   * values without reading their keys (it finds the range's ends in each leaf
   * by binary search): over 50,000 objects, reading every key string to test
   * its prefix was a cache miss per item, a third of a LIST's walk. Keys
   * under the prefix that sort at or above its bound (names holding U+FFFF)
   * are walked after, by the iterator.
   */
  #walkLatest(keyPrefix: string, start: string, visit: (obj: CachedObject) => boolean): void {
    const bound = keyPrefix + '\uffff';
    let stopped = false;
    if (start < bound) {
      this.#objects.forRange(start, bound, false, (_key, obj) => {
        if (visit(obj)) return undefined;
        stopped = true;
        return STOP_RANGE;
      });
    }
    if (stopped) return;
    for (const [key, obj] of this.#objects.entries(start < bound ? bound : start)) {
      if (!key.startsWith(keyPrefix) || !visit(obj)) return;
    }
  }

  /** Objects under keyPrefix from `start`, in key order, as of the overrides' revision. */
  *#iterate(keyPrefix: string, start: string, overrides: Overrides | null): Generator<CachedObject, void, undefined> {
    const extra: CachedObject[] = [];
    if (overrides !== null) {
      for (const [key, obj] of overrides) {
        if (obj !== null && key >= start && key.startsWith(keyPrefix)) extra.push(obj);
      }
      extra.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    }
    let e = 0;
    for (const [key, obj] of this.#objects.entries(start)) {
      if (!key.startsWith(keyPrefix)) break;
      while (e < extra.length && extra[e]!.key < key) yield extra[e++]!;
      if (overrides !== null && overrides.has(key)) {
        const then = overrides.get(key)!;
        if (then !== null) {
          if (e < extra.length && extra[e]!.key === key) e++;
          yield then;
        }
        continue;
      }
      yield obj;
    }
    while (e < extra.length) yield extra[e++]!;
  }

  /**
   * Starts a watch. With `startRevision` null the watcher first receives a
   * synthetic ADDED for every matching object at the cache's revision. With a
   * revision it receives every matching event after it: at once if the window
   * covers it, once the cache reaches it if it is ahead. Throws CompactedError
   * for a revision older than the window.
   */
  watch(req: WatchRequest): void {
    if (req.startRevision === null) {
      const snapshot = this.list({ predicate: req.predicate }).items;
      this.#watchers.addWithInitialState(req, snapshot, this.#revision);
      return;
    }
    if (req.startRevision < this.oldestRevision) {
      throw new CompactedError(req.startRevision, this.oldestRevision);
    }
    if (req.startRevision > this.#revision) {
      this.#watchers.addPending(req);
      return;
    }
    this.#watchers.addFrom(req, this.#window.after(req.startRevision), this.#revision);
  }

  /** Stops a watcher; its output gets nothing more. */
  unwatch(id: number): void {
    this.#watchers.remove(id);
  }

  /** Sends a bookmark at the current revision to every watcher that asked for them. */
  bookmark(): void {
    this.#watchers.bookmark(this.#revision);
  }

  /** Ends every watcher with `error` (e.g. when the cache must be rebuilt). */
  closeAllWatchers(error: Error): void {
    this.#watchers.closeAll(error);
  }

  /** Decodes an object written through the shard (and remembers it for its event). */
  decodeWritten(kv: KeyValue): CachedObject {
    const obj = this.#codec.decode(kv.key, kv.value, kv.modRevision);
    this.rememberWritten(obj);
    return obj;
  }
}

