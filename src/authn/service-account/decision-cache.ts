/**
 * Cached service-account token decisions, revoked by the change feeds.
 *
 * A decision (token hash -> user) depends on a few objects: the service
 * account, and the pod or secret a bound token names (or, for a legacy
 * token, its secret). The decision is kept in a bounded TtlLruCache until the
 * token expires, and an index from each object to the decisions that depend
 * on it lets a change feed event drop exactly those decisions at once: the
 * object deleted, replaced (another uid), marked for deletion, or — for a
 * legacy token's secret, whose content is the token — modified at all. So a
 * request with a cached token costs one hash and one map lookup, never a
 * store or cache read, and revocation does not wait for a TTL.
 *
 * Two races are closed:
 * - a decision made from reads that a change overtook (the object was
 *   deleted between our read and our insert) is not cached: every change
 *   bumps a sequence number and is remembered in a short ring, and an insert
 *   checks the ring for changes to its objects since its reads began;
 * - a `reset` of a feed (its watch was lost: events may be missing) drops
 *   every decision, and anything in flight is not cached.
 */
import { TtlLruCache } from '../cache.ts';
import type { AuthnResource, ObjectChange } from '../object-source.ts';
import type { UserInfo } from '../../server/context.ts';

export interface Dependency {
  readonly resource: AuthnResource;
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  /** Any modification revokes (a legacy token's secret holds the token itself). */
  readonly anyChange?: boolean;
}

/** What a cached decision answers: the user, and the audiences the token is valid for (of those asked). */
export interface CachedUser {
  readonly user: UserInfo;
  readonly audiences: readonly string[];
}

interface Decision {
  readonly answer: CachedUser;
  readonly deps: readonly Dependency[];
}

/** Changes remembered for in-flight decisions; more than this during one verification means "do not cache". */
const RING_SIZE = 256;

function depKey(resource: string, namespace: string, name: string): string {
  return `${resource}\u0000${namespace}\u0000${name}`;
}

export class DecisionCache {
  readonly #cache: TtlLruCache<string, Decision>;
  readonly #index = new Map<string, Set<string>>();
  #indexed = 0;
  readonly #maxEntries: number;
  #seq = 0;
  #resetSeq = 0;
  readonly #ring: Array<{ seq: number; key: string }> = [];
  #ringAt = 0;

  constructor(options: { maxEntries: number; now?: () => number }) {
    this.#maxEntries = options.maxEntries;
    this.#cache = new TtlLruCache({ maxEntries: options.maxEntries, ...(options.now ? { now: options.now } : {}) });
  }

  get size(): number {
    return this.#cache.size;
  }

  get(key: string): CachedUser | undefined {
    return this.#cache.get(key)?.answer;
  }

  /** A marker taken before the reads a decision rests on. */
  begin(): number {
    return this.#seq;
  }

  /** Caches a decision unless a change to one of its objects (or a reset) came after `startedAt`. */
  set(key: string, answer: CachedUser, deps: readonly Dependency[], expiresAt: number, startedAt: number): boolean {
    if (this.#overtaken(deps, startedAt)) return false;
    this.#cache.set(key, { answer, deps }, expiresAt);
    for (const d of deps) {
      const k = depKey(d.resource, d.namespace, d.name);
      let set = this.#index.get(k);
      if (set === undefined) this.#index.set(k, (set = new Set()));
      if (!set.has(key)) {
        set.add(key);
        this.#indexed++;
      }
    }
    // Entries the LRU dropped or that expired stay in the index until their
    // object changes; prune when the index outgrows the cache.
    if (this.#indexed > 2 * this.#maxEntries + 1024) this.#prune();
    return true;
  }

  /** Feeds one change of a resource the decisions may depend on. */
  onChange(resource: AuthnResource, change: ObjectChange): void {
    this.#seq++;
    if (change.type === 'reset') {
      this.#resetSeq = this.#seq;
      this.#cache.clear();
      this.#index.clear();
      this.#indexed = 0;
      return;
    }
    const k = depKey(resource, change.namespace, change.name);
    this.#ring[this.#ringAt] = { seq: this.#seq, key: k };
    this.#ringAt = (this.#ringAt + 1) % RING_SIZE;
    const keys = this.#index.get(k);
    if (keys === undefined) return;
    const deleting = change.type === 'DELETED' || Boolean(change.object.metadata.deletionTimestamp);
    for (const key of keys) {
      const decision = this.#cache.get(key);
      const dep = decision?.deps.find((d) => d.resource === resource && d.namespace === change.namespace && d.name === change.name);
      if (decision !== undefined && dep !== undefined && !deleting && dep.uid === change.uid && !(dep.anyChange && change.type === 'MODIFIED')) continue;
      this.#cache.delete(key);
      keys.delete(key);
      this.#indexed--;
    }
    if (keys.size === 0) this.#index.delete(k);
  }

  #overtaken(deps: readonly Dependency[], startedAt: number): boolean {
    if (this.#resetSeq > startedAt) return true;
    if (this.#seq === startedAt) return false;
    // More changes than the ring holds: we cannot tell which; do not cache.
    if (this.#seq - startedAt > RING_SIZE) return true;
    const wanted = new Set(deps.map((d) => depKey(d.resource, d.namespace, d.name)));
    for (const entry of this.#ring) {
      if (entry !== undefined && entry.seq > startedAt && wanted.has(entry.key)) return true;
    }
    return false;
  }

  #prune(): void {
    this.#indexed = 0;
    for (const [k, keys] of this.#index) {
      for (const key of keys) if (this.#cache.get(key) === undefined) keys.delete(key);
      if (keys.size === 0) this.#index.delete(k);
      else this.#indexed += keys.size;
    }
  }
}
