/**
 * Timers for delays that may exceed what Node's setTimeout can hold. Node
 * stores delays as 32-bit signed milliseconds: anything above 2^31-1 ms
 * (about 24.8 days) is replaced by 1 ms and fires at once, with only a
 * warning. A client-chosen delay (a watch's timeoutSeconds) or a large flag
 * value must never turn into "now", so such delays are armed in steps of at
 * most MAX_TIMER_MS until the whole delay has passed.
 */

/** The largest delay setTimeout honours. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export interface LongTimer {
  /** Stops the timer; the callback will not run. Safe to call more than once. */
  cancel(): void;
}

/**
 * Runs `fn` once after `ms` milliseconds (negative or NaN: as soon as
 * possible; Infinity: never). `unref` keeps the timer from holding the
 * process open.
 */
export function setLongTimeout(fn: () => void, ms: number, options: { unref?: boolean } = {}): LongTimer {
  let handle: NodeJS.Timeout | undefined;
  let cancelled = false;
  const due = Number.isNaN(ms) ? 0 : Math.max(0, ms);
  // Each step is a delay Node honours exactly, so what is left after a step
  // is simply the rest: no clock to read.
  const arm = (remaining: number): void => {
    if (remaining === Infinity) return;
    const step = Math.min(remaining, MAX_TIMER_MS);
    handle = setTimeout(() => {
      if (cancelled) return;
      if (remaining > step) arm(remaining - step);
      else fn();
    }, step);
    if (options.unref) handle.unref();
  };
  arm(due);
  return {
    cancel() {
      cancelled = true;
      if (handle !== undefined) clearTimeout(handle);
    },
  };
}
