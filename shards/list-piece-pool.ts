/**
 * Reuse of the SharedArrayBuffers a streamed list answer is made in
 * (list-pieces.ts). A LIST of 50,000 1 KiB objects fills 72 pieces of 1 MiB;
 * in fresh memory every page of them faults on its first write, which was
 * most of the shard's copy: joining 70 MB cost 67 ms into fresh pieces and
 * 17 ms into pieces written before (loadtest/list50k, this 2-core machine).
 * So the pieces of an answer nobody can read any more go back to a pool, and
 * the next answer is made in them.
 *
 * "Nobody can read them any more" is the whole difficulty: a serving thread
 * may still be handing a piece to a socket. So every answer's pieces are
 * leased: each asker that is sent them counts as a reader until its serving
 * thread says its response ended cleanly (every byte handed to the transport,
 * `piecesWritten`), and an answer the list cache keeps is held while kept.
 * A reader that leaves early, fails, goes away with its thread, or takes too
 * long spoils the lease: its pieces are then never reused, only dropped.
 */

/** Free pieces of one size, kept while answers are being made and given back when that stops. */
export class ListPiecePool {
  readonly pieceBytes: number;
  readonly #maxPieces: number;
  readonly #idleMs: number;
  readonly #now: () => number;
  #free: SharedArrayBuffer[] = [];
  #usedAt = 0;
  /** Pieces taken from the pool, and made afresh (for stats). */
  reused = 0;
  made = 0;

  /**
   * `maxBytes`: at most this much is kept free (an answer's worth is what makes the next one cheap);
   * `idleMs`: all of it goes back once no piece was taken for that long.
   */
  constructor(pieceBytes: number, maxBytes: number, idleMs: number, now: () => number = Date.now) {
    this.pieceBytes = pieceBytes;
    this.#maxPieces = Math.floor(maxBytes / pieceBytes);
    this.#idleMs = idleMs;
    this.#now = now;
  }

  get freePieces(): number {
    return this.#free.length;
  }

  /** A piece of `bytes` (at most pieceBytes) over a whole pooled buffer, so that it can come back. */
  take(bytes: number): Uint8Array {
    if (bytes > this.pieceBytes) throw new RangeError(`list piece of ${bytes} bytes, pieces are ${this.pieceBytes}`);
    this.#usedAt = this.#now();
    let buffer = this.#free.pop();
    if (buffer === undefined) {
      buffer = new SharedArrayBuffer(this.pieceBytes);
      this.made++;
    } else this.reused++;
    return new Uint8Array(buffer, 0, bytes);
  }

  /** Takes back buffers nobody reads any more (of the pool's size; past the bound they are dropped). */
  give(buffers: readonly SharedArrayBuffer[]): void {
    for (const b of buffers) {
      if (this.#free.length >= this.#maxPieces) return;
      if (b.byteLength === this.pieceBytes) this.#free.push(b);
    }
  }

  /** Lets go of every free piece once the pool has been idle for its idle time (called on a timer). */
  sweep(): void {
    if (this.#free.length > 0 && this.#now() - this.#usedAt > this.#idleMs) this.#free = [];
  }
}

/**
 * The pieces of one answer and who may still read them. They return to the
 * pool once the answer is made, no reader is left, the cache no longer keeps
 * it, and nothing spoiled it.
 */
export class PieceLease {
  readonly #pool: ListPiecePool;
  readonly #buffers: SharedArrayBuffer[] = [];
  #readers = 0;
  #made = false;
  #kept = false;
  #spoiled = false;
  #returned = false;

  constructor(pool: ListPiecePool) {
    this.#pool = pool;
  }

  /** The next piece of the answer, from the pool. */
  piece(bytes: number): Uint8Array {
    const p = this.#pool.take(bytes);
    this.#buffers.push(p.buffer as SharedArrayBuffer);
    return p;
  }

  /** Every piece is made (the answer's source is through). */
  made(): void {
    this.#made = true;
    this.#settle();
  }

  /** One more asker is sent the pieces. */
  addReader(): void {
    this.#readers++;
  }

  /** An asker is done with them: `clean` when its response ended with every byte handed over, else it spoils them. */
  readerDone(clean: boolean): void {
    this.#readers--;
    if (!clean) this.#spoiled = true;
    this.#settle();
  }

  /** The list cache holds the pieces (they go to later askers) until `unkept`. */
  kept(): void {
    this.#kept = true;
  }

  unkept(): void {
    this.#kept = false;
    this.#settle();
  }

  /** Making the pieces failed: they may be anywhere, and are never reused. */
  spoil(): void {
    this.#spoiled = true;
  }

  #settle(): void {
    if (this.#returned || this.#spoiled || !this.#made || this.#kept || this.#readers > 0) return;
    this.#returned = true;
    this.#pool.give(this.#buffers);
  }
}
