/**
 * HTTP/2 framing (RFC 9113 section 4 and 6): frame types, flags, error codes and
 * settings identifiers, the errors the connection raises, and the writer of a
 * frame's 9-byte header. The connection (connection.ts) reads frames itself,
 * straight from the socket's chunks.
 */

export const FRAME_HEADER_BYTES = 9;

export const FrameType = {
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

export const Flag = {
  END_STREAM: 0x1,
  ACK: 0x1,
  END_HEADERS: 0x4,
  PADDED: 0x8,
  PRIORITY: 0x20,
} as const;

/** Error codes (RFC 9113 section 7). */
export const ErrorCode = {
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

export const Setting = {
  HEADER_TABLE_SIZE: 0x1,
  ENABLE_PUSH: 0x2,
  MAX_CONCURRENT_STREAMS: 0x3,
  INITIAL_WINDOW_SIZE: 0x4,
  MAX_FRAME_SIZE: 0x5,
  MAX_HEADER_LIST_SIZE: 0x6,
} as const;

/** The client connection preface (RFC 9113 section 3.4). */
export const CLIENT_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

/** Flow-control windows and the default frame size (RFC 9113 6.5.2, 6.9). */
export const MAX_WINDOW = 0x7fffffff;
export const DEFAULT_WINDOW = 65_535;
export const DEFAULT_MAX_FRAME_SIZE = 16_384;
export const MAX_FRAME_SIZE_LIMIT = 0xffffff;

/** A connection error: the connection ends with GOAWAY carrying `code` (RFC 9113 5.4.1). */
export class H2ConnectionError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'H2ConnectionError';
  }
}

/** A stream error: the stream ends with RST_STREAM carrying `code` (RFC 9113 5.4.2). */
export class H2StreamError extends Error {
  constructor(
    readonly streamId: number,
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'H2StreamError';
  }
}

/** Writes a frame header into `out` at `at`. */
export function writeFrameHeader(out: Uint8Array, at: number, length: number, type: number, flags: number, streamId: number): void {
  out[at] = (length >>> 16) & 0xff;
  out[at + 1] = (length >>> 8) & 0xff;
  out[at + 2] = length & 0xff;
  out[at + 3] = type;
  out[at + 4] = flags;
  out[at + 5] = (streamId >>> 24) & 0x7f;
  out[at + 6] = (streamId >>> 16) & 0xff;
  out[at + 7] = (streamId >>> 8) & 0xff;
  out[at + 8] = streamId & 0xff;
}

/** A whole frame with a small payload (control frames). */
export function controlFrame(type: number, flags: number, streamId: number, payload?: Uint8Array): Buffer {
  const length = payload?.byteLength ?? 0;
  const out = Buffer.allocUnsafe(FRAME_HEADER_BYTES + length);
  writeFrameHeader(out, 0, length, type, flags, streamId);
  if (payload !== undefined) out.set(payload, FRAME_HEADER_BYTES);
  return out;
}

/** A frame whose payload is one 32-bit number (RST_STREAM, WINDOW_UPDATE). */
export function u32Frame(type: number, streamId: number, value: number): Buffer {
  const out = Buffer.allocUnsafe(FRAME_HEADER_BYTES + 4);
  writeFrameHeader(out, 0, 4, type, 0, streamId);
  out.writeUInt32BE(value >>> 0, FRAME_HEADER_BYTES);
  return out;
}

/** GOAWAY with the last stream processed and an error code (no debug data). */
export function goawayFrame(lastStreamId: number, code: number): Buffer {
  const out = Buffer.allocUnsafe(FRAME_HEADER_BYTES + 8);
  writeFrameHeader(out, 0, 8, FrameType.GOAWAY, 0, 0);
  out.writeUInt32BE(lastStreamId & 0x7fffffff, FRAME_HEADER_BYTES);
  out.writeUInt32BE(code >>> 0, FRAME_HEADER_BYTES + 4);
  return out;
}

/** A SETTINGS frame carrying [identifier, value] pairs. */
export function settingsFrame(settings: readonly (readonly [number, number])[]): Buffer {
  const out = Buffer.allocUnsafe(FRAME_HEADER_BYTES + settings.length * 6);
  writeFrameHeader(out, 0, settings.length * 6, FrameType.SETTINGS, 0, 0);
  let at = FRAME_HEADER_BYTES;
  for (const [id, value] of settings) {
    out.writeUInt16BE(id, at);
    out.writeUInt32BE(value >>> 0, at + 2);
    at += 6;
  }
  return out;
}
