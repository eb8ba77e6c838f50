/**
 * AllocationBitmap: one bit per item of a contiguous range (the original's
 * allocator/bitmap.go). Items are found by a random scan; with an offset the
 * scan prefers the upper part [offset, max) and falls back to [0, offset),
 * leaving the lower part for items people ask for by value (the original's
 * randomScanStrategyWithOffset, the "static subrange").
 *
 * The snapshot is the bitmap as a big-endian integer with no leading zero
 * bytes (Go's big.Int.Bytes()), which is what RangeAllocation.data holds.
 */
export type RandomInt = (exclusiveMax: number) => number;

const mathRandomInt: RandomInt = (n) => Math.floor(Math.random() * n);

export class AllocationBitmap {
  readonly max: number;
  readonly offset: number;
  #bits: Uint8Array;
  #count = 0;
  readonly #random: RandomInt;

  constructor(max: number, offset = 0, random: RandomInt = mathRandomInt) {
    this.max = Math.max(0, max);
    this.offset = offset > 0 && offset < this.max ? offset : 0;
    this.#bits = new Uint8Array(Math.ceil(this.max / 8));
    this.#random = random;
  }

  get count(): number {
    return this.#count;
  }

  free(): number {
    return this.max - this.#count;
  }

  has(i: number): boolean {
    if (!Number.isInteger(i) || i < 0 || i >= this.max) return false;
    return (this.#bits[i >> 3]! & (1 << (i & 7))) !== 0;
  }

  /** Marks `i` taken; false when it already was (or is outside the range). */
  allocate(i: number): boolean {
    if (!Number.isInteger(i) || i < 0 || i >= this.max || this.has(i)) return false;
    this.#bits[i >> 3]! |= 1 << (i & 7);
    this.#count++;
    return true;
  }

  /** Takes a free item and answers it, or undefined when the range is full. */
  allocateNext(): number | undefined {
    if (this.#count >= this.max) return undefined;
    const at = this.offset > 0 ? (this.#scan(this.offset, this.max) ?? this.#scan(0, this.offset)) : this.#scan(0, this.max);
    if (at !== undefined) this.allocate(at);
    return at;
  }

  /** A free item in [from, to), starting the scan at a random place and wrapping. */
  #scan(from: number, to: number): number | undefined {
    const size = to - from;
    if (size <= 0) return undefined;
    const start = this.#random(size);
    for (let k = 0; k < size; k++) {
      const at = from + ((start + k) % size);
      if (!this.has(at)) return at;
    }
    return undefined;
  }

  /** Frees `i`; freeing a free or out-of-range item is a no-op. */
  release(i: number): void {
    if (!this.has(i)) return;
    this.#bits[i >> 3]! &= ~(1 << (i & 7));
    this.#count--;
  }

  forEach(fn: (i: number) => void): void {
    for (let byte = 0; byte < this.#bits.length; byte++) {
      const b = this.#bits[byte]!;
      if (b === 0) continue;
      for (let bit = 0; bit < 8; bit++) if (b & (1 << bit)) fn(byte * 8 + bit);
    }
  }

  clone(): AllocationBitmap {
    const copy = new AllocationBitmap(this.max, this.offset, this.#random);
    copy.#bits.set(this.#bits);
    copy.#count = this.#count;
    return copy;
  }

  equals(other: AllocationBitmap): boolean {
    if (other.max !== this.max || other.#count !== this.#count) return false;
    for (let i = 0; i < this.#bits.length; i++) if (this.#bits[i] !== other.#bits[i]) return false;
    return true;
  }

  /** Big-endian bytes without leading zeros (big.Int.Bytes()). */
  snapshot(): Uint8Array {
    let top = this.#bits.length;
    while (top > 0 && this.#bits[top - 1] === 0) top--;
    const out = new Uint8Array(top);
    for (let i = 0; i < top; i++) out[top - 1 - i] = this.#bits[i]!;
    return out;
  }

  /** Replaces the state with a snapshot; bits beyond the range are dropped. */
  restore(data: Uint8Array): void {
    this.#bits.fill(0);
    this.#count = 0;
    const n = data.length;
    for (let i = 0; i < n && i < this.#bits.length; i++) this.#bits[i] = data[n - 1 - i]!;
    // A last partial byte may carry bits past max.
    const extra = this.#bits.length * 8 - this.max;
    if (extra > 0 && this.#bits.length > 0) this.#bits[this.#bits.length - 1]! &= 0xff >> extra;
    for (const b of this.#bits) this.#count += popcount(b);
  }
}

function popcount(b: number): number {
  let n = 0;
  for (let x = b; x !== 0; x &= x - 1) n++;
  return n;
}

/**
 * The size of the static subrange: min(max(lower, size/step), upper), or 0
 * for ranges no bigger than `lower` (the original's calculateRangeOffset).
 */
export function staticSubrange(size: number, lower: number, upper: number, step: number): number {
  if (size <= lower) return 0;
  return Math.min(Math.max(lower, Math.floor(size / step)), upper);
}
