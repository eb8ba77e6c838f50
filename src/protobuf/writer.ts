/**
 * A growable byte buffer with the Protobuf primitives the codec needs.
 *
 * Nested messages are written in one pass: one byte is reserved for the
 * length, and if the body turns out to need a longer varint it is shifted up
 * (a memmove). Most bodies are under 128 bytes, so this is cheaper than a
 * separate sizing pass over the JSON, and it yields the minimal varints
 * gogo-protobuf writes.
 */
/** A buffer grown past this by one huge list is dropped again, not kept for the process's life. */
const MAX_RETAINED = 4 * 1024 * 1024;

export class Writer {
  buf: Buffer;
  pos = 0;
  readonly #initial: number;

  constructor(initial = 64 * 1024) {
    this.#initial = initial;
    this.buf = Buffer.allocUnsafe(initial);
  }

  reset(): void {
    this.pos = 0;
    if (this.buf.length > MAX_RETAINED) this.buf = Buffer.allocUnsafe(this.#initial);
  }

  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  /**
   * A copy of what was written (the shared buffer is reused by the next call),
   * in an ArrayBuffer of its own: not a slice of Node's pool, so code that
   * reads `.buffer` cannot see other data.
   */
  take(): Uint8Array {
    const out = Buffer.allocUnsafeSlow(this.pos);
    this.buf.copy(out, 0, 0, this.pos);
    return out;
  }

  byte(b: number): void {
    this.ensure(1);
    this.buf[this.pos++] = b;
  }

  /** A field key (number << 3 | wire type), precomputed by the plan. */
  key(k: number): void {
    this.ensure(2);
    if (k < 0x80) {
      this.buf[this.pos++] = k;
    } else {
      this.varint(k);
    }
  }

  /**
   * Any integer a JSON number holds, as proto int32/int64 varints are written:
   * negatives as their 64-bit two's complement (ten bytes), like Go's uint64(x).
   */
  varint(v: number): void {
    this.ensure(10);
    const buf = this.buf;
    let pos = this.pos;
    if (v >= 0 && v <= 0x7fffffff) {
      while (v >= 0x80) {
        buf[pos++] = (v & 0x7f) | 0x80;
        v >>>= 7;
      }
      buf[pos++] = v;
    } else if (v > 0) {
      while (v >= 0x80) {
        buf[pos++] = (v % 0x80) | 0x80;
        v = Math.floor(v / 0x80);
      }
      buf[pos++] = v;
    } else {
      let u = BigInt.asUintN(64, BigInt(v));
      while (u >= 0x80n) {
        buf[pos++] = Number(u & 0x7fn) | 0x80;
        u >>= 7n;
      }
      buf[pos++] = Number(u);
    }
    this.pos = pos;
  }

  double(v: number): void {
    this.ensure(8);
    this.buf.writeDoubleLE(v, this.pos);
    this.pos += 8;
  }

  /** Length-delimited UTF-8 string. */
  string(s: string): void {
    const n = s.length;
    if (n < 43) {
      // At most 3 bytes per UTF-16 unit: the length fits one byte.
      this.ensure(1 + 3 * n);
      const buf = this.buf;
      const lenPos = this.pos;
      let p = lenPos + 1;
      for (let i = 0; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) {
          p = lenPos + 1 + buf.write(s, lenPos + 1, 'utf8');
          break;
        }
        buf[p++] = c;
      }
      buf[lenPos] = p - lenPos - 1;
      this.pos = p;
      return;
    }
    const len = Buffer.byteLength(s, 'utf8');
    this.varint(len);
    this.ensure(len);
    this.pos += this.buf.write(s, this.pos, 'utf8');
  }

  bytes(b: Uint8Array): void {
    this.varint(b.length);
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** Starts a length-delimited body; pass the result to endNested. */
  beginNested(): number {
    this.ensure(1);
    return ++this.pos;
  }

  endNested(start: number): void {
    const len = this.pos - start;
    if (len < 0x80) {
      this.buf[start - 1] = len;
      return;
    }
    let extra = 1;
    for (let v = len >>> 14; v > 0; v >>>= 7) extra++;
    this.ensure(extra);
    const buf = this.buf;
    buf.copyWithin(start + extra, start, this.pos);
    this.pos += extra;
    let p = start - 1;
    let v = len;
    while (v >= 0x80) {
      buf[p++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    buf[p] = v;
  }

  raw(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }
}
