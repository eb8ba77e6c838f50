/**
 * A response body made of parts (a list's head, its items, its tail), sent
 * piece by piece as the client reads it, never joined into one buffer. The
 * cursor remembers how far the front end got and hands out views of the
 * caller's parts.
 */

export const NO_PARTS: readonly Uint8Array[] = [];

export function totalLength(parts: readonly Uint8Array[]): number {
  let total = 0;
  for (const part of parts) total += part.byteLength;
  return total;
}

/** Joins parts for a body small enough that one copy costs nothing; a single part is returned as it is. */
export function joinSmall(parts: readonly Uint8Array[], total: number): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}

/**
 * A Buffer over the same memory, for node streams: they treat a plain
 * Uint8Array as a Buffer in places and a SharedArrayBuffer-backed one
 * differently in others; Buffer.from(arrayBuffer, ...) shares, never copies.
 */
export function asBuffer(part: Uint8Array): Buffer {
  return Buffer.isBuffer(part) ? part : Buffer.from(part.buffer, part.byteOffset, part.byteLength);
}

export class PartsCursor {
  readonly total: number;
  #parts: readonly Uint8Array[];
  #index = 0;
  /** Offset inside parts[#index]. */
  #offset = 0;
  #sent = 0;

  constructor(parts: readonly Uint8Array[], total: number) {
    this.#parts = parts;
    this.total = total;
  }

  /** Bytes of the body the front end has not yet handed on. */
  get remaining(): number {
    return this.total - this.#sent;
  }

  /** Up to `max` bytes from the cursor on, as a view of the current part (so perhaps fewer); the cursor does not move. */
  view(max: number): Uint8Array {
    this.#skipEmpty();
    if (this.remaining === 0) return EMPTY;
    const part = this.#parts[this.#index]!;
    return part.subarray(this.#offset, this.#offset + Math.min(part.byteLength - this.#offset, max));
  }

  advance(bytes: number): void {
    if (bytes > this.remaining) throw new RangeError(`advance past the end of the body (${bytes} > ${this.remaining})`);
    this.#sent += bytes;
    let left = bytes;
    while (left > 0) {
      const part = this.#parts[this.#index]!;
      const step = Math.min(left, part.byteLength - this.#offset);
      this.#offset += step;
      left -= step;
      if (this.#offset === part.byteLength) {
        this.#index++;
        this.#offset = 0;
      }
    }
  }

  /** Moves the cursor to `sent` bytes from the start (forward only). */
  advanceTo(sent: number): void {
    if (sent > this.#sent) this.advance(sent - this.#sent);
  }

  /** Lets go of the parts (the client left): the rest will never be sent. */
  release(): void {
    this.#parts = NO_PARTS;
    this.#index = 0;
    this.#offset = 0;
    this.#sent = this.total;
  }

  #skipEmpty(): void {
    const parts = this.#parts;
    while (this.#index < parts.length && parts[this.#index]!.byteLength === this.#offset) {
      this.#index++;
      this.#offset = 0;
    }
  }
}

const EMPTY = new Uint8Array(0);
