/**
 * A controller's queue of keys (the original's rate-limited work queue, cut
 * down): a key queued several times is worked once, keys are worked one at a
 * time, a failed key comes back after a growing delay (5 ms doubling to
 * 60 s), and addAfter queues a key at a later time (expirations).
 */
export type SyncFn = (key: string) => Promise<void>;

const BASE_DELAY_MS = 5;
const MAX_DELAY_MS = 60_000;

export class WorkQueue {
  readonly #sync: SyncFn;
  readonly #onError: (key: string, err: unknown) => void;
  readonly #queue = new Set<string>();
  readonly #failures = new Map<string, number>();
  readonly #timers = new Map<string, { timer: NodeJS.Timeout; due: number }>();
  #running = false;
  #stopped = false;
  #idle: Promise<void> = Promise.resolve();

  constructor(sync: SyncFn, onError: (key: string, err: unknown) => void) {
    this.#sync = sync;
    this.#onError = onError;
  }

  add(key: string): void {
    if (this.#stopped) return;
    this.#queue.add(key);
    if (!this.#running) this.#idle = this.#drain();
  }

  /** Queues `key` after `delayMs` (an earlier pending timer for it is kept if sooner). */
  addAfter(key: string, delayMs: number): void {
    if (this.#stopped) return;
    if (delayMs <= 0) return this.add(key);
    const due = Date.now() + delayMs;
    const prev = this.#timers.get(key);
    if (prev !== undefined) {
      if (prev.due <= due) return;
      clearTimeout(prev.timer);
    }
    // setTimeout holds at most 2^31-1 ms; a later time is reached in steps.
    const wait = Math.min(delayMs, 2 ** 31 - 1);
    const t = setTimeout(() => {
      this.#timers.delete(key);
      if (wait < delayMs) this.addAfter(key, delayMs - wait);
      else this.add(key);
    }, wait);
    t.unref();
    this.#timers.set(key, { timer: t, due });
  }

  /** Waits for the keys queued so far to be worked (tests). */
  async drained(): Promise<void> {
    while (this.#running) await this.#idle;
  }

  /** Takes keys again after stop() (a controller that leads again). */
  resume(): void {
    this.#stopped = false;
  }

  stop(): void {
    this.#stopped = true;
    this.#queue.clear();
    for (const t of this.#timers.values()) clearTimeout(t.timer);
    this.#timers.clear();
  }

  async #drain(): Promise<void> {
    this.#running = true;
    try {
      while (this.#queue.size > 0 && !this.#stopped) {
        const key = this.#queue.values().next().value!;
        this.#queue.delete(key);
        try {
          await this.#sync(key);
          this.#failures.delete(key);
        } catch (err) {
          if (this.#stopped) break;
          const n = (this.#failures.get(key) ?? 0) + 1;
          this.#failures.set(key, n);
          this.#onError(key, err);
          this.addAfter(key, Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** Math.min(n, 20)));
        }
      }
    } finally {
      this.#running = false;
    }
  }
}
