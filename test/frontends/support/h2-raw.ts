/**
 * A raw HTTP/2 client for attacks and protocol errors node's own client will
 * not make: it writes frames straight onto a TLS socket (no stream limit, no
 * queueing, no validation), records every frame the server sends back, and
 * lets a test wait for the one it expects. HPACK is the bare minimum: header
 * blocks are written as literals (never touching the server's dynamic table),
 * and the client announces a header table of 0 bytes by default so the
 * server's answers carry no reference to a dynamic table either, and
 * statusOf() can read them.
 */
import tls from 'node:tls';

export const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

/** Frame types (RFC 9113 §6). */
export const FRAME = {
  DATA: 0x0,
  HEADERS: 0x1,
  PRIORITY: 0x2,
  RST_STREAM: 0x3,
  SETTINGS: 0x4,
  PUSH_PROMISE: 0x5,
  PING: 0x6,
  GOAWAY: 0x7,
  WINDOW_UPDATE: 0x8,
  CONTINUATION: 0x9,
} as const;

/** Frame flags (RFC 9113 §6). */
export const FLAG = { END_STREAM: 0x1, ACK: 0x1, END_HEADERS: 0x4, PADDED: 0x8, PRIORITY: 0x20 } as const;

/** Error codes (RFC 9113 §7). */
export const H2_ERROR = {
  NO_ERROR: 0x0,
  PROTOCOL_ERROR: 0x1,
  INTERNAL_ERROR: 0x2,
  FLOW_CONTROL_ERROR: 0x3,
  SETTINGS_TIMEOUT: 0x4,
  STREAM_CLOSED: 0x5,
  FRAME_SIZE_ERROR: 0x6,
  REFUSED_STREAM: 0x7,
  CANCEL: 0x8,
  COMPRESSION_ERROR: 0x9,
  CONNECT_ERROR: 0xa,
  ENHANCE_YOUR_CALM: 0xb,
  INADEQUATE_SECURITY: 0xc,
  HTTP_1_1_REQUIRED: 0xd,
} as const;

/** SETTINGS identifiers (RFC 9113 §6.5.2). */
export const SETTING = {
  HEADER_TABLE_SIZE: 0x1,
  ENABLE_PUSH: 0x2,
  MAX_CONCURRENT_STREAMS: 0x3,
  INITIAL_WINDOW_SIZE: 0x4,
  MAX_FRAME_SIZE: 0x5,
  MAX_HEADER_LIST_SIZE: 0x6,
} as const;

const TYPE_NAMES = Object.fromEntries(Object.entries(FRAME).map(([name, type]) => [type, name])) as Record<number, string>;
const ERROR_NAMES = Object.fromEntries(Object.entries(H2_ERROR).map(([name, code]) => [code, name])) as Record<number, string>;

/** An error code's RFC name (or its number). */
export function errorName(code: number): string {
  return ERROR_NAMES[code] ?? `0x${code.toString(16)}`;
}

// Frames (RFC 9113 §4.1, §6).

export function frame(type: number, flags: number, streamId: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head[3] = type;
  head[4] = flags;
  head.writeUInt32BE(streamId & 0x7fffffff, 5);
  return Buffer.concat([head, payload]);
}

export function settingsFrame(pairs: readonly (readonly [number, number])[], flags = 0): Buffer {
  const payload = Buffer.alloc(6 * pairs.length);
  pairs.forEach(([id, value], i) => {
    payload.writeUInt16BE(id, 6 * i);
    payload.writeUInt32BE(value >>> 0, 6 * i + 2);
  });
  return frame(FRAME.SETTINGS, flags, 0, payload);
}

/** A SETTINGS payload's parameters, identifier to value (a later one wins, as RFC 9113 §6.5 says). */
export function parseSettings(payload: Buffer): Map<number, number> {
  const out = new Map<number, number>();
  for (let at = 0; at + 6 <= payload.length; at += 6) out.set(payload.readUInt16BE(at), payload.readUInt32BE(at + 2));
  return out;
}

export function pingFrame(data: Buffer, flags = 0): Buffer {
  return frame(FRAME.PING, flags, 0, data);
}

export function windowUpdateFrame(streamId: number, increment: number): Buffer {
  const payload = Buffer.alloc(4);
  payload.writeUInt32BE(increment >>> 0);
  return frame(FRAME.WINDOW_UPDATE, 0, streamId, payload);
}

export function rstStreamFrame(streamId: number, code: number): Buffer {
  const payload = Buffer.alloc(4);
  payload.writeUInt32BE(code);
  return frame(FRAME.RST_STREAM, 0, streamId, payload);
}

export function goawayFrame(lastStreamId: number, code: number): Buffer {
  const payload = Buffer.alloc(8);
  payload.writeUInt32BE(lastStreamId & 0x7fffffff);
  payload.writeUInt32BE(code, 4);
  return frame(FRAME.GOAWAY, 0, 0, payload);
}

export function dataFrame(streamId: number, payload: Buffer, endStream = false): Buffer {
  return frame(FRAME.DATA, endStream ? FLAG.END_STREAM : 0, streamId, payload);
}

/** `block` as HEADERS, END_HEADERS set unless `endHeaders` is false. */
export function headersFrame(streamId: number, block: Buffer, { endStream = false, endHeaders = true } = {}): Buffer {
  return frame(FRAME.HEADERS, (endStream ? FLAG.END_STREAM : 0) | (endHeaders ? FLAG.END_HEADERS : 0), streamId, block);
}

export function continuationFrame(streamId: number, block: Buffer, endHeaders = true): Buffer {
  return frame(FRAME.CONTINUATION, endHeaders ? FLAG.END_HEADERS : 0, streamId, block);
}

/** DATA frames of at most `frameSize` bytes carrying `body`, the last one with END_STREAM when `endStream`. */
export function dataFrames(streamId: number, body: Buffer, frameSize: number, endStream: boolean): Buffer[] {
  const frames: Buffer[] = [];
  for (let at = 0; at < body.length; at += frameSize) {
    const end = Math.min(body.length, at + frameSize);
    frames.push(dataFrame(streamId, body.subarray(at, end), endStream && end === body.length));
  }
  if (body.length === 0) frames.push(dataFrame(streamId, body, endStream));
  return frames;
}

// HPACK (RFC 7541), as little as the tests need.

/** An HPACK integer with an N-bit prefix (§5.1); `first` carries the bits above the prefix. */
function hpackInteger(value: number, prefixBits: number, first: number): number[] {
  const max = (1 << prefixBits) - 1;
  if (value < max) return [first | value];
  const out = [first | max];
  let rest = value - max;
  while (rest >= 128) {
    out.push((rest % 128) | 0x80);
    rest = Math.floor(rest / 128);
  }
  out.push(rest);
  return out;
}

function hpackString(text: string): Buffer {
  const bytes = Buffer.from(text, 'latin1');
  return Buffer.concat([Buffer.from(hpackInteger(bytes.length, 7, 0)), bytes]);
}

/** A header block of literal fields without indexing, new names (§6.2.2): any name, any case, any value. */
export function headerBlock(fields: readonly (readonly [string, string])[]): Buffer {
  return Buffer.concat(fields.flatMap(([name, value]) => [Buffer.from([0x00]), hpackString(name), hpackString(value)]));
}

/** A request's header block: the four pseudo-headers, then `extra`. */
export function requestBlock(method: string, path: string, extra: readonly (readonly [string, string])[] = []): Buffer {
  return headerBlock([[':method', method], [':scheme', 'https'], [':path', path], [':authority', 'localhost'], ...extra]);
}

/** A GET's header block in HPACK without the dynamic table: :method GET, :scheme https, literal :path and :authority. */
function getHeaderBlock(path: string): Buffer {
  const literal = (nameIndex: number, value: string): Buffer => Buffer.concat([Buffer.from([nameIndex, value.length]), Buffer.from(value, 'latin1')]);
  return Buffer.concat([Buffer.from([0x82, 0x87]), literal(0x04, path), literal(0x01, 'localhost')]);
}

/** The static table's :status entries (RFC 7541 Appendix A). */
const STATIC_STATUS: Record<number, number> = { 8: 200, 9: 204, 10: 206, 11: 304, 12: 400, 13: 404, 14: 500 };

/** Huffman codes of the digits (RFC 7541 Appendix B): '0'-'2' take 5 bits, '3'-'9' 6 bits (011001-011111). */
function huffmanDigits(bytes: Buffer): string | undefined {
  let bits = '';
  for (const b of bytes) bits += b.toString(2).padStart(8, '0');
  let out = '';
  let i = 0;
  while (i < bits.length) {
    const rest = bits.slice(i);
    // Padding: fewer than 8 bits of the EOS code's leading 1s.
    if (rest.length < 8 && /^1*$/.test(rest)) break;
    const five = parseInt(bits.slice(i, i + 5), 2);
    if (five <= 2) {
      out += String(five);
      i += 5;
      continue;
    }
    const six = parseInt(bits.slice(i, i + 6), 2);
    if (six >= 0b011001 && six <= 0b011111) {
      out += String(six - 0b011001 + 3);
      i += 6;
      continue;
    }
    return undefined;
  }
  return out;
}

/**
 * The :status of a response header block from a server that keeps no dynamic
 * table for this client (its first field, as pseudo-headers come first): an
 * indexed static entry, or a literal with a static :status name. Undefined
 * when the block starts otherwise.
 */
export function statusOf(block: Buffer): number | undefined {
  let i = 0;
  // Dynamic table size updates (001xxxxx) come first.
  while (i < block.length && (block[i]! & 0xe0) === 0x20) {
    const prefixFull = (block[i]! & 0x1f) === 0x1f;
    i++;
    if (prefixFull) while (i < block.length && block[i++]! & 0x80);
  }
  const b = block[i];
  if (b === undefined) return undefined;
  if (b & 0x80) return STATIC_STATUS[b & 0x7f];
  let nameIndex: number;
  if ((b & 0xc0) === 0x40) nameIndex = b & 0x3f; // with incremental indexing
  else if ((b & 0xe0) === 0x00) nameIndex = b & 0x0f; // without indexing (0000) or never indexed (0001)
  else return undefined;
  if (STATIC_STATUS[nameIndex] === undefined) return undefined;
  i++;
  const huffman = (block[i]! & 0x80) !== 0;
  const length = block[i]! & 0x7f;
  const raw = block.subarray(i + 1, i + 1 + length);
  const text = huffman ? huffmanDigits(raw) : raw.toString('latin1');
  return text === undefined || !/^\d{3}$/.test(text) ? undefined : Number(text);
}

// The connection.

export interface H2Frame {
  type: number;
  flags: number;
  streamId: number;
  payload: Buffer;
}

/** A frame in a line, for failure messages. */
export function describeFrame(f: H2Frame): string {
  const name = TYPE_NAMES[f.type] ?? `type 0x${f.type.toString(16)}`;
  let detail = '';
  if (f.type === FRAME.GOAWAY && f.payload.length >= 8) detail = ` last=${f.payload.readUInt32BE(0) & 0x7fffffff} ${errorName(f.payload.readUInt32BE(4))}`;
  if (f.type === FRAME.RST_STREAM && f.payload.length >= 4) detail = ` ${errorName(f.payload.readUInt32BE(0))}`;
  if (f.type === FRAME.HEADERS) detail = ` status=${statusOf(f.payload) ?? '?'}`;
  return `${name}(stream ${f.streamId}, flags 0x${f.flags.toString(16)}, ${f.payload.length} B${detail})`;
}

export interface GoawayInfo {
  lastStreamId: number;
  code: number;
  debug: string;
}

/** How a stream ended for the client. */
export type StreamOutcome =
  | { kind: 'response'; status: number | undefined; body: Buffer; trailers: boolean }
  | { kind: 'reset'; code: number }
  | { kind: 'goaway'; code: number; lastStreamId: number }
  | { kind: 'closed' };

export interface RawH2Options {
  /** Written first instead of the client preface and SETTINGS (hostile prefaces). */
  start?: Buffer;
  /** The client's SETTINGS, [identifier, value] pairs; by default a header table of 0 bytes (see statusOf). */
  settings?: readonly (readonly [number, number])[];
}

export interface RawH2Connection {
  socket: tls.TLSSocket;
  /** Every frame received, in order. */
  frames: H2Frame[];
  /** RST_STREAM frames received: stream id and error code. */
  resets: { streamId: number; code: number }[];
  /** Resolves once the server's first SETTINGS has arrived (and been acknowledged). */
  settled: Promise<void>;
  /** The first GOAWAY's error code, when one comes. */
  goaway: Promise<number>;
  /** Resolves when the server closes the connection. */
  closed: Promise<void>;
  /** Writes frames (or any bytes) in one write. */
  send(...chunks: Buffer[]): void;
  /**
   * The first frame received (before or after the call) that `match` accepts; rejects after
   * `timeoutMs`, or as soon as the connection closes without one.
   */
  waitForFrame(match: (f: H2Frame) => boolean, timeoutMs?: number, what?: string): Promise<H2Frame>;
  /** The first GOAWAY, decoded; rejects as waitForFrame does. */
  waitForGoaway(timeoutMs?: number): Promise<GoawayInfo>;
  /** How stream `streamId` ended: its response (to END_STREAM), a RST_STREAM, a GOAWAY, or the connection closing. */
  streamOutcome(streamId: number, timeoutMs?: number): Promise<StreamOutcome>;
  /** True if the connection closes within `ms`. */
  closesWithin(ms: number): Promise<boolean>;
  /** Frames received so far, one line each (for failure messages). */
  summary(): string;
}

const DEFAULT_WAIT_MS = 3_000;

export async function connectRawH2(port: number, ca: string, opts: RawH2Options = {}): Promise<RawH2Connection> {
  const socket = tls.connect({ host: '127.0.0.1', port, ca, ALPNProtocols: ['h2'], servername: 'localhost' });
  socket.on('error', () => {});
  await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
  const frames: H2Frame[] = [];
  const resets: RawH2Connection['resets'] = [];
  const listeners = new Set<(f: H2Frame | null) => void>();
  let isClosed = false;
  let resolveSettled: () => void = () => {};
  const settled = new Promise<void>((resolve) => (resolveSettled = resolve));
  let resolveGoaway: (code: number) => void = () => {};
  const goaway = new Promise<number>((resolve) => (resolveGoaway = resolve));
  const closed = new Promise<void>((resolve) =>
    socket.once('close', () => {
      isClosed = true;
      for (const listener of [...listeners]) listener(null);
      resolve();
    }),
  );
  let buffered: Buffer = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    while (buffered.length >= 9) {
      const length = buffered.readUIntBE(0, 3);
      if (buffered.length < 9 + length) break;
      const f: H2Frame = {
        type: buffered[3]!,
        flags: buffered[4]!,
        streamId: buffered.readUInt32BE(5) & 0x7fffffff,
        payload: Buffer.from(buffered.subarray(9, 9 + length)),
      };
      buffered = buffered.subarray(9 + length);
      frames.push(f);
      if (f.type === FRAME.GOAWAY && f.payload.length >= 8) resolveGoaway(f.payload.readUInt32BE(4));
      if (f.type === FRAME.RST_STREAM && f.payload.length >= 4) resets.push({ streamId: f.streamId, code: f.payload.readUInt32BE(0) });
      if (f.type === FRAME.SETTINGS && (f.flags & FLAG.ACK) === 0) {
        if (socket.writable) socket.write(frame(FRAME.SETTINGS, FLAG.ACK, 0));
        resolveSettled();
      }
      for (const listener of [...listeners]) listener(f);
    }
  });
  socket.write(opts.start ?? Buffer.concat([PREFACE, settingsFrame(opts.settings ?? [[SETTING.HEADER_TABLE_SIZE, 0]])]));

  const summary = (): string => (frames.length === 0 ? '(no frames)' : frames.map(describeFrame).join(', '));

  /** Feeds `visit` every frame so far and then each new one (null: the connection closed) until it returns a value. */
  const follow = <T>(visit: (f: H2Frame | null) => T | undefined, timeoutMs: number, what: string): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      for (const f of frames) {
        const done = visit(f);
        if (done !== undefined) return resolve(done);
      }
      if (isClosed) {
        const done = visit(null);
        if (done !== undefined) return resolve(done);
        return reject(new Error(`${what}: the connection closed first; received ${summary()}`));
      }
      const timer = setTimeout(() => {
        listeners.delete(listener);
        reject(new Error(`${what}: nothing after ${timeoutMs} ms; received ${summary()}`));
      }, timeoutMs);
      const listener = (f: H2Frame | null): void => {
        const done = visit(f);
        if (done === undefined && f !== null) return;
        clearTimeout(timer);
        listeners.delete(listener);
        if (done !== undefined) resolve(done);
        else reject(new Error(`${what}: the connection closed first; received ${summary()}`));
      };
      listeners.add(listener);
    });

  const waitForFrame = (match: (f: H2Frame) => boolean, timeoutMs = DEFAULT_WAIT_MS, what = 'a matching frame'): Promise<H2Frame> =>
    follow((f) => (f !== null && match(f) ? f : undefined), timeoutMs, what);

  return {
    socket,
    frames,
    resets,
    settled,
    goaway,
    closed,
    send(...chunks) {
      if (socket.writable) socket.write(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    },
    waitForFrame,
    async waitForGoaway(timeoutMs = DEFAULT_WAIT_MS) {
      const f = await waitForFrame((g) => g.type === FRAME.GOAWAY, timeoutMs, 'GOAWAY');
      return { lastStreamId: f.payload.readUInt32BE(0) & 0x7fffffff, code: f.payload.readUInt32BE(4), debug: f.payload.subarray(8).toString('latin1') };
    },
    streamOutcome(streamId, timeoutMs = DEFAULT_WAIT_MS) {
      let status: number | undefined;
      let headers = 0;
      const body: Buffer[] = [];
      return follow<StreamOutcome>(
        (f) => {
          if (f === null) return { kind: 'closed' };
          if (f.type === FRAME.GOAWAY && (f.payload.readUInt32BE(4) !== H2_ERROR.NO_ERROR || (f.payload.readUInt32BE(0) & 0x7fffffff) < streamId)) {
            return { kind: 'goaway', code: f.payload.readUInt32BE(4), lastStreamId: f.payload.readUInt32BE(0) & 0x7fffffff };
          }
          if (f.streamId !== streamId) return undefined;
          if (f.type === FRAME.RST_STREAM) return { kind: 'reset', code: f.payload.readUInt32BE(0) };
          if (f.type === FRAME.HEADERS) {
            const s = statusOf(f.payload);
            // 1xx heads are followed by the real one.
            if (s === undefined || s >= 200) {
              headers++;
              if (headers === 1) status = s;
            }
          }
          if (f.type === FRAME.DATA) body.push(f.payload);
          if ((f.type === FRAME.HEADERS || f.type === FRAME.DATA) && (f.flags & FLAG.END_STREAM) !== 0 && headers > 0) {
            return { kind: 'response', status, body: Buffer.concat(body), trailers: headers > 1 };
          }
          return undefined;
        },
        timeoutMs,
        `the end of stream ${streamId}`,
      );
    },
    closesWithin(ms) {
      if (isClosed) return Promise.resolve(true);
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(false), ms);
        void closed.then(() => {
          clearTimeout(timer);
          resolve(true);
        });
      });
    },
    summary,
  };
}

/** Opens `count` GET streams (ids 1, 3, 5, ...), the i-th of `path(i)`, in one write, and leaves them open. */
export function openStreams(conn: RawH2Connection, path: (i: number) => string, count: number): void {
  const frames: Buffer[] = [];
  for (let i = 0, id = 1; i < count; i++, id += 2) frames.push(frame(FRAME.HEADERS, FLAG.END_HEADERS | FLAG.END_STREAM, id, getHeaderBlock(path(i))));
  conn.socket.write(Buffer.concat(frames));
}

/**
 * Writes `count` GETs of `path`, each reset at once with `code`, in writes of
 * a hundred pairs; stops early when the server closes. Returns how many were sent.
 */
export async function rapidReset(conn: RawH2Connection, path: string, count: number, code: number): Promise<number> {
  const block = getHeaderBlock(path);
  const rst = Buffer.alloc(4);
  rst.writeUInt32BE(code);
  let sent = 0;
  for (let id = 1; sent < count && !conn.socket.destroyed && conn.socket.writable; ) {
    const batch: Buffer[] = [];
    for (let i = 0; i < 100 && sent < count; i++, sent++, id += 2) {
      batch.push(frame(FRAME.HEADERS, FLAG.END_HEADERS | FLAG.END_STREAM, id, block), frame(FRAME.RST_STREAM, 0, id, rst));
    }
    const flushed = conn.socket.write(Buffer.concat(batch));
    await new Promise<void>((resolve) => (flushed ? setImmediate(resolve) : conn.socket.once('drain', resolve)));
  }
  return sent;
}
