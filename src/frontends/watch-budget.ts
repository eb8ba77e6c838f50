/**
 * One memory budget for the output that streamed responses (watches) hold
 * for clients slower than the events, shared by every front end of the
 * process.
 *
 * A watch event is encoded once and its bytes are shared by every watcher
 * that gets it. A response that cannot send keeps a WatchQueue of
 * references to those bytes instead of a copy, so N slow watchers of one
 * event hold it once. The budget counts what is really held: each distinct
 * buffer once however many queues refer to it, plus what each HTTP stack
 * copied into its own buffers for a stream (reported by the exchange). Past
 * `maxBytes` it drops the stream with the most queued bytes, then the next,
 * until the total is back under: as the original does with a watcher too
 * slow to keep, the watch ends and the client lists and watches again.
 *
 * Chunks handed to a queue must not be changed afterwards (as with node
 * streams): they are sent later from the same memory.
 */

/** What a dropped stream is, for the log line. */
export interface WatchQueueLabel {
  readonly frontend: 'uws' | 'node';
  /** The request path, without its query. */
  readonly path: string;
}

export interface WatchBudgetDrop {
  readonly label: WatchQueueLabel;
  /** Bytes the dropped stream had queued (its own count, shared bytes included). */
  readonly queuedBytes: number;
  /** Bytes held by all streams before the drop (shared buffers once). */
  readonly heldBytes: number;
  readonly maxBytes: number;
}

export interface WatchBudgetOptions {
  /** Bytes all streams together may hold; Infinity for no bound. */
  maxBytes: number;
  /** Told of every stream dropped to get back under the budget. */
  onDrop?: ((drop: WatchBudgetDrop) => void) | undefined;
}

export class WatchBudget {
  readonly maxBytes: number;
  readonly #onDrop: ((drop: WatchBudgetDrop) => void) | undefined;
  /** Queue entries referring to each buffer: a buffer counts once while any refers to it. */
  readonly #refs = new Map<ArrayBufferLike, number>();
  #sharedBytes = 0;
  #privateBytes = 0;
  #queuedBytes = 0;
  /** Queues holding anything: the candidates for a drop. */
  readonly #holding = new Set<WatchQueue>();
  #dropping = false;
  #drops = 0;

  constructor(opts: WatchBudgetOptions) {
    if (!(opts.maxBytes > 0)) throw new RangeError(`watch budget must be positive, not ${opts.maxBytes}`);
    this.maxBytes = opts.maxBytes;
    this.#onDrop = opts.onDrop;
  }

  /** Bytes held for slow streams: each distinct buffer once, plus the stacks' own copies. */
  get heldBytes(): number {
    return this.#sharedBytes + this.#privateBytes;
  }

  /** The sum of every stream's queued bytes (a buffer shared by N streams counts N times). */
  get queuedBytes(): number {
    return this.#queuedBytes + this.#privateBytes;
  }

  /** Streams holding output now. */
  get holdingStreams(): number {
    return this.#holding.size;
  }

  /** Streams dropped to keep within the budget since start. */
  get drops(): number {
    return this.#drops;
  }

  /** A queue for one streamed response; `drop` ends that response at once (the budget already let go of its bytes). */
  open(label: WatchQueueLabel, drop: () => void): WatchQueue {
    return new WatchQueue(this, label, drop);
  }

  /** @internal A queue took a reference to `buffer`. */
  retain(buffer: ArrayBufferLike): void {
    const refs = this.#refs.get(buffer) ?? 0;
    if (refs === 0) this.#sharedBytes += buffer.byteLength;
    this.#refs.set(buffer, refs + 1);
  }

  /** @internal A queue let go of one reference to `buffer`. */
  release(buffer: ArrayBufferLike): void {
    const refs = this.#refs.get(buffer);
    if (refs === undefined) return;
    if (refs === 1) {
      this.#refs.delete(buffer);
      this.#sharedBytes -= buffer.byteLength;
    } else {
      this.#refs.set(buffer, refs - 1);
    }
  }

  /** @internal A queue's count of unsent bytes moved by `delta`. */
  addQueued(delta: number): void {
    this.#queuedBytes += delta;
  }

  /** @internal A queue's count of bytes in its stack's own buffers moved by `delta`. */
  addPrivate(delta: number): void {
    this.#privateBytes += delta;
  }

  /** @internal */
  holding(queue: WatchQueue, holds: boolean): void {
    if (holds) this.#holding.add(queue);
    else this.#holding.delete(queue);
  }

  /**
   * Drops the streams with the most queued bytes until the total is within
   * the budget. Synchronous, so the bound holds the moment a write returns;
   * a drop that writes or drops in turn does not start another round.
   */
  enforce(): void {
    if (this.#dropping || this.heldBytes <= this.maxBytes) return;
    this.#dropping = true;
    try {
      while (this.heldBytes > this.maxBytes) {
        let worst: WatchQueue | undefined;
        for (const q of this.#holding) if (worst === undefined || q.totalBytes > worst.totalBytes) worst = q;
        if (worst === undefined) break;
        const drop: WatchBudgetDrop = { label: worst.label, queuedBytes: worst.totalBytes, heldBytes: this.heldBytes, maxBytes: this.maxBytes };
        this.#drops++;
        // Its bytes go first, so the loop moves on even if the drop cannot end the response.
        worst.drop();
        this.#onDrop?.(drop);
      }
    } finally {
      this.#dropping = false;
    }
  }
}

/**
 * The output one streamed response could not send yet: references to the
 * callers' chunks in order, the first perhaps partly sent, plus the count of
 * bytes its HTTP stack holds in buffers of its own.
 */
export class WatchQueue {
  readonly label: WatchQueueLabel;
  readonly #budget: WatchBudget;
  readonly #onDrop: () => void;
  #chunks: Uint8Array[] = [];
  /** Index of the first chunk not yet fully sent. */
  #head = 0;
  /** Bytes of chunks[#head] already sent. */
  #offset = 0;
  #bytes = 0;
  #private = 0;
  #closed = false;

  constructor(budget: WatchBudget, label: WatchQueueLabel, onDrop: () => void) {
    this.#budget = budget;
    this.label = label;
    this.#onDrop = onDrop;
  }

  /** Queued bytes not yet handed to the HTTP stack. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Queued bytes plus what the stack holds of this stream. */
  get totalBytes(): number {
    return this.#bytes + this.#private;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Queues a reference to `chunk` (not a copy), then holds the budget. */
  push(chunk: Uint8Array): void {
    if (this.#closed || chunk.byteLength === 0) return;
    this.#chunks.push(chunk);
    this.#bytes += chunk.byteLength;
    this.#budget.retain(chunk.buffer);
    this.#budget.addQueued(chunk.byteLength);
    this.#budget.holding(this, true);
    this.#budget.enforce();
  }

  /** Up to `max` bytes from the front, as a view of one chunk (so perhaps fewer); nothing moves. */
  view(max: number): Uint8Array {
    if (this.#bytes === 0) return EMPTY;
    const chunk = this.#chunks[this.#head]!;
    return chunk.subarray(this.#offset, this.#offset + Math.min(chunk.byteLength - this.#offset, max));
  }

  /** The front `bytes` were handed on: chunks fully sent are let go. */
  advance(bytes: number): void {
    if (bytes > this.#bytes) throw new RangeError(`advance past the end of the queue (${bytes} > ${this.#bytes})`);
    if (this.#closed || bytes === 0) return;
    this.#bytes -= bytes;
    this.#budget.addQueued(-bytes);
    let left = bytes;
    while (left > 0) {
      const chunk = this.#chunks[this.#head]!;
      const step = Math.min(left, chunk.byteLength - this.#offset);
      this.#offset += step;
      left -= step;
      if (this.#offset === chunk.byteLength) this.#shift(chunk);
    }
    this.#afterChange();
  }

  /** What the HTTP stack now holds of this stream in its own buffers (an upper bound is fine). */
  setPrivate(bytes: number): void {
    if (this.#closed || bytes === this.#private) return;
    const delta = bytes - this.#private;
    this.#private = bytes;
    this.#budget.addPrivate(delta);
    this.#afterChange();
    if (delta > 0) this.#budget.enforce();
  }

  /** Lets go of everything (the response ended or was dropped); later calls do nothing. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    const chunks = this.#chunks;
    for (let i = this.#head; i < chunks.length; i++) this.#budget.release(chunks[i]!.buffer);
    this.#budget.addQueued(-this.#bytes);
    this.#chunks = [];
    this.#head = 0;
    this.#offset = 0;
    this.#bytes = 0;
    this.#budget.addPrivate(-this.#private);
    this.#private = 0;
    this.#budget.holding(this, false);
  }

  /** @internal Called by the budget: let go, then end the response. */
  drop(): void {
    this.close();
    this.#onDrop();
  }

  /** The head chunk is all sent: let go of it. */
  #shift(chunk: Uint8Array): void {
    this.#budget.release(chunk.buffer);
    this.#head++;
    this.#offset = 0;
    if (this.#head === this.#chunks.length) {
      this.#chunks = [];
      this.#head = 0;
    } else if (this.#head >= 1024 && this.#head * 2 >= this.#chunks.length) {
      this.#chunks = this.#chunks.slice(this.#head);
      this.#head = 0;
    }
  }

  #afterChange(): void {
    this.#budget.holding(this, this.#bytes + this.#private > 0);
  }
}

const EMPTY = new Uint8Array(0);
