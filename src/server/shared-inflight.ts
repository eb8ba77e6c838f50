/**
 * In-flight counts shared by every serving thread of the process, in a
 * SharedArrayBuffer: `--max-requests-inflight` and
 * `--max-mutating-requests-inflight` bound the process, as they do with one
 * thread. The check and the increment are two atomic steps, so threads
 * racing at the limit may pass it by at most one request each.
 */
import type { InflightCounts, InflightSnapshot } from './filters/with-max-inflight.ts';

const READ_ONLY = 0;
const MUTATING = 1;
const READ_ONLY_MAX = 2;
const MUTATING_MAX = 3;

/** Bytes of the shared buffer: create once, hand to every thread. */
export const SHARED_INFLIGHT_BYTES = 4 * Int32Array.BYTES_PER_ELEMENT;

export class SharedInflightCounter implements InflightCounts {
  readonly #cells: Int32Array;

  constructor(buffer: SharedArrayBuffer) {
    this.#cells = new Int32Array(buffer, 0, 4);
  }

  get readOnly(): number {
    return Atomics.load(this.#cells, READ_ONLY);
  }

  get mutating(): number {
    return Atomics.load(this.#cells, MUTATING);
  }

  add(mutating: boolean, delta: 1 | -1): void {
    const at = mutating ? MUTATING : READ_ONLY;
    const now = Atomics.add(this.#cells, at, delta) + delta;
    if (delta > 0) raiseTo(this.#cells, mutating ? MUTATING_MAX : READ_ONLY_MAX, now);
  }

  /** The peaks since the last call, over all threads; the next period starts from the current counts. */
  takeWatermark(): InflightSnapshot {
    const readOnly = Atomics.exchange(this.#cells, READ_ONLY_MAX, Atomics.load(this.#cells, READ_ONLY));
    const mutating = Atomics.exchange(this.#cells, MUTATING_MAX, Atomics.load(this.#cells, MUTATING));
    return { readOnly, mutating };
  }
}

/** Sets cells[at] to max(cells[at], value) atomically. */
function raiseTo(cells: Int32Array, at: number, value: number): void {
  for (;;) {
    const cur = Atomics.load(cells, at);
    if (cur >= value || Atomics.compareExchange(cells, at, cur, value) === cur) return;
  }
}
