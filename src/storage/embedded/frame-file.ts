/**
 * Reads the frames of a WAL segment or snapshot file sequentially, in chunks,
 * so that recovery never needs a whole file in memory at once.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { scanFrame, PayloadReader } from './records.ts';

const CHUNK_BYTES = 4 << 20;

export type FrameRead =
  /** A valid frame at file offset `offset`; `payload` is valid until the next call. */
  | { readonly kind: 'frame'; readonly offset: number; readonly payload: PayloadReader; readonly type: number }
  /** Clean end of file, right after the last valid frame. */
  | { readonly kind: 'eof'; readonly offset: number }
  /** Invalid bytes from `offset` on: a torn tail or corruption. */
  | { readonly kind: 'bad'; readonly offset: number; readonly reason: string };

export class FrameFileReader {
  private buf = Buffer.allocUnsafe(CHUNK_BYTES);
  /** File offset of buf[0]. */
  private bufFileOffset = 0;
  private start = 0;
  private end = 0;
  private fileEnded = false;

  private constructor(private readonly fh: FileHandle) {}

  static async open(path: string): Promise<FrameFileReader> {
    return new FrameFileReader(await open(path, 'r'));
  }

  async close(): Promise<void> {
    await this.fh.close();
  }

  async next(): Promise<FrameRead> {
    for (;;) {
      const scan = scanFrame(this.buf, this.start, this.end);
      const offset = this.bufFileOffset + this.start;
      if (scan.kind === 'frame') {
        this.start = scan.payloadEnd;
        const payload = new PayloadReader(this.buf, scan.payloadStart, scan.payloadEnd);
        const type = payload.u8();
        return { kind: 'frame', offset, payload, type };
      }
      if (scan.kind === 'corrupt') return { kind: 'bad', offset, reason: scan.reason };
      if (this.fileEnded) {
        return this.start === this.end
          ? { kind: 'eof', offset }
          : { kind: 'bad', offset, reason: `incomplete frame (${this.end - this.start} bytes before the end of the file)` };
      }
      await this.fill(scan.needBytes);
    }
  }

  /** Make room for at least `need` bytes from `start`, then read more of the file. */
  private async fill(need: number): Promise<void> {
    const pending = this.end - this.start;
    if (this.start > 0) {
      this.buf.copy(this.buf, 0, this.start, this.end);
      this.bufFileOffset += this.start;
      this.start = 0;
      this.end = pending;
    }
    if (need > this.buf.length) {
      const bigger = Buffer.allocUnsafe(Math.max(need, this.buf.length * 2));
      this.buf.copy(bigger, 0, 0, this.end);
      this.buf = bigger;
    }
    while (this.end < this.buf.length) {
      const { bytesRead } = await this.fh.read(this.buf, this.end, this.buf.length - this.end, this.bufFileOffset + this.end);
      if (bytesRead === 0) {
        this.fileEnded = true;
        return;
      }
      this.end += bytesRead;
      if (this.end - this.start >= need) return;
    }
  }
}
