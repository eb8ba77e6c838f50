/**
 * ReadCells is a shard's table in shared memory that lets a serving thread
 * tell, without a message, whether an object it read from the shard earlier
 * is still the answer to a read now (object-read-cache.ts).
 *
 * Per resource type (a slot) the shard publishes two numbers whenever its
 * watch cache moves: the revision the cache reflects, and a count of the
 * changes to its objects. A read answered from the cache carries the slot and
 * the count it was read at. Later, with the store's committed revision C read
 * from its own shared cell (storage/shared-revision.ts), a serving thread
 * knows the earlier answer is the state at C when:
 *   - the cache has reached C (every write any client saw acknowledged is in
 *     it: the store publishes C before answering a write), and
 *   - the count is the same (nothing in the cache changed since the read).
 * That is the shard's own rule for a consistent read (wait until the cache
 * reaches the store's revision, then read it), evaluated in the serving thread.
 *
 * Order matters: the shard stores the count before the revision, and a
 * reader loads the revision before the count (Atomics are sequentially
 * consistent), so a reader that sees the cache at C also sees every change
 * up to C counted.
 */
import type { Revision } from '../src/storage/interface.ts';

/** Resource types one shard can publish; a type beyond them is read through the shard as before. */
export const READ_CELL_SLOTS = 1024;

const CELLS_PER_SLOT = 2;
const REVISION = 0;
const CHANGES = 1;

export class ReadCells {
  readonly #cells: BigInt64Array;
  #claimed = 0;

  constructor(readonly buffer: SharedArrayBuffer) {
    this.#cells = new BigInt64Array(buffer);
  }

  static allocate(slots = READ_CELL_SLOTS): ReadCells {
    return new ReadCells(new SharedArrayBuffer(slots * CELLS_PER_SLOT * BigInt64Array.BYTES_PER_ELEMENT));
  }

  get slots(): number {
    return this.#cells.length / CELLS_PER_SLOT;
  }

  /** The shard's side: a slot of its own for one resource type's cache (never reused), or undefined when all are taken. */
  claim(): number | undefined {
    if (this.#claimed >= this.slots) return undefined;
    return this.#claimed++;
  }

  /** The shard's side: the cache of `slot` reflects `revision`, after `changes` changes to its objects. */
  publish(slot: number, revision: Revision, changes: number): void {
    const base = slot * CELLS_PER_SLOT;
    Atomics.store(this.#cells, base + CHANGES, BigInt(changes));
    Atomics.store(this.#cells, base + REVISION, BigInt(revision));
  }

  /**
   * A serving thread's side: whether the cache of `slot` still shows what it
   * showed after `changes` changes, and has reached `committed`.
   */
  unchangedAt(slot: number, changes: number, committed: Revision): boolean {
    const base = slot * CELLS_PER_SLOT;
    if (base >= this.#cells.length) return false;
    if (Number(Atomics.load(this.#cells, base + REVISION)) < committed) return false;
    return Number(Atomics.load(this.#cells, base + CHANGES)) === changes;
  }
}
