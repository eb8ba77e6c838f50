/**
 * The write-ahead log writer: encodes records into an in-memory buffer and,
 * when asked, writes the buffer to the current segment and fdatasyncs it.
 *
 * Records are appended by the store synchronously as writes are validated.
 * `flush()` swaps in a fresh buffer first, so appends made while a flush is in
 * progress form the next group commit. Only one flush runs at a time (the
 * committer guarantees it), and rotation happens between flushes.
 *
 * Record payloads (after the type byte):
 *   PUT     rev u64, createRevision u64, key str, value (rest of payload)
 *   DELETE  rev u64, createRevision u64, key str
 *   COMPACT rev u64
 */
import { writeSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { FrameBuffer, maxUtf8Bytes, REC_COMPACT, REC_DELETE, REC_PUT } from './records.ts';
import { fsyncDir, pathIn, PRIVATE_FILE_MODE, segmentName } from './files.ts';

export interface WalStats {
  /** fdatasync calls on WAL segments. */
  fsyncs: number;
  /** Bytes written to WAL segments by this process. */
  bytesWritten: number;
}

export interface WalFaults {
  /** Awaited before each WAL fdatasync; throwing simulates a failed sync, a slow promise a slow disk. For tests. */
  beforeSync?: () => void | Promise<void>;
}

export class WalWriter {
  private pending = new FrameBuffer();
  private spare = new FrameBuffer();
  readonly stats: WalStats = { fsyncs: 0, bytesWritten: 0 };

  private constructor(
    private readonly dir: string,
    private fh: FileHandle,
    /** Sequence number of the current segment. */
    public seq: number,
    /** Size of the current segment (where the next flush writes). */
    public segmentBytes: number,
    private readonly faults: WalFaults,
  ) {}

  /** Continue the existing segment `seq`, whose valid data ends at `size` (torn tail already cut). */
  static async resume(dir: string, seq: number, size: number, faults: WalFaults = {}): Promise<WalWriter> {
    const fh = await open(pathIn(dir, segmentName(seq)), 'r+');
    return new WalWriter(dir, fh, seq, size, faults);
  }

  /** Start a new, empty segment `seq`. */
  static async create(dir: string, seq: number, faults: WalFaults = {}): Promise<WalWriter> {
    return new WalWriter(dir, await WalWriter.createSegment(dir, seq), seq, 0, faults);
  }

  private static async createSegment(dir: string, seq: number): Promise<FileHandle> {
    const fh = await open(pathIn(dir, segmentName(seq)), 'wx', PRIVATE_FILE_MODE);
    // The new name must be durable before any record in it is acknowledged.
    await fsyncDir(dir);
    return fh;
  }

  /** Bytes appended but not yet flushed. */
  get pendingBytes(): number {
    return this.pending.length;
  }

  appendPut(revision: number, createRevision: number, key: string, value: Uint8Array): void {
    const b = this.pending;
    const start = b.begin(1 + 8 + 8 + 4 + maxUtf8Bytes(key) + value.length);
    b.u8(REC_PUT);
    b.u64(revision);
    b.u64(createRevision);
    b.str(key);
    b.bytes(value);
    b.end(start);
  }

  appendDelete(revision: number, createRevision: number, key: string): void {
    const b = this.pending;
    const start = b.begin(1 + 8 + 8 + 4 + maxUtf8Bytes(key));
    b.u8(REC_DELETE);
    b.u64(revision);
    b.u64(createRevision);
    b.str(key);
    b.end(start);
  }

  appendCompact(revision: number): void {
    const b = this.pending;
    const start = b.begin(1 + 8);
    b.u8(REC_COMPACT);
    b.u64(revision);
    b.end(start);
  }

  /** Write everything appended so far and fdatasync it. Resolves once it is durable. */
  async flush(): Promise<void> {
    const buf = this.pending;
    this.pending = this.spare;
    this.spare = buf;
    if (buf.length === 0) return;
    // Written from this thread: a write into the page cache takes microseconds, while an asynchronous one costs
    // a trip through libuv's pool and back (a wake-up on each side) for every group. The sync below stays
    // asynchronous: it waits on the disk, and the writes arriving meanwhile form the next group.
    let written = 0;
    while (written < buf.length) written += writeSync(this.fh.fd, buf.buf, written, buf.length - written, this.segmentBytes + written);
    if (this.faults.beforeSync) await this.faults.beforeSync();
    await this.fh.datasync();
    this.stats.fsyncs++;
    this.stats.bytesWritten += written;
    this.segmentBytes += written;
    buf.reset();
  }

  /**
   * Close the current segment and continue in a new one. Call only between
   * flushes, after a flush, so the old segment is complete and durable.
   * Returns the old segment's sequence number.
   */
  async rotate(): Promise<number> {
    const old = this.seq;
    const fh = await WalWriter.createSegment(this.dir, old + 1);
    await this.fh.close();
    this.fh = fh;
    this.seq = old + 1;
    this.segmentBytes = 0;
    return old;
  }

  async close(): Promise<void> {
    await this.fh.close();
  }
}
