/**
 * AllocationTransaction: what one service write took from and gives back to
 * the ranges. Values are reserved at once (in the store) and released again
 * on revert; values the write frees are released only on commit, so a
 * failed write leaves everything as it was (the original's
 * callbackTransaction and PortAllocationOperation). A dry run reserves in a
 * private copy of each range and writes nothing.
 */
import type { AllocationBitmap } from './bitmap.ts';
import { AllocationError, RANGE_FULL } from './ranges.ts';
import type { StoredRange } from './stored-range.ts';
import type { WriteTransaction } from '../write-hooks.ts';

export type ReleaseFailure = (key: string, values: readonly unknown[], err: unknown) => void;

export class AllocationTransaction implements WriteTransaction {
  readonly #dryRun: boolean;
  readonly #onReleaseFailure: ReleaseFailure;
  readonly #taken = new Map<StoredRange<never>, unknown[]>();
  readonly #freeOnCommit = new Map<StoredRange<never>, unknown[]>();
  readonly #dryViews = new Map<StoredRange<never>, AllocationBitmap>();

  constructor(dryRun: boolean, onReleaseFailure: ReleaseFailure) {
    this.#dryRun = dryRun;
    this.#onReleaseFailure = onReleaseFailure;
  }

  /** Reserves `value`, or any free value when it is undefined; answers what was reserved. */
  async take<V>(range: StoredRange<V>, value: V | undefined): Promise<V> {
    let got: V;
    if (this.#dryRun) {
      got = await this.#dryTake(range, value);
    } else if (value === undefined) {
      got = await range.allocateNext();
    } else {
      await range.allocate(value);
      got = value;
    }
    push(this.#taken, range, got);
    return got;
  }

  /** Frees `value` once the write has succeeded. */
  releaseOnCommit<V>(range: StoredRange<V>, value: V): void {
    push(this.#freeOnCommit, range, value);
  }

  async #dryTake<V>(range: StoredRange<V>, value: V | undefined): Promise<V> {
    const key = range as unknown as StoredRange<never>;
    let view = this.#dryViews.get(key);
    if (view === undefined) {
      view = (await range.refresh()).bitmap;
      this.#dryViews.set(key, view);
    }
    if (value === undefined) {
      const at = view.allocateNext();
      if (at === undefined) throw new AllocationError('Full', RANGE_FULL);
      return range.range.valueAt(at);
    }
    if (!view.allocate(range.range.offsetOf(value))) throw range.range.allocatedError();
    return value;
  }

  async commit(): Promise<void> {
    this.#taken.clear();
    await this.#release(this.#freeOnCommit);
  }

  async revert(): Promise<void> {
    this.#freeOnCommit.clear();
    await this.#release(this.#taken);
  }

  async #release(what: Map<StoredRange<never>, unknown[]>): Promise<void> {
    const batches = [...what];
    what.clear();
    if (this.#dryRun) return;
    for (const [range, values] of batches) {
      try {
        await (range as StoredRange<unknown>).release(values);
      } catch (err) {
        // Left allocated: the repair pass frees it later.
        this.#onReleaseFailure(range.key, values, err);
      }
    }
  }
}

function push(map: Map<StoredRange<never>, unknown[]>, range: StoredRange<unknown>, value: unknown): void {
  const key = range as unknown as StoredRange<never>;
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}
