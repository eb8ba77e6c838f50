/**
 * The watch benchmark's Protobuf watch client: splits the stream into frames
 * and finds, in each, the few bytes a watcher needs — the event type, the
 * object's name and resourceVersion — without decoding the object
 * (src/protobuf's decodeWatchEvent builds the whole JSON object: far too slow
 * for a worker that takes hundreds of thousands of events per second).
 *
 * Stream (`application/vnd.orch.protobuf;stream=watch`): frames of a 4-byte
 * big-endian length, then a WatchEvent {1: type, 2: RawExtension {1: raw}};
 * raw is the enveloped object, "k8s\0" then runtime.Unknown {1: typeMeta,
 * 2: raw = the object's message, 3, 4}; the object's field 1 is its
 * ObjectMeta {1: name, 6: resourceVersion}. ERROR events carry a Status
 * {3: message, 4: reason} instead.
 *
 * Nothing is allocated per frame: fields are reported as byte offsets into
 * the buffer handed to the frame callback.
 */

/** A length prefix above this cannot be a frame of this benchmark (~1 KiB objects): the stream is corrupt. */
export const MAX_FRAME_BYTES = 64 << 20;

const ENVELOPE = [0x6b, 0x38, 0x73, 0x00];
const ERROR_TYPE = Buffer.from('ERROR', 'latin1');
const BOOKMARK_TYPE = Buffer.from('BOOKMARK', 'latin1');

/** Where the parts a watcher reads lie in the frame last scanned (offsets into its buffer; -1 when absent). */
export class EventFields {
  typeStart = -1;
  typeEnd = -1;
  /** The object's own message (runtime.Unknown.raw). */
  objectStart = -1;
  objectEnd = -1;
  nameStart = -1;
  nameEnd = -1;
  rvStart = -1;
  rvEnd = -1;

  reset(): void {
    this.typeStart = this.typeEnd = this.objectStart = this.objectEnd = -1;
    this.nameStart = this.nameEnd = this.rvStart = this.rvEnd = -1;
  }
}

/** The fields of an event as strings: for tests and error samples, not for the per-event path. */
export interface EventText {
  readonly type: string;
  readonly name: string | null;
  readonly resourceVersion: string | null;
}

export function eventText(buf: Uint8Array, f: EventFields): EventText {
  const text = (s: number, e: number): string | null => (s < 0 ? null : Buffer.from(buf.buffer, buf.byteOffset + s, e - s).toString('utf8'));
  return { type: text(f.typeStart, f.typeEnd) ?? '', name: text(f.nameStart, f.nameEnd), resourceVersion: text(f.rvStart, f.rvEnd) };
}

/** Position after the varint `readVarint` last read: module state rather than a returned pair, so that no field allocates. */
let after = 0;

/** A tag or length (sets `after`), or -1 when it runs past `end` or has more than 7 bytes (2^49: no frame is that long). */
function readVarint(buf: Uint8Array, pos: number, end: number): number {
  let v = 0;
  let mul = 1;
  while (pos < end) {
    const b = buf[pos++]!;
    v += (b & 0x7f) * mul;
    if (b < 0x80) {
      after = pos;
      return v;
    }
    mul *= 128;
    if (mul > 2 ** 42) return -1;
  }
  return -1;
}

/** Past a varint value of up to 10 bytes (a negative int64 takes 10), or -1 when it runs past `end` or longer. */
function skipVarint(buf: Uint8Array, pos: number, end: number): number {
  const last = Math.min(end, pos + 10);
  while (pos < last) if (buf[pos++]! < 0x80) return pos;
  return -1;
}

/** Scratch of `twoFields`: the spans of the two wanted fields (-1: absent). Module-wide: scanning is synchronous. */
const spans = { a0: -1, a1: -1, b0: -1, b1: -1 };

/**
 * Walks the message buf[start, end), checking every field's bounds, and
 * records in `spans` the bytes of length-delimited fields `fa` and `fb`
 * (0: none wanted). Returns an error text when the message is malformed.
 */
function twoFields(buf: Uint8Array, start: number, end: number, fa: number, fb: number): string | null {
  spans.a0 = spans.a1 = spans.b0 = spans.b1 = -1;
  let pos = start;
  while (pos < end) {
    const tag = readVarint(buf, pos, end);
    if (tag < 0) return `truncated tag at ${pos - start}`;
    pos = after;
    const field = Math.floor(tag / 8);
    const wire = tag & 7;
    if (wire === 2) {
      const len = readVarint(buf, pos, end);
      if (len < 0) return `field ${field}: truncated length`;
      pos = after;
      if (pos + len > end) return `field ${field}: ${len} bytes, ${end - pos} left`;
      if (field === fa) {
        spans.a0 = pos;
        spans.a1 = pos + len;
      } else if (field === fb) {
        spans.b0 = pos;
        spans.b1 = pos + len;
      }
      pos += len;
      continue;
    }
    if (field === fa || field === fb) return `field ${field}: wire type ${wire}, expected bytes`;
    if (wire === 0) {
      pos = skipVarint(buf, pos, end);
      if (pos < 0) return `field ${field}: truncated varint`;
    } else if (wire === 1) pos += 8;
    else if (wire === 5) pos += 4;
    else return `field ${field}: unsupported wire type ${wire}`;
  }
  return pos === end ? null : `last field runs ${pos - end} bytes past the end`;
}

function bytesEqual(buf: Uint8Array, start: number, end: number, want: Uint8Array | readonly number[]): boolean {
  if (end - start !== want.length) return false;
  for (let i = 0; i < want.length; i++) if (buf[start + i] !== want[i]) return false;
  return true;
}

export function isErrorEvent(buf: Uint8Array, f: EventFields): boolean {
  return bytesEqual(buf, f.typeStart, f.typeEnd, ERROR_TYPE);
}

/** Type, then the object's message: WatchEvent -> RawExtension.raw -> envelope -> runtime.Unknown.raw. */
function scanEnvelope(buf: Uint8Array, start: number, end: number, out: EventFields): string | null {
  let err = twoFields(buf, start, end, 1, 2);
  if (err !== null) return `WatchEvent: ${err}`;
  if (spans.a0 < 0) return 'WatchEvent without a type';
  if (spans.b0 < 0) return 'WatchEvent without an object';
  out.typeStart = spans.a0;
  out.typeEnd = spans.a1;
  err = twoFields(buf, spans.b0, spans.b1, 1, 0);
  if (err !== null) return `RawExtension: ${err}`;
  const raw0 = spans.a0;
  const raw1 = spans.a1;
  if (raw0 < 0) return 'RawExtension without raw';
  if (raw1 - raw0 < 4 || !bytesEqual(buf, raw0, raw0 + 4, ENVELOPE)) return `raw does not start with "k8s\\0" (${Buffer.from(buf.subarray(raw0, Math.min(raw1, raw0 + 8))).toString('hex')})`;
  err = twoFields(buf, raw0 + 4, raw1, 2, 0);
  if (err !== null) return `runtime.Unknown: ${err}`;
  if (spans.a0 < 0) return 'runtime.Unknown without raw';
  out.objectStart = spans.a0;
  out.objectEnd = spans.a1;
  return null;
}

/** metadata.name and metadata.resourceVersion of the object. */
function scanMetadata(buf: Uint8Array, out: EventFields): string | null {
  let err = twoFields(buf, out.objectStart, out.objectEnd, 1, 0);
  if (err !== null) return `object: ${err}`;
  if (spans.a0 < 0) return 'object without metadata';
  err = twoFields(buf, spans.a0, spans.a1, 1, 6);
  if (err !== null) return `ObjectMeta: ${err}`;
  out.nameStart = spans.a0;
  out.nameEnd = spans.a1;
  out.rvStart = spans.b0;
  out.rvEnd = spans.b1;
  if (out.rvStart < 0) return 'object without metadata.resourceVersion';
  if (out.nameStart < 0 && !bytesEqual(buf, out.typeStart, out.typeEnd, BOOKMARK_TYPE)) return 'object without metadata.name';
  return null;
}

/**
 * Scans one WatchEvent (the frame without its length prefix) in
 * buf[start, end) into `out`; returns an error text when the frame is not a
 * well-formed event. ERROR events stop at the object (a Status has no
 * ObjectMeta): see `statusSummary`.
 */
export function scanWatchEvent(buf: Uint8Array, start: number, end: number, out: EventFields): string | null {
  out.reset();
  const err = scanEnvelope(buf, start, end, out);
  if (err !== null) return err;
  if (isErrorEvent(buf, out)) return null;
  return scanMetadata(buf, out);
}

/** "reason: message" of the Status an ERROR event carries, for the error samples. */
export function statusSummary(buf: Uint8Array, f: EventFields): string {
  if (f.objectStart < 0) return '(no Status)';
  const err = twoFields(buf, f.objectStart, f.objectEnd, 3, 4);
  if (err !== null) return `(unreadable Status: ${err})`;
  const text = (s: number, e: number): string => (s < 0 ? '' : Buffer.from(buf.buffer, buf.byteOffset + s, e - s).toString('utf8'));
  return `${text(spans.b0, spans.b1)}: ${text(spans.a0, spans.a1)}`;
}

/**
 * Splits one watch response into frames, whatever the chunking: a frame may
 * span chunks, a chunk may hold several frames.
 */
export class FrameStream {
  #tail: Buffer | null = null;
  #broken: string | null = null;

  /** Bytes of a partial frame waiting for the rest. */
  get pending(): number {
    return this.#tail?.length ?? 0;
  }

  /**
   * Hands each whole frame (as the WatchEvent's bytes buf[start, end), the
   * length prefix excluded) to `onFrame` and keeps a partial last frame for
   * the next chunk. Returns an error text once a length prefix is
   * impossible: the stream cannot be framed from there on, so every later
   * chunk is refused as well.
   */
  push(chunk: Buffer, onFrame: (buf: Buffer, start: number, end: number) => void): string | null {
    if (this.#broken !== null) return this.#broken;
    let buf = chunk;
    if (this.#tail !== null) {
      // Joined anew per chunk, as the JSON watchers do with a partial line: frames here are ~1 KiB.
      buf = Buffer.concat([this.#tail, chunk]);
      this.#tail = null;
    }
    let pos = 0;
    while (buf.length - pos >= 4) {
      const len = buf.readUInt32BE(pos);
      if (len > MAX_FRAME_BYTES) {
        this.#broken = `frame length ${len} > ${MAX_FRAME_BYTES} (prefix ${buf.subarray(pos, pos + 4).toString('hex')}): the stream cannot be framed`;
        return this.#broken;
      }
      if (buf.length - pos - 4 < len) break;
      onFrame(buf, pos + 4, pos + 4 + len);
      pos += 4 + len;
    }
    // A copy: the chunk's memory is the socket's, not to be held on to.
    if (pos < buf.length) this.#tail = Buffer.from(buf.subarray(pos));
    return null;
  }
}
