/**
 * Audit events as log lines in bytes: the batch-mode path from the filter to
 * the log file when the log is the only backend (JSON format, no truncate
 * plugin, batches sent at once), as the original's default
 * `--audit-log-mode=batch` runs it.
 *
 * Why bytes: each event is encoded once, into memory the thread owns; a
 * front-end thread hands one turn's lines to the thread that owns the file by
 * transferring those buffers (no copy, no per-event object on either side),
 * and the file takes them as they are (one writev). Handing over strings cost
 * a structured-clone copy on both threads, an entry object per event, and a
 * UTF-8 encode of the joined text at the write. Parts that repeat (the
 * constant keys, a request's shared fields) are copied as bytes encoded once
 * (metadata-lines.ts).
 */

/** Lines encoded into buffers that own their memory (so they can be transferred). */
export interface EncodedLines {
  /** The bytes, each view over its own ArrayBuffer; every line ends with `\n` (a line may span two chunks). */
  readonly chunks: Uint8Array[];
  /** How many lines (events) they hold. */
  readonly count: number;
}

/**
 * The size of the buffers used again (recycle): what the filter gathers per
 * flush. Buffers of this size come from the thread's pool when it has one.
 */
export const POOLED_CHUNK = 64 * 1024;
/** Buffers a thread keeps for reuse (1 MiB). */
const POOL_MAX = 16;

/**
 * Buffer's encoders without buf.write's argument checks and encoding lookup
 * (what buf.write calls; on Buffer.prototype in every Node release), for the
 * many short pieces of a line.
 */
type RawBuffer = Buffer & {
  latin1Write(s: string, offset: number): number;
  utf8Write(s: string, offset: number): number;
};

/**
 * This thread's written-out buffers, for the next lines. Without them a busy
 * thread made tens of MB a second of ArrayBuffers outside the heap, and V8
 * answers that much external memory with full collections.
 */
const pool: ArrayBuffer[] = [];

function alloc(size: number): RawBuffer {
  if (size <= POOLED_CHUNK) {
    const reused = pool.pop();
    if (reused !== undefined) return Buffer.from(reused) as RawBuffer;
    size = POOLED_CHUNK;
  }
  // allocUnsafeSlow: memory of its own (not Buffer's shared pool), so the buffer can be transferred.
  return Buffer.allocUnsafeSlow(size) as RawBuffer;
}

/**
 * Gives buffers back once their lines are written (or dropped): those of the
 * pooled size go to this thread's pool, up to its bound. The caller must not
 * touch them after.
 */
export function recycle(buffers: readonly ArrayBuffer[]): void {
  for (const b of buffers) {
    if (pool.length >= POOL_MAX) return;
    if (b.byteLength === POOLED_CHUNK) pool.push(b);
  }
}

/** How many buffers this thread's pool holds (tests). */
export function pooledBuffers(): number {
  return pool.length;
}

/** The buffers under encoded lines (each chunk's own; a buffer appears once). */
export function buffersOf(lines: EncodedLines): ArrayBuffer[] {
  const out: ArrayBuffer[] = [];
  for (const c of lines.chunks) if (!out.includes(c.buffer as ArrayBuffer)) out.push(c.buffer as ArrayBuffer);
  return out;
}

/** Writes lines into buffers of their own, growing by new buffers (never copying what was written). */
export class LineWriter {
  readonly #chunks: Uint8Array[] = [];
  #buf: RawBuffer;
  #used = 0;
  #count = 0;

  /** `estimate`: the bytes expected (the first buffer's size; up to POOLED_CHUNK, a pooled one). */
  constructor(estimate: number) {
    this.#buf = alloc(estimate);
  }

  /** Makes sure the next `n` bytes fit in the current buffer. */
  reserve(n: number): void {
    if (this.#used + n <= this.#buf.length) return;
    if (this.#used > 0) this.#chunks.push(this.#buf.subarray(0, this.#used));
    this.#buf = alloc(Math.max(POOLED_CHUNK, n));
    this.#used = 0;
  }

  /** Bytes already encoded (reserve first). */
  bytes(b: Uint8Array): void {
    this.#buf.set(b, this.#used);
    this.#used += b.length;
  }

  /** A string known to be ASCII (reserve its length first). */
  ascii(s: string): void {
    this.#used += this.#buf.latin1Write(s, this.#used);
  }

  /** One byte (reserve first). */
  byte(b: number): void {
    this.#buf[this.#used++] = b;
  }

  /** A string as UTF-8 (reserves room itself). */
  utf8(s: string): void {
    // A UTF-16 unit takes at most 3 bytes in UTF-8; count exactly only when the cheap bound does not fit.
    if (this.#used + s.length * 3 > this.#buf.length) this.reserve(Buffer.byteLength(s));
    this.#used += this.#buf.utf8Write(s, this.#used);
  }

  /** Ends a line (`\n`). */
  endLine(): void {
    this.reserve(1);
    this.#buf[this.#used++] = 0x0a;
    this.#count++;
  }

  /** A whole line from its JSON. */
  line(json: string): void {
    this.utf8(json);
    this.endLine();
  }

  /** What was written; the writer is not used after. */
  take(): EncodedLines {
    if (this.#used > 0) this.#chunks.push(this.#buf.subarray(0, this.#used));
    return { chunks: this.#chunks, count: this.#count };
  }
}

/** Encodes `lines` (JSON documents without line breaks) as UTF-8, each followed by a newline. */
export function encodeLines(lines: readonly string[]): EncodedLines {
  let chars = 0;
  for (const l of lines) chars += l.length + 1;
  const w = new LineWriter(chars);
  for (const l of lines) w.line(l);
  return w.take();
}

/** The ArrayBuffers to transfer with the chunks. */
export function transferList(lines: EncodedLines): ArrayBuffer[] {
  return buffersOf(lines);
}

/** The lines back as strings (for a sink that has backends needing events, not bytes). */
export function decodeLines(lines: EncodedLines): string[] {
  const text = Buffer.concat(lines.chunks).toString('utf8');
  const out = text.split('\n');
  out.pop(); // after the last newline
  return out;
}
