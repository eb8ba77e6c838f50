/**
 * A byte lane of a BatchedPort: the kinds of message a lane knows travel as
 * bytes appended to one buffer per run of them, and the buffer moves to the
 * other thread (a transfer, not a copy); the other kinds go as objects by
 * structured clone, in their order among the runs.
 *
 * Why: V8's structured clone builds every object, property and string of a
 * message anew on the other side by a generic path (map transitions, string
 * internalization, an ArrayBuffer of its own for each byte array). For a
 * create, its call, watch event and answer, that was ~80,000 instructions
 * over three threads, ~18% of all a create costs outside the collector
 * (`npm run bench:instructions`, callgrind per thread); the same messages as
 * bytes cost a few hundred instructions each to write and read.
 */

/**
 * What a lane does: writes the kinds of Out it knows, reads back In. An end
 * that sends nothing as bytes has no `encode`; one that receives none, no
 * `decode`.
 */
export interface ByteLane<Out, In> {
  /** Appends `m` to `w` and returns true, or returns false (writing nothing) for a kind this lane does not carry. */
  readonly encode?: ((m: Out, w: ByteWriter) => boolean) | undefined;
  /** Every message in `r`, in order. */
  readonly decode?: ((r: ByteReader, each: (m: In) => void) => void) | undefined;
}

/** Bytes that do not read as what the lane wrote: a bug, not input from outside the process. */
export class CorruptLaneError extends Error {
  constructor(what: string) {
    super(`corrupt byte lane: ${what}`);
    this.name = 'CorruptLaneError';
  }
}

const HEADER = 4;
/** The top bit of a string's length: its bytes are UTF-16 (ByteWriter.str). */
const UTF16 = 0x8000_0000;

/** String.prototype.isWellFormed (ES2024; V8 has it since Node 20): no lone surrogate. */
const isWellFormed = (s: string): boolean => (s as string & { isWellFormed(): boolean }).isWellFormed();

/**
 * Appends numbers, strings and bytes to a buffer of its own (transferable).
 * The first four bytes say how many bytes the run holds: the buffer moves
 * whole, spare room included.
 */
export class ByteWriter {
  #buf: Buffer;
  #at = HEADER;

  constructor(capacity = 16 * 1024) {
    this.#buf = Buffer.allocUnsafeSlow(Math.max(capacity, 64));
  }

  /** Bytes written so far (the header left out). */
  get length(): number {
    return this.#at - HEADER;
  }

  #room(n: number): void {
    const need = this.#at + n;
    if (need <= this.#buf.length) return;
    const grown = Buffer.allocUnsafeSlow(Math.max(need, this.#buf.length * 2));
    this.#buf.copy(grown, 0, 0, this.#at);
    this.#buf = grown;
  }

  u8(v: number): void {
    this.#room(1);
    this.#buf[this.#at++] = v;
  }

  /** Any JavaScript number (ids, revisions): eight bytes. */
  f64(v: number): void {
    this.#room(8);
    this.#at = this.#buf.writeDoubleLE(v, this.#at);
  }

  /**
   * A string as UTF-8 after its byte length; one with a lone surrogate (a
   * JSON body can spell one) as UTF-16 with the length's top bit set, since
   * UTF-8 would turn it into U+FFFD and the string read back would differ.
   */
  str(s: string): void {
    if (!isWellFormed(s)) {
      this.#room(4 + s.length * 2);
      const n = this.#buf.write(s, this.#at + 4, 'utf16le');
      this.#buf.writeUInt32LE((n | UTF16) >>> 0, this.#at);
      this.#at += 4 + n;
      return;
    }
    this.#room(4 + s.length * 3);
    const n = this.#buf.write(s, this.#at + 4, 'utf8');
    this.#buf.writeUInt32LE(n, this.#at);
    this.#at += 4 + n;
  }

  /** Bytes, after their length. */
  bytes(b: Uint8Array): void {
    this.#room(4 + b.byteLength);
    this.#buf.writeUInt32LE(b.byteLength, this.#at);
    this.#buf.set(b, this.#at + 4);
    this.#at += 4 + b.byteLength;
  }

  /** The run, ready to transfer; the writer must not be used after. */
  finish(): ArrayBuffer {
    this.#buf.writeUInt32LE(this.#at - HEADER, 0);
    return this.#buf.buffer as ArrayBuffer;
  }
}

/** Reads what a ByteWriter wrote, every read checked against the run's end. */
export class ByteReader {
  readonly #buf: Buffer;
  readonly #end: number;
  #at = HEADER;

  constructor(run: ArrayBuffer) {
    this.#buf = Buffer.from(run);
    if (this.#buf.length < HEADER) throw new CorruptLaneError('no header');
    this.#end = HEADER + this.#buf.readUInt32LE(0);
    if (this.#end > this.#buf.length) throw new CorruptLaneError(`run of ${this.#end - HEADER} bytes in a buffer of ${this.#buf.length}`);
  }

  get done(): boolean {
    return this.#at >= this.#end;
  }

  #take(n: number): number {
    const at = this.#at;
    if (n > this.#end - at) throw new CorruptLaneError(`${n} bytes wanted at ${at - HEADER}, ${this.#end - at} left`);
    this.#at = at + n;
    return at;
  }

  u8(): number {
    return this.#buf[this.#take(1)]!;
  }

  f64(): number {
    return this.#buf.readDoubleLE(this.#take(8));
  }

  str(): string {
    const header = this.#buf.readUInt32LE(this.#take(4));
    const n = (header & ~UTF16) >>> 0;
    const at = this.#take(n);
    return this.#buf.toString(header >= UTF16 ? 'utf16le' : 'utf8', at, at + n);
  }

  /** Bytes as a view into the run: whoever keeps or posts them on copies them (the store does: handed-over.ts). */
  view(): Uint8Array {
    const n = this.#buf.readUInt32LE(this.#take(4));
    const at = this.#take(n);
    return this.#buf.subarray(at, at + n);
  }

  /** Bytes in an ArrayBuffer of their own: for what goes on to another thread by structured clone. */
  copy(): Uint8Array {
    const v = this.view();
    const out = new Uint8Array(v.byteLength);
    out.set(v);
    return out;
  }
}
