/**
 * StoredRange: an allocator whose truth is a RangeAllocation record in the
 * store (the original's allocator/storage Etcd type). Every change is
 * applied to a copy of the last bitmap this server saw and written with
 * compare-and-swap on that record's revision; when another server wrote in
 * between, the record is read again and the change retried. Changes made on
 * this server are queued so they do not race each other.
 */
import { AllocationBitmap, type RandomInt } from './bitmap.ts';
import { AllocationError, RANGE_FULL, type OffsetRange } from './ranges.ts';
import { RangeConflictError, type RangeRecord, type RangeRecordStore } from './range-store.ts';

const MAX_ATTEMPTS = 64;

export class StoredRange<V> {
  readonly range: OffsetRange<V>;
  readonly key: string;
  readonly #store: RangeRecordStore;
  readonly #random: RandomInt | undefined;
  /** The last state read or written; revision 0 means the record does not exist yet. */
  #known: { bitmap: AllocationBitmap; revision: number } | null = null;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(range: OffsetRange<V>, key: string, store: RangeRecordStore, random?: RandomInt) {
    this.range = range;
    this.key = key;
    this.#store = store;
    this.#random = random;
  }

  /** An empty bitmap shaped for this range. */
  emptyBitmap(): AllocationBitmap {
    return new AllocationBitmap(this.range.size, this.range.staticSize, this.#random);
  }

  /** The record as a bitmap, or an empty one when absent or written for another range. */
  bitmapOf(record: RangeRecord | undefined): AllocationBitmap {
    const bitmap = this.emptyBitmap();
    if (record !== undefined && record.range === this.range.spec) bitmap.restore(record.data);
    return bitmap;
  }

  /** Reads the record (consistent) and remembers it; the caller gets a copy of its own to change. */
  async refresh(): Promise<{ bitmap: AllocationBitmap; revision: number; range: string | undefined }> {
    const cur = await this.#store.read(this.key);
    const known = { bitmap: this.bitmapOf(cur?.record), revision: cur?.revision ?? 0 };
    this.#known = known;
    return { bitmap: known.bitmap.clone(), revision: known.revision, range: cur?.record.range };
  }

  /** Forgets the remembered state: the next change reads the record first (after a repair wrote it). */
  invalidate(): void {
    this.#known = null;
  }

  /** Reserves `value`: NotInRange or Allocated AllocationError when it cannot be had. */
  async allocate(value: V): Promise<void> {
    const offset = this.range.offsetOf(value);
    await this.#change((bitmap) => {
      if (!bitmap.allocate(offset)) throw this.range.allocatedError();
      return undefined;
    });
  }

  /** Reserves any free value; AllocationError Full when none is left. */
  async allocateNext(): Promise<V> {
    const offset = await this.#change((bitmap) => {
      const at = bitmap.allocateNext();
      if (at === undefined) throw new AllocationError('Full', RANGE_FULL);
      return at;
    });
    return this.range.valueAt(offset);
  }

  /** Frees `values` in one write; values outside the range or already free are ignored. */
  async release(values: readonly V[]): Promise<void> {
    const offsets: number[] = [];
    for (const v of values) {
      try {
        offsets.push(this.range.offsetOf(v));
      } catch {
        // Not ours (a range changed since it was allocated): nothing to free.
      }
    }
    if (offsets.length === 0) return;
    await this.#change((bitmap) => {
      let changed = false;
      for (const o of offsets) {
        changed ||= bitmap.has(o);
        bitmap.release(o);
      }
      return changed ? undefined : NO_CHANGE;
    });
  }

  /**
   * Writes `bitmap` as the record, provided the record is still at
   * `revision` (0: absent). False when it moved on (the caller reads again).
   */
  async replace(bitmap: AllocationBitmap, revision: number): Promise<boolean> {
    return this.#queued(async () => {
      const record = { range: this.range.spec, data: bitmap.snapshot() };
      try {
        const written = revision === 0 ? await this.#store.create(this.key, record) : await this.#store.update(this.key, record, revision);
        this.#known = { bitmap: bitmap.clone(), revision: written };
        return true;
      } catch (err) {
        if (!(err instanceof RangeConflictError)) throw err;
        this.#known = null;
        return false;
      }
    });
  }

  /** Runs `fn` after every change queued before it. */
  #queued<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(fn, fn);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** Applies `op` to a copy of the latest bitmap and stores it; retried on write races. */
  #change<T>(op: (bitmap: AllocationBitmap) => T | typeof NO_CHANGE): Promise<T> {
    return this.#queued(async () => {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const fresh = this.#known === null;
        const known = this.#known ?? (await this.refresh());
        // Never the remembered bitmap itself: a failed write must leave it as it was.
        const next = known.bitmap.clone();
        let result: T | typeof NO_CHANGE;
        try {
          result = op(next);
        } catch (err) {
          // Taken or full by what this server last saw: another server may have
          // freed it since. Only a fresh read may refuse (GuaranteedUpdate's rule).
          if (fresh || !(err instanceof AllocationError)) throw err;
          this.#known = null;
          continue;
        }
        if (result === NO_CHANGE) {
          // Nothing to do by what this server last saw; but another server may
          // have allocated the value since (a release of a Service it created):
          // only a fresh read may conclude there is nothing to change.
          if (fresh) return undefined as T;
          this.#known = null;
          continue;
        }
        const record = { range: this.range.spec, data: next.snapshot() };
        try {
          const revision = known.revision === 0 ? await this.#store.create(this.key, record) : await this.#store.update(this.key, record, known.revision);
          this.#known = { bitmap: next, revision };
          return result;
        } catch (err) {
          if (!(err instanceof RangeConflictError)) throw err;
          // Another server wrote first: read its state and try again.
          this.#known = null;
        }
      }
      throw new Error(`${this.key}: too many concurrent changes; try again`);
    });
  }
}

const NO_CHANGE: unique symbol = Symbol('no change');
