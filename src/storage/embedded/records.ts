/**
 * Binary framing shared by the write-ahead log and snapshots.
 *
 * A frame is `[u32 payloadLength][u32 crc32][payload]`, little-endian. The CRC
 * covers the length bytes and the payload, so a torn write (short frame), a
 * zero-filled tail (what some filesystems leave after a crash that extended
 * the file) and a flipped bit all fail validation. The first payload byte is
 * the record type.
 *
 * Numbers that can exceed 2^32 (revisions) are written as u64 (two u32
 * halves) and read back as JS numbers; revisions stay far below 2^53.
 */
import { crc32 } from 'node:zlib';

export const FRAME_HEADER_BYTES = 8;
/** Upper bound on one payload; anything larger in a file is corruption. */
export const MAX_PAYLOAD_BYTES = 1 << 30;

// WAL record types.
export const REC_PUT = 1;
export const REC_DELETE = 2;
export const REC_COMPACT = 3;
// Snapshot record types.
export const REC_SNAP_HEADER = 16;
export const REC_SNAP_KEY = 17;
export const REC_SNAP_END = 18;

const TWO_32 = 0x1_0000_0000;

/** Worst-case UTF-8 size of a JS string (3 bytes per UTF-16 unit). */
export function maxUtf8Bytes(s: string): number {
  return s.length * 3;
}

/**
 * A growable byte buffer that frames are written into. Writers reserve the
 * worst-case size first, so the encoding helpers never check bounds.
 */
export class FrameBuffer {
  buf: Buffer;
  length = 0;
  private readonly initialCapacity: number;

  constructor(initialCapacity = 1 << 20) {
    this.initialCapacity = initialCapacity;
    this.buf = Buffer.allocUnsafe(initialCapacity);
  }

  ensure(extra: number): void {
    const need = this.length + extra;
    if (need <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(need, this.buf.length * 2));
    this.buf.copy(next, 0, 0, this.length);
    this.buf = next;
  }

  /** Start a frame whose payload is at most `maxPayload` bytes; returns its offset. */
  begin(maxPayload: number): number {
    this.ensure(FRAME_HEADER_BYTES + maxPayload);
    const start = this.length;
    this.length += FRAME_HEADER_BYTES;
    return start;
  }

  /** Close the frame opened at `start`: fill in its length and CRC. */
  end(start: number): void {
    const buf = this.buf;
    const payloadLength = this.length - start - FRAME_HEADER_BYTES;
    buf.writeUInt32LE(payloadLength, start);
    const crc = crc32(buf.subarray(start + FRAME_HEADER_BYTES, this.length), crc32(buf.subarray(start, start + 4)));
    buf.writeUInt32LE(crc, start + 4);
  }

  u8(v: number): void {
    this.buf[this.length++] = v;
  }

  u32(v: number): void {
    this.buf.writeUInt32LE(v, this.length);
    this.length += 4;
  }

  u64(v: number): void {
    this.buf.writeUInt32LE(v % TWO_32, this.length);
    this.buf.writeUInt32LE(Math.floor(v / TWO_32), this.length + 4);
    this.length += 8;
  }

  /** A u32-length-prefixed UTF-8 string. */
  str(s: string): void {
    const n = this.buf.write(s, this.length + 4, 'utf8');
    this.buf.writeUInt32LE(n, this.length);
    this.length += 4 + n;
  }

  bytes(b: Uint8Array): void {
    this.buf.set(b, this.length);
    this.length += b.length;
  }

  /** Forget the contents; drop an oversized allocation so one burst does not pin memory. */
  reset(): void {
    this.length = 0;
    if (this.buf.length > 16 * this.initialCapacity) this.buf = Buffer.allocUnsafe(this.initialCapacity);
  }
}

/** Outcome of looking for a frame at some offset of a byte range. */
export type FrameScan =
  | { readonly kind: 'frame'; readonly payloadStart: number; readonly payloadEnd: number }
  /** The range ends inside the frame (or its header): read more, or it is a torn tail. */
  | { readonly kind: 'incomplete'; readonly needBytes: number }
  /** The bytes cannot be a frame we wrote. */
  | { readonly kind: 'corrupt'; readonly reason: string };

export function scanFrame(buf: Buffer, offset: number, end: number): FrameScan {
  if (end - offset < FRAME_HEADER_BYTES) return { kind: 'incomplete', needBytes: FRAME_HEADER_BYTES };
  const payloadLength = buf.readUInt32LE(offset);
  if (payloadLength === 0 || payloadLength > MAX_PAYLOAD_BYTES) {
    return { kind: 'corrupt', reason: `bad frame length ${payloadLength}` };
  }
  const total = FRAME_HEADER_BYTES + payloadLength;
  if (end - offset < total) return { kind: 'incomplete', needBytes: total };
  const payloadStart = offset + FRAME_HEADER_BYTES;
  const payloadEnd = payloadStart + payloadLength;
  const expected = buf.readUInt32LE(offset + 4);
  const actual = crc32(buf.subarray(payloadStart, payloadEnd), crc32(buf.subarray(offset, offset + 4)));
  if (expected !== actual) return { kind: 'corrupt', reason: 'checksum mismatch' };
  return { kind: 'frame', payloadStart, payloadEnd };
}

/** Sequential decoder over one payload. Throws on overrun: the frame was valid, so that is a format bug. */
export class PayloadReader {
  constructor(
    private readonly buf: Buffer,
    private pos: number,
    private readonly end: number,
  ) {}

  private need(n: number): void {
    if (this.pos + n > this.end) throw new Error('record payload too short');
  }

  get remaining(): number {
    return this.end - this.pos;
  }

  u8(): number {
    this.need(1);
    return this.buf[this.pos++]!;
  }

  u32(): number {
    this.need(4);
    const v = this.buf.readUInt32LE(this.pos);
    this.pos += 4;
    return v;
  }

  u64(): number {
    this.need(8);
    const v = this.buf.readUInt32LE(this.pos) + this.buf.readUInt32LE(this.pos + 4) * TWO_32;
    this.pos += 8;
    return v;
  }

  str(): string {
    const n = this.u32();
    this.need(n);
    const s = this.buf.toString('utf8', this.pos, this.pos + n);
    this.pos += n;
    return s;
  }

  /** A copy of the next `n` bytes: stored values must not pin the read buffer. */
  bytes(n: number): Uint8Array {
    this.need(n);
    const out = new Uint8Array(n);
    out.set(this.buf.subarray(this.pos, this.pos + n));
    this.pos += n;
    return out;
  }

  rest(): Uint8Array {
    return this.bytes(this.end - this.pos);
  }
}
