/**
 * Scheduled compaction for any {@link Store}, after kube-apiserver's compactor
 * (k8s.io/apiserver pkg/storage/etcd3/compact.go).
 *
 * Every interval the compactor compacts to the revision it recorded at its
 * previous tick, so at least one interval of history always survives: a
 * client that listed less than one interval ago can still watch from its
 * list's revision.
 *
 * Several API server processes on one store must not each compact every
 * interval. They share a compaction clock held by a {@link CompactionCoordinator}:
 * at each tick a process tries to advance the clock from the value it last
 * saw. The first process in an interval succeeds and compacts; the others find
 * the clock moved, adopt its value and the current revision, and try again
 * next interval. A process that keeps winning compacts once per interval; the
 * losers' recorded revisions are always at least one interval old when they
 * do win, so the guarantee above holds whoever compacts.
 */
import type { Revision, Store } from './interface.ts';

export interface CompactionClaim {
  /** This caller advanced the clock and may compact. */
  readonly won: boolean;
  /** The clock's value now. */
  readonly clock: number;
  /** The store's revision at the moment of the claim. */
  readonly revision: Revision;
}

export interface CompactionCoordinator {
  /**
   * Atomically advance the shared clock from `expectedClock` to
   * `expectedClock + 1`, recording `revision` (the compaction target, for
   * operators). If the clock is elsewhere, change nothing and report it.
   */
  claim(expectedClock: number, revision: Revision): Promise<CompactionClaim>;
}

/** A coordinator for a store only this process compacts: the clock lives in memory. */
export function localCompactionCoordinator(store: Store): CompactionCoordinator {
  let clock = 0;
  return {
    async claim(expectedClock) {
      const revision = await store.currentRevision();
      if (expectedClock !== clock) return { won: false, clock, revision };
      clock++;
      return { won: true, clock, revision };
    },
  };
}

export const DEFAULT_COMPACTION_INTERVAL_MS = 5 * 60_000;

export interface CompactorOptions {
  /** Time between ticks; default 5 minutes, as kube-apiserver's --etcd-compaction-interval. */
  readonly intervalMs?: number;
  /** Default: {@link localCompactionCoordinator}. Use the backend's shared one with several processes. */
  readonly coordinator?: CompactionCoordinator;
  /** Called after this process compacted. */
  readonly onCompact?: (revision: Revision, clock: number) => void;
  /** Called when a tick failed; the compactor carries on at the next tick. */
  readonly onError?: (error: unknown) => void;
}

export class Compactor {
  readonly #store: Store;
  readonly #intervalMs: number;
  readonly #coordinator: CompactionCoordinator;
  readonly #options: CompactorOptions;
  /** The clock value this process last saw. */
  #clock = 0;
  /** The store revision recorded at the previous tick: the next compaction target. */
  #recorded: Revision = 0;
  #timer: NodeJS.Timeout | null = null;
  #inFlight: Promise<unknown> | null = null;

  constructor(store: Store, options: CompactorOptions = {}) {
    this.#store = store;
    this.#intervalMs = options.intervalMs ?? DEFAULT_COMPACTION_INTERVAL_MS;
    this.#coordinator = options.coordinator ?? localCompactionCoordinator(store);
    this.#options = options;
  }

  /** Start ticking every interval (the first tick one interval from now). */
  start(): void {
    if (this.#timer) return;
    this.#schedule();
  }

  /** Stop ticking; resolves when a tick in progress has finished. */
  async stop(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    await this.#inFlight;
  }

  get running(): boolean {
    return this.#timer !== null;
  }

  /**
   * One tick: claim the interval and, if won, compact to the revision recorded
   * at the previous tick. Resolves with the compacted revision, or null.
   */
  async tick(): Promise<Revision | null> {
    const claim = await this.#coordinator.claim(this.#clock, this.#recorded);
    const target = this.#recorded;
    // Adopt the clock and revision whether or not we won, as kube-apiserver
    // does, so a loser's next target is this moment, one interval old by then.
    this.#clock = claim.clock;
    this.#recorded = claim.revision;
    // Nothing recorded yet (first tick): never compact on bootstrap.
    if (!claim.won || target === 0) return null;
    await this.#store.compact(target);
    this.#options.onCompact?.(target, claim.clock);
    return target;
  }

  #schedule(): void {
    // setTimeout rather than setInterval: a slow tick never overlaps the next.
    this.#timer = setTimeout(() => {
      const run = this.tick()
        .catch((err: unknown) => this.#options.onError?.(err))
        .finally(() => {
          this.#inFlight = null;
          if (this.#timer) this.#schedule();
        });
      this.#inFlight = run;
    }, this.#intervalMs);
    // A compactor alone must not keep a process alive.
    this.#timer.unref();
  }
}
