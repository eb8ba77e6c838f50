/**
 * A large list answer in pieces. A LIST of a collection nobody else is
 * listing (the common first LIST after a write) used to be built whole in
 * the shard — 74 MB for 50,000 1 KiB objects, ~100 ms — and only then sent by
 * the serving thread (~50 ms of TLS and socket writes): the two costs added
 * up. Sent in pieces, the serving thread writes the first megabytes while the
 * shard still copies the rest, and neither side holds the whole answer in one
 * fresh buffer (whose page faults were a third of the shard's time).
 *
 * The shard takes its snapshot (the item array) at once, so the pieces show
 * one state whatever is written meanwhile; it copies them and posts each one
 * as soon as it is full, from one synchronous loop. The receiving side queues
 * what arrives until the response takes it.
 */

/** Pieces are this large (the last one smaller): a few TLS records' worth of socket writes each. */
export const LIST_PIECE_BYTES = 1024 * 1024;

/** Answers of fewer item bytes are built whole: a single message is cheaper than a stream of one or two. */
export const LIST_STREAM_MIN_BYTES = 4 * 1024 * 1024;

const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;

/** A list item as the joins read it: its JSON and the typeMetaBytes a bare item leaves out (see CachedObject). */
export interface JoinedItem {
  readonly json: Uint8Array;
  readonly typeMetaBytes: number;
}

/**
 * Copies source[from, to) to target at `at`. Node's Buffer copy is a plain memmove on both buffers' memory:
 * TypedArray.prototype.set into a SharedArrayBuffer's view copies with relaxed atomics, and either makes a view per call.
 */
const copyBytes = Buffer.prototype.copy as (this: Uint8Array, target: Uint8Array, targetStart: number, sourceStart: number, sourceEnd: number) => number;

/** An item's byte length as joined: whole, or (`bare`) without its kind and apiVersion. */
const itemLength = (item: JoinedItem, bare: boolean): number => (bare ? item.json.byteLength - item.typeMetaBytes : item.json.byteLength);

/** The byte length of the items' JSON joined with commas; `bare`: each without its kind and apiVersion. */
export function joinedJsonLength(items: readonly JoinedItem[], bare = false): number {
  const n = items.length;
  let total = n > 0 ? n - 1 : 0;
  for (let i = 0; i < n; i++) total += itemLength(items[i]!, bare);
  return total;
}

/**
 * Writes one item at `at` in `out` (which has room for it): its JSON, or its
 * opening brace and what follows its kind and apiVersion. Returns the bytes written.
 */
export function writeItem(out: Uint8Array, at: number, item: JoinedItem, bare: boolean): number {
  const json = item.json;
  const skip = bare ? item.typeMetaBytes : 0;
  if (skip === 0) return copyBytes.call(json, out, at, 0, json.byteLength);
  out[at] = OPEN_BRACE;
  return 1 + copyBytes.call(json, out, at + 1, 1 + skip, json.byteLength);
}

/** A new piece of `bytes` bytes: in an ArrayBuffer of its own (transferred), or a SharedArrayBuffer (kept to share). */
export type PieceAlloc = (bytes: number) => Uint8Array;

const ownPiece: PieceAlloc = (bytes) => new Uint8Array(bytes);

/**
 * Where the items of a SharedArrayBuffer piece are joined first. V8 copies into shared memory with relaxed
 * atomics, a word at a time only where source and target are aligned alike, else a byte at a time: items
 * copied at any offset ran ~5× slower than into an ArrayBuffer (a LIST of 50,000: ~110 ms of the shard's time).
 * Joined here (a memmove per item) and copied whole (offset 0 to offset 0), they cost a memmove more. One per
 * thread: a generator fills it and empties it into its piece between two yields, so interleaved lists never
 * see each other's bytes.
 */
let staging = new Uint8Array(0);

function stagingFor(piece: Uint8Array): Uint8Array | null {
  if (!(piece.buffer instanceof SharedArrayBuffer)) return null;
  if (staging.byteLength < piece.byteLength) staging = new Uint8Array(piece.byteLength);
  return staging;
}

/**
 * The items' JSON joined with commas (`total` bytes, from joinedJsonLength
 * with the same `bare`), cut into pieces of `pieceBytes`, each in a buffer of
 * its own from `alloc`. An item may straddle two pieces.
 */
export function* jsonPieces(items: readonly JoinedItem[], total: number, pieceBytes = LIST_PIECE_BYTES, alloc: PieceAlloc = ownPiece, bare = false): Generator<Uint8Array> {
  if (total === 0) return;
  let left = total;
  let piece = alloc(Math.min(pieceBytes, left));
  // Where the bytes are written: the piece itself, or the staging buffer for a shared one.
  let out = stagingFor(piece) ?? piece;
  let at = 0;
  let room = piece.byteLength;
  const n = items.length;
  for (let i = 0; i < n; i++) {
    const item = items[i]!;
    const size = itemLength(item, bare);
    if (i > 0 && size + 1 < room) {
      // The common case: the comma and the whole item fit in this piece, with room left (a piece that
      // comes out exactly full is sent by the path below).
      out[at] = COMMA;
      writeItem(out, at + 1, item, bare);
      at += size + 1;
      room -= size + 1;
      continue;
    }
    if (i === 0 && size < room) {
      writeItem(out, 0, item, bare);
      at = size;
      room -= size;
      continue;
    }
    // The item (or its comma) reaches the piece's end: copied in slices, the piece sent when full. Offsets
    // `from` are in the item as joined; past a bare item's brace, its JSON is `skip` bytes further on.
    const json = item.json;
    const skip = bare ? item.typeMetaBytes : 0;
    let from = i > 0 ? -1 : 0; // -1: the comma before this item
    while (from < size) {
      if (from < 0) {
        out[at++] = COMMA;
        room--;
        from = 0;
      } else if (from === 0 && skip > 0) {
        out[at++] = OPEN_BRACE;
        room--;
        from = 1;
      } else {
        const take = Math.min(size - from, room);
        copyBytes.call(json, out, at, from + skip, from + skip + take);
        at += take;
        room -= take;
        from += take;
      }
      if (room === 0) {
        left -= at;
        if (out !== piece) piece.set(out.subarray(0, at));
        yield piece;
        if (left === 0) {
          if (i < n - 1 || from < size) throw new Error(`list pieces: more than the ${total} bytes announced`);
          return;
        }
        piece = alloc(Math.min(pieceBytes, left));
        out = stagingFor(piece) ?? piece;
        at = 0;
        room = piece.byteLength;
      }
    }
  }
  if (at > 0) throw new Error(`list pieces: ${total} bytes announced, ${total - left + at} written`);
}

/**
 * The pieces of `source` as they come, and once the last one has come, all
 * of them to `keep` (a shared answer kept in the list cache while its first
 * asker already reads it). Nothing is kept when the source fails midway.
 */
export function* keepingPieces(source: Iterable<Uint8Array>, keep: (pieces: Uint8Array[]) => void): Generator<Uint8Array> {
  const kept: Uint8Array[] = [];
  for (const piece of source) {
    kept.push(piece);
    yield piece;
  }
  keep(kept);
}

/** What a pieces queue ended with when the answer could not be completed (the shard's channel closed). */
export class ListPiecesLost extends Error {}

/**
 * The receiving side: pieces as they arrive, read once with `for await`.
 * Leaving the loop early (the client went away) drops whatever arrives
 * later, so an abandoned answer holds no memory, and tells `onAbandon` (the
 * shard client asks the shard to stop making the rest).
 */
export class ListPieceQueue implements AsyncIterable<Uint8Array> {
  /** Item bytes the answer has in all. */
  readonly total: number;
  #queued: Uint8Array[] = [];
  #received = 0;
  #failure: Error | undefined;
  #abandoned = false;
  #wake: (() => void) | undefined;
  #onAbandon: (() => void) | undefined;
  #onWritten: (() => void) | undefined;
  /** release()'s word to the shard: the same as abandon()'s (stop, and never reuse). */
  #onReleased: (() => void) | undefined;
  /** The shard was told the reader left before the answer was through. */
  #stopped = false;

  /**
   * `onAbandon`: the reader left while the answer was still coming, or (release()) after it came without
   * writing it cleanly. `onWritten`: the reader wrote every piece and its response ended cleanly (see written()).
   */
  constructor(total: number, onAbandon?: () => void, onWritten?: () => void) {
    this.total = total;
    this.#onAbandon = onAbandon;
    this.#onWritten = onWritten;
    this.#onReleased = onAbandon;
  }

  /** True once every byte arrived (or the answer failed). */
  get complete(): boolean {
    return this.#received === this.total || this.#failure !== undefined;
  }

  push(bytes: Uint8Array): void {
    if (this.complete) return;
    this.#received += bytes.byteLength;
    if (this.#received > this.total) {
      this.fail(new ListPiecesLost(`list answer: more bytes than the ${this.total} announced`));
      return;
    }
    if (!this.#abandoned) this.#queued.push(bytes);
    this.#notify();
  }

  fail(err: Error): void {
    if (this.complete) return;
    this.#failure = err;
    this.#queued = [];
    this.#notify();
  }

  /** Nobody will read the rest (the client went away before): what arrives from now on is dropped. */
  abandon(): void {
    this.#abandoned = true;
    this.#queued = [];
    // Told once, and only while the answer is still coming.
    const told = this.#onAbandon;
    this.#onAbandon = undefined;
    if (told !== undefined && !this.complete) {
      this.#stopped = true;
      told();
    }
  }

  /**
   * The reader's response ended cleanly with every piece: nothing on this
   * side (queue, response, transport) holds a piece any more, so the shard
   * may make later answers in their memory (list-piece-pool.ts). Told once,
   * and only for a whole answer the reader did not leave.
   */
  written(): void {
    const told = this.#onWritten;
    if (told === undefined || this.#stopped || this.#failure !== undefined || this.#received !== this.total) return;
    this.#onWritten = undefined;
    this.#onReleased = undefined;
    told();
  }

  /**
   * The reader is through without having written every piece cleanly (its
   * client went away after the last piece came, its response failed, it never
   * began): the shard counts it out at once and never reuses the pieces, which
   * its response may still hold. Told once, and only when neither abandon()
   * (mid-answer) nor written() told the shard already, and the answer did not
   * fail (the shard ended that one itself).
   */
  release(): void {
    const told = this.#onReleased;
    this.#onReleased = undefined;
    this.#onWritten = undefined;
    // The shard hears of this reader once: a later abandon() has nothing more to say.
    this.#onAbandon = undefined;
    if (told === undefined || this.#stopped || this.#failure !== undefined) return;
    this.#stopped = true;
    told();
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array> {
    try {
      for (;;) {
        if (this.#failure !== undefined) throw this.#failure;
        const next = this.#queued.shift();
        if (next !== undefined) {
          yield next;
          continue;
        }
        if (this.#received === this.total) return;
        await new Promise<void>((resolve) => (this.#wake = resolve));
      }
    } finally {
      this.abandon();
    }
  }
}
