/**
 * A cursor over Protobuf bytes with the primitives the codec needs. Errors
 * are thrown as ProtobufDecodeError: malformed input is the client's fault.
 */
import { ProtobufDecodeError } from './errors.ts';

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_BYTES = 2;
export const WIRE_FIXED32 = 5;

const TWO_32 = 4294967296;

export class Reader {
  readonly buf: Buffer;
  pos: number;

  constructor(bytes: Uint8Array, start = 0) {
    this.buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.pos = start;
  }

  /**
   * A varint as a JS number: exact up to 2^53; a ten-byte negative (an int32
   * or int64 below zero) comes back negative. Callers of int32 fields apply `| 0`.
   */
  varint(): number {
    const buf = this.buf;
    let pos = this.pos;
    let b = buf[pos++]!;
    if (b < 0x80) {
      this.pos = pos;
      return b;
    }
    let lo = b & 0x7f;
    for (let shift = 7; shift < 28; shift += 7) {
      b = this.#at(pos++);
      lo |= (b & 0x7f) << shift;
      if (b < 0x80) {
        this.pos = pos;
        return lo;
      }
    }
    b = this.#at(pos++);
    lo = (lo | ((b & 0x0f) << 28)) >>> 0;
    let hi = (b & 0x7f) >>> 4;
    if (b >= 0x80) {
      for (let shift = 3; ; shift += 7) {
        if (shift > 31) throw new ProtobufDecodeError('varint longer than ten bytes');
        b = this.#at(pos++);
        hi = (hi | ((b & 0x7f) << shift)) >>> 0;
        if (b < 0x80) break;
      }
    }
    this.pos = pos;
    if (hi & 0x80000000) return -((~hi >>> 0) * TWO_32 + (~lo >>> 0) + 1);
    return hi * TWO_32 + lo;
  }

  /** End offset of a length-delimited body that starts here. */
  lengthEnd(limit: number): number {
    const len = this.varint();
    const end = this.pos + len;
    if (len < 0 || end > limit) throw new ProtobufDecodeError('length-delimited field runs past its message');
    return end;
  }

  string(limit: number): string {
    const end = this.lengthEnd(limit);
    const start = this.pos;
    this.pos = end;
    return this.buf.toString('utf8', start, end);
  }

  bytes(limit: number): Buffer {
    const end = this.lengthEnd(limit);
    const start = this.pos;
    this.pos = end;
    return this.buf.subarray(start, end);
  }

  double(limit: number): number {
    if (this.pos + 8 > limit) throw new ProtobufDecodeError('truncated fixed64 field');
    const v = this.buf.readDoubleLE(this.pos);
    this.pos += 8;
    return v;
  }

  skip(wireType: number, limit: number): void {
    switch (wireType) {
      case WIRE_VARINT:
        this.varint();
        return;
      case WIRE_FIXED64:
        this.pos += 8;
        break;
      case WIRE_BYTES:
        this.pos = this.lengthEnd(limit);
        return;
      case WIRE_FIXED32:
        this.pos += 4;
        break;
      default:
        throw new ProtobufDecodeError(`unsupported wire type ${wireType}`);
    }
    if (this.pos > limit) throw new ProtobufDecodeError('field runs past its message');
  }

  #at(pos: number): number {
    const b = this.buf[pos];
    if (b === undefined) throw new ProtobufDecodeError('truncated varint');
    return b;
  }
}
