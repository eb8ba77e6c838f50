/**
 * The server side of one HTTP/2 connection (RFC 9113) over a TLS socket,
 * written for this server's load: node's HTTP/2 layer (nghttp2 under a
 * stream object per request) costs ~90 µs of CPU a request here, a plain TLS
 * socket ~25 (loadtest/results/cpu-breakdown.md, session 26).
 *
 * Frames are read straight from the socket's chunks; a request is a
 * H2Stream (stream.ts) handed to `onStream` once its head is decoded and
 * checked. Output produced in one turn (heads, DATA as flow control allows,
 * control frames) is written to the socket once, at the turn's end.
 *
 * Bounds, so that no client can make it hold more than it announced: a frame
 * up to our SETTINGS_MAX_FRAME_SIZE, a header block up to the header list
 * limit, unread request bodies up to the connection window, queued control
 * frames up to CONTROL_BACKLOG_BYTES, streams up to SETTINGS_MAX_CONCURRENT_STREAMS,
 * and streams a client abandons up to a token bucket (the rapid-reset defence
 * of rapid-reset-guard.ts, same figures).
 */
import type { TLSSocket } from 'node:tls';
import type { ResetBudget } from '../rapid-reset-guard.ts';
import {
  CLIENT_PREFACE,
  controlFrame,
  DEFAULT_MAX_FRAME_SIZE,
  DEFAULT_WINDOW,
  ErrorCode,
  Flag,
  FRAME_HEADER_BYTES,
  FrameType,
  goawayFrame,
  H2ConnectionError,
  H2StreamError,
  MAX_FRAME_SIZE_LIMIT,
  MAX_WINDOW,
  Setting,
  settingsFrame,
  u32Frame,
  writeFrameHeader,
} from './frames.ts';
import type { EncodedField } from './hpack.ts';
import { HpackDecoder, HpackEncoder, HpackError, maxEncodedLength } from './hpack.ts';
import { validateRequestFields } from './request-fields.ts';
import type { StreamHost } from './stream.ts';
import { H2Stream } from './stream.ts';

export interface H2ConnectionOptions {
  /** SETTINGS_MAX_CONCURRENT_STREAMS. */
  maxConcurrentStreams: number;
  /** SETTINGS_MAX_HEADER_LIST_SIZE: a larger head gets 431. */
  maxHeaderListSize: number;
  /** SETTINGS_MAX_FRAME_SIZE: the largest frame we read. */
  maxFrameSize: number;
  /** SETTINGS_INITIAL_WINDOW_SIZE: what a stream may send before we read it. */
  streamWindow: number;
  /** What the whole connection may send before we read it. */
  connectionWindow: number;
  resetBudget: ResetBudget;
  /** No stream open this long: GOAWAY and close. */
  idleMs: number;
  /** The client's SETTINGS must come within this. */
  settingsMs: number;
  onStream(stream: H2Stream, connection: H2Connection): void;
  /** A fault of ours while reading the connection (it is ended with INTERNAL_ERROR); console by default. */
  onInternalError?(err: unknown): void;
}

/** Output the socket may hold before DATA waits for it to drain. */
const SOCKET_HIGH_WATER = 256 * 1024;
/** Control frames (PING and SETTINGS acks, resets) queued for a client that does not read: past this it is cut off. */
const CONTROL_BACKLOG_BYTES = 4 * 1024 * 1024;
/** Largest DATA frame we send, whatever the client allows: larger frames save nothing once TLS splits them. */
const MAX_DATA_FRAME = 64 * 1024;
/** After a GOAWAY for an error, how long the client has to read it before the socket is destroyed (as Go waits). */
const GOAWAY_GRACE_MS = 1000;
/** Output up to this size is joined into one buffer and written once; above it, written piece by piece under cork. */
const JOIN_BYTES = 16 * 1024;

function reportInternalError(err: unknown): void {
  console.error('orch-apiserver: an HTTP/2 connection failed inside the server:', err);
}

const enum Phase {
  Preface,
  FirstSettings,
  Open,
  Dead,
}

interface HeaderBlock {
  streamId: number;
  endStream: boolean;
  fragments: Uint8Array[];
  bytes: number;
}

export class H2Connection implements StreamHost {
  readonly socket: TLSSocket;
  readonly #opts: H2ConnectionOptions;
  readonly #decoder: HpackDecoder;
  readonly #encoder = new HpackEncoder();
  readonly #streams = new Map<number, H2Stream>();
  /** Streams with output to frame, in the order they asked. */
  readonly #sending = new Set<H2Stream>();
  #phase = Phase.Preface;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** Bytes needed before the pending chunks can be parsed further. */
  #need: number = CLIENT_PREFACE.length;
  #block: HeaderBlock | undefined;
  #lastClientStream = 0;
  /** GOAWAY sent: streams above this id are ignored. */
  #goawayLast = -1;
  #goawayReceived = false;
  #recvConnWindow: number;
  #connUnacked = 0;
  #sendConnWindow = DEFAULT_WINDOW;
  #peerStreamWindow = DEFAULT_WINDOW;
  #peerMaxFrame = DEFAULT_MAX_FRAME_SIZE;
  #out: Buffer[] = [];
  #outBytes = 0;
  #flushScheduled = false;
  #waitingForDrain = false;
  #resetTokens: number;
  #resetStamp = performance.now();
  #idleSince: number;
  #timer: NodeJS.Timeout | undefined;
  #closeListeners: (() => void)[] = [];
  #socketClosed = false;
  /**
   * Streams whose last DATA frame is in the output not yet written: their end is told (and the
   * caller's body parts let go) once the socket has taken those bytes, as node may keep a reference
   * to a chunk it could not write at once.
   */
  #settling = new Set<H2Stream>();
  /** socket.end() was called: nothing more is written. */
  #socketEnded = false;

  constructor(socket: TLSSocket, opts: H2ConnectionOptions) {
    this.socket = socket;
    this.#opts = opts;
    this.#decoder = new HpackDecoder({ maxTableSize: 4096, maxHeaderListSize: opts.maxHeaderListSize });
    this.#recvConnWindow = opts.connectionWindow;
    this.#resetTokens = opts.resetBudget.burst;
    this.#idleSince = performance.now();
    socket.setNoDelay(true);
    socket.on('data', this.#onData);
    socket.on('drain', this.#onDrain);
    socket.on('error', () => socket.destroy());
    socket.once('close', this.#onSocketClose);
    this.#queue(
      settingsFrame([
        [Setting.MAX_CONCURRENT_STREAMS, opts.maxConcurrentStreams],
        [Setting.INITIAL_WINDOW_SIZE, opts.streamWindow],
        [Setting.MAX_FRAME_SIZE, opts.maxFrameSize],
        [Setting.MAX_HEADER_LIST_SIZE, opts.maxHeaderListSize],
      ]),
    );
    if (opts.connectionWindow > DEFAULT_WINDOW) this.#queue(u32Frame(FrameType.WINDOW_UPDATE, 0, opts.connectionWindow - DEFAULT_WINDOW));
    this.#arm(opts.settingsMs);
  }

  /** Streams open now. */
  get openStreams(): number {
    return this.#streams.size;
  }

  /** True once the connection takes no new streams (GOAWAY either way) or is gone. */
  get closed(): boolean {
    return this.#goawayLast >= 0 || this.#goawayReceived || this.#phase === Phase.Dead;
  }

  onClose(listener: () => void): void {
    if (this.#socketClosed) queueMicrotask(listener);
    else this.#closeListeners.push(listener);
  }

  /** Graceful close: GOAWAY(NO_ERROR); streams under way finish, then the socket ends. */
  close(): void {
    if (this.#phase === Phase.Dead || this.#goawayLast >= 0) return;
    this.#goawayLast = this.#lastClientStream;
    this.#queue(goawayFrame(this.#goawayLast, ErrorCode.NO_ERROR));
    this.#endIfDone();
  }

  /** Ends the connection at once: every stream open is aborted. */
  destroy(): void {
    this.socket.destroy();
  }

  // ---- input ----

  readonly #onData = (chunk: Buffer): void => {
    if (this.#phase === Phase.Dead) return;
    try {
      if (this.#pendingBytes === 0) {
        this.#parse(chunk);
      } else {
        this.#pending.push(chunk);
        this.#pendingBytes += chunk.byteLength;
        if (this.#pendingBytes < this.#need) return;
        const joined = Buffer.concat(this.#pending, this.#pendingBytes);
        this.#pending = [];
        this.#pendingBytes = 0;
        this.#parse(joined);
      }
    } catch (err) {
      if (err instanceof H2ConnectionError) this.#fail(err.code);
      else if (err instanceof HpackError) this.#fail(ErrorCode.COMPRESSION_ERROR);
      else {
        // Our fault, not the client's: this connection ends, the process goes on.
        this.#fail(ErrorCode.INTERNAL_ERROR);
        (this.#opts.onInternalError ?? reportInternalError)(err);
      }
    }
  };

  /** Parses every whole frame in `buf`; keeps the rest for the next chunk. */
  #parse(buf: Buffer): void {
    let at = 0;
    const end = buf.byteLength;
    if (this.#phase === Phase.Preface) {
      if (end < CLIENT_PREFACE.length) {
        if (!CLIENT_PREFACE.subarray(0, end).equals(buf)) throw new H2ConnectionError(ErrorCode.PROTOCOL_ERROR, 'bad client preface');
        this.#keep(buf, 0);
        return;
      }
      if (!buf.subarray(0, CLIENT_PREFACE.length).equals(CLIENT_PREFACE)) throw new H2ConnectionError(ErrorCode.PROTOCOL_ERROR, 'bad client preface');
      at = CLIENT_PREFACE.length;
      this.#phase = Phase.FirstSettings;
    }
    const maxFrame = this.#opts.maxFrameSize;
    while (end - at >= FRAME_HEADER_BYTES) {
      const length = (buf[at]! << 16) | (buf[at + 1]! << 8) | buf[at + 2]!;
      if (length > maxFrame) throw new H2ConnectionError(ErrorCode.FRAME_SIZE_ERROR, `frame of ${length} bytes`);
      if (end - at < FRAME_HEADER_BYTES + length) break;
      const type = buf[at + 3]!;
      const flags = buf[at + 4]!;
      const streamId = ((buf[at + 5]! & 0x7f) << 24) | (buf[at + 6]! << 16) | (buf[at + 7]! << 8) | buf[at + 8]!;
      const start = at + FRAME_HEADER_BYTES;
      at = start + length;
      try {
        this.#frame(type, flags, streamId, buf.subarray(start, at));
      } catch (err) {
        if (!(err instanceof H2StreamError)) throw err;
        this.#resetById(err.streamId, err.code);
      }
      if (this.#phase === Phase.Dead) return;
    }
    this.#keep(buf, at);
  }

  #keep(buf: Buffer, at: number): void {
    if (at >= buf.byteLength) {
      this.#need = FRAME_HEADER_BYTES;
      return;
    }
    const rest = buf.subarray(at);
    this.#pending = [rest];
    this.#pendingBytes = rest.byteLength;
    if (this.#phase === Phase.Preface) this.#need = CLIENT_PREFACE.length;
    else if (rest.byteLength < FRAME_HEADER_BYTES) this.#need = FRAME_HEADER_BYTES;
    else this.#need = FRAME_HEADER_BYTES + ((rest[0]! << 16) | (rest[1]! << 8) | rest[2]!);
  }

  #frame(type: number, flags: number, streamId: number, payload: Buffer): void {
    if (this.#phase === Phase.FirstSettings) {
      if (type !== FrameType.SETTINGS || (flags & Flag.ACK) !== 0) throw new H2ConnectionError(ErrorCode.PROTOCOL_ERROR, 'the first frame must be SETTINGS');
      this.#phase = Phase.Open;
      this.#arm(this.#opts.idleMs);
    }
    const block = this.#block;
    if (block !== undefined && (type !== FrameType.CONTINUATION || streamId !== block.streamId)) {
      throw new H2ConnectionError(ErrorCode.PROTOCOL_ERROR, 'a header block was interrupted');
    }
    switch (type) {
      case FrameType.DATA:
        this.#onDataFrame(flags, streamId, payload);
        return;
      case FrameType.HEADERS:
        this.#onHeaders(flags, streamId, payload);
        return;
      case FrameType.CONTINUATION:
        this.#onContinuation(flags, streamId, payload);
        return;
      case FrameType.PRIORITY:
        if (streamId === 0) throw new H2ConnectionError(ErrorCode.PROTOCOL_ERROR, 'PRIORITY on stream 0');
        if (payload.byteLength !== 5) throw new H2StreamError(streamId, ErrorCode.FRAME_SIZE_ERROR, 'PRIORITY of a wrong size');
        return;
      case FrameType.RST_STREAM:
        this.#onRstStream(streamId, payload);
        return;
      case FrameType.SETTINGS:
        this.#onSettings(flags, streamId, payload);
        return;
      case FrameType.PUSH_PROMISE:
        throw new H2ConnectionError(ErrorCode.PROTOCOL_ERROR, 'PUSH_PROMISE from a client');
      case FrameType.PING:
        if (streamId !== 0) throw new H2ConnectionError(ErrorCode.PROTOCOL_ERROR, 'PING on a stream');
        if (payload.byteLength !== 8) throw new H2ConnectionError(ErrorCode.FRAME_SIZE_ERROR, 'PING of a wrong size');
        if ((flags & Flag.ACK) === 0) this.#queueControl(controlFrame(FrameType.PING, Flag.ACK, 0, payload));
        return;
      case FrameType.GOAWAY:
        if (streamId !== 0) throw new H2ConnectionError(ErrorCode.PROTOCOL_ERROR, 'GOAWAY on a stream');
        if (payload.byteLength < 8) throw new H2ConnectionError(ErrorCode.FRAME_SIZE_ERROR, 'GOAWAY too short');
        this.#goawayReceived = true;
        this.#endIfDone();
        return;
      case FrameType.WINDOW_UPDATE:
        this.#onWindowUpdate(streamId, payload);
        return;
      default:
        // Unknown frame types are ignored (RFC 9113 5.5).
        return;
    }
  }

  #onSettings(flags: number, streamId: number, payload: Buffer): void {
    if (streamId !== 0) throw new H2ConnectionError(ErrorCode.PROTOCOL_ERROR, 'SETTINGS on a stream');
    if ((flags & Flag.ACK) !== 0) {
      if (payload.byteLength !== 0) throw new H2ConnectionError(ErrorCode.FRAME_SIZE_ERROR, 'SETTINGS ack with a payload');
      return;
    }
    if (payload.byteLength % 6 !== 0) throw new H2ConnectionError(ErrorCode.FRAME_SIZE_ERROR, 'SETTINGS of a wrong size');
    for (let at = 0; at < payload.byteLength; at += 6) {
      const id = payload.readUInt16BE(at);
      const value = payload.readUInt32BE(at + 2);
      switch (id) {
        case Setting.ENABLE_PUSH:
          if (value > 1) throw new H2ConnectionError(ErrorCode.PROTOCOL_ERROR, 'ENABLE_PUSH must be 0 or 1');
          break;
        case Setting.INITIAL_WINDOW_SIZE: {
          if (value > MAX_WINDOW) throw new H2ConnectionError(ErrorCode.FLOW_CONTROL_ERROR, 'INITIAL_WINDOW_SIZE too large');
          const delta = value - this.#peerStreamWindow;
          this.#peerStreamWindow = value;
          for (const stream of this.#streams.values()) {
            stream.sendWindow += delta;
            if (stream.sendWindow > MAX_WINDOW) throw new H2ConnectionError(ErrorCode.FLOW_CONTROL_ERROR, 'a stream window overflowed');
            if (delta > 0 && stream.hasOutput) this.wantsToSend(stream);
          }
          break;
        }
        case Setting.MAX_FRAME_SIZE:
          if (value < DEFAULT_MAX_FRAME_SIZE || value > MAX_FRAME_SIZE_LIMIT) throw new H2ConnectionError(ErrorCode.PROTOCOL_ERROR, 'MAX_FRAME_SIZE out of range');
          this.#peerMaxFrame = value;
          break;
        case Setting.HEADER_TABLE_SIZE:
          // The encoder never indexes, but nghttp2 clients still expect the change acknowledged by a
          // size update at the start of our next block (or fail the connection with COMPRESSION_ERROR).
          this.#encoder.peerTableSizeChanged(value);
          break;
        default:
          // The others are advisory or unknown.
          break;
      }
    }
    this.#queueControl(controlFrame(FrameType.SETTINGS, Flag.ACK, 0));
  }

  #onWindowUpdate(streamId: number, payload: Buffer): void {
    if (payload.byteLength !== 4) throw new H2ConnectionError(ErrorCode.FRAME_SIZE_ERROR, 'WINDOW_UPDATE of a wrong size');
    const increment = payload.readUInt32BE(0) & 0x7fffffff;
    if (streamId === 0) {
      if (increment === 0) throw new H2ConnectionError(ErrorCode.PROTOCOL_ERROR, 'WINDOW_UPDATE of 0');
      this.#sendConnWindow += increment;
      if (this.#sendConnWindow > MAX_WINDOW) throw new H2ConnectionError(ErrorCode.FLOW_CONTROL_ERROR, 'the connection window overflowed');
      if (this.#sending.size > 0) this.#scheduleFlush();
      return;
    }
    if (streamId > this.#lastClientStream) throw new H2ConnectionError(ErrorCode.PROTOCOL_ERROR, 'WINDOW_UPDATE on an idle stream');
    const stream = this.#streams.get(streamId);
    if (stream === undefined) return;
    if (increment === 0) throw new H2StreamError(streamId, ErrorCode.PROTOCOL_ERROR, 'WINDOW_UPDATE of 0');
    stream.sendWindow += increment;
    if (stream.sendWindow > MAX_WINDOW) throw new H2StreamError(streamId, ErrorCode.FLOW_CONTROL_ERROR, 'a stream window overflowed');
    if (stream.hasOutput) this.wantsToSend(stream);
  }

  #onRstStream(streamId: number, payload: Buffer): void {
    if (streamId === 0) throw new H2ConnectionError(ErrorCode.PROTOCOL_ERROR, 'RST_STREAM on stream 0');
    if (payload.byteLength !== 4) throw new H2ConnectionError(ErrorCode.FRAME_SIZE_ERROR, 'RST_STREAM of a wrong size');
    if (streamId > this.#lastClientStream) throw new H2ConnectionError(ErrorCode.PROTOCOL_ERROR, 'RST_STREAM on an idle stream');
    const stream = this.#streams.get(streamId);
    if (stream === undefined) return;
    const abandoned = !stream.localEnded;
    this.#closeStream(stream, abandoned);
    if (abandoned) this.#spendResetToken();
  }

  /** The rapid-reset bucket (rapid-reset-guard.ts): an abandoned stream takes a token; none left, GOAWAY ENHANCE_YOUR_CALM. */
  #spendResetToken(): void {
    if (this.#goawayLast >= 0) return;
    const { burst, perSecond } = this.#opts.resetBudget;
    const now = performance.now();
    this.#resetTokens = Math.min(burst, this.#resetTokens + ((now - this.#resetStamp) / 1000) * perSecond) - 1;
    this.#resetStamp = now;
    if (this.#resetTokens >= 0) return;
    this.#goawayLast = this.#lastClientStream;
    this.#queue(goawayFrame(this.#goawayLast, ErrorCode.ENHANCE_YOUR_CALM));
    const timer = setTimeout(() => this.socket.destroy(), GOAWAY_GRACE_MS);
    timer.unref();
  }

  #onHeaders(flags: number, streamId: number, payload: Buffer): void {
    if (streamId === 0) throw new H2ConnectionError(ErrorCode.PROTOCOL_ERROR, 'HEADERS on stream 0');
    let start = 0;
    let end = payload.byteLength;
    if ((flags & Flag.PADDED) !== 0) {
      if (end < 1) throw new H2ConnectionError(ErrorCode.FRAME_SIZE_ERROR, 'HEADERS too short for its padding');
      end -= payload[0]!;
      start = 1;
    }
    if ((flags & Flag.PRIORITY) !== 0) start += 5;
    if (end < start) throw new H2ConnectionError(ErrorCode.PROTOCOL_ERROR, 'HEADERS padding longer than the frame');
    const existing = streamId <= this.#lastClientStream;
    if (!existing && streamId % 2 === 0) throw new H2ConnectionError(ErrorCode.PROTOCOL_ERROR, 'a client stream with an even id');
    if ((flags & Flag.PRIORITY) !== 0 && payload.readUInt32BE(start - 5) % 0x80000000 === streamId) {
      throw new H2StreamError(streamId, ErrorCode.PROTOCOL_ERROR, 'a stream depending on itself');
    }
    const block: HeaderBlock = { streamId, endStream: (flags & Flag.END_STREAM) !== 0, fragments: [payload.subarray(start, end)], bytes: end - start };
    this.#checkBlockSize(block.bytes);
    if ((flags & Flag.END_HEADERS) !== 0) this.#headerBlock(block);
    else this.#block = block;
  }

  #onContinuation(flags: number, streamId: number, payload: Buffer): void {
    const block = this.#block;
    if (block === undefined) throw new H2ConnectionError(ErrorCode.PROTOCOL_ERROR, 'CONTINUATION without HEADERS');
    block.fragments.push(payload);
    block.bytes += payload.byteLength;
    this.#checkBlockSize(block.bytes);
    if ((flags & Flag.END_HEADERS) === 0) return;
    this.#block = undefined;
    this.#headerBlock(block);
  }

  /**
   * A compressed block past the header list limit (plus room for framing) cannot decode under it: the
   * connection is cut rather than the block buffered (Go's answer to CONTINUATION floods, CVE-2023-45288).
   */
  #checkBlockSize(bytes: number): void {
    if (bytes > this.#opts.maxHeaderListSize + 64 * 1024) throw new H2ConnectionError(ErrorCode.ENHANCE_YOUR_CALM, 'a header block past the limit');
  }

  #headerBlock(block: HeaderBlock): void {
    const { streamId } = block;
    const encoded = block.fragments.length === 1 ? block.fragments[0]! : Buffer.concat(block.fragments, block.bytes);
    // Decoded even when it is ignored: the decoder's table must follow the client's.
    const decoded = this.#decoder.decode(encoded);
    const stream = this.#streams.get(streamId);
    if (streamId <= this.#lastClientStream) {
      // Trailers of an open stream, or a closed stream's late frames (ignored: it was reset or finished).
      if (stream === undefined) return;
      if (stream.remoteEnded) throw new H2StreamError(streamId, ErrorCode.STREAM_CLOSED, 'HEADERS after the end of the stream');
      if (!block.endStream) throw new H2StreamError(streamId, ErrorCode.PROTOCOL_ERROR, 'trailers without END_STREAM');
      for (let i = 0; i < decoded.fields.length; i += 2) {
        if (decoded.fields[i]!.charCodeAt(0) === 58) throw new H2StreamError(streamId, ErrorCode.PROTOCOL_ERROR, 'a pseudo-header in trailers');
      }
      this.#endOfRequest(stream);
      return;
    }
    this.#lastClientStream = streamId;
    // Past our GOAWAY or the client's: ignored (RFC 9113 6.8).
    if (this.#goawayLast >= 0 || this.#goawayReceived) return;
    if (this.#streams.size >= this.#opts.maxConcurrentStreams) {
      throw new H2StreamError(streamId, ErrorCode.REFUSED_STREAM, 'too many concurrent streams');
    }
    if (decoded.oversized) {
      this.#answerTooLarge(streamId, block.endStream);
      return;
    }
    const problem = validateRequestFields(decoded.fields);
    if (problem !== undefined) throw new H2StreamError(streamId, ErrorCode.PROTOCOL_ERROR, problem);
    const created = new H2Stream(this, streamId, decoded.fields, block.endStream, this.#peerStreamWindow, this.#opts.streamWindow);
    if (block.endStream && created.declaredLength !== undefined && created.declaredLength !== 0) {
      throw new H2StreamError(streamId, ErrorCode.PROTOCOL_ERROR, 'content-length with no body');
    }
    this.#streams.set(streamId, created);
    this.#idleSince = -1;
    this.#opts.onStream(created, this);
  }

  /** A head past SETTINGS_MAX_HEADER_LIST_SIZE: 431, as Go's server answers. */
  #answerTooLarge(streamId: number, endStream: boolean): void {
    const block = this.#encoder.encode([{ name: ':status', value: '431' }]);
    this.#queueHeadersFrames(streamId, block, true);
    if (!endStream) this.#queue(u32Frame(FrameType.RST_STREAM, streamId, ErrorCode.NO_ERROR));
  }

  #onDataFrame(flags: number, streamId: number, payload: Buffer): void {
    if (streamId === 0) throw new H2ConnectionError(ErrorCode.PROTOCOL_ERROR, 'DATA on stream 0');
    if (streamId > this.#lastClientStream) throw new H2ConnectionError(ErrorCode.PROTOCOL_ERROR, 'DATA on an idle stream');
    const length = payload.byteLength;
    this.#recvConnWindow -= length;
    if (this.#recvConnWindow < 0) throw new H2ConnectionError(ErrorCode.FLOW_CONTROL_ERROR, 'the client overran the connection window');
    let start = 0;
    let end = length;
    if ((flags & Flag.PADDED) !== 0) {
      if (length < 1 || payload[0]! >= length) throw new H2ConnectionError(ErrorCode.PROTOCOL_ERROR, 'DATA padding longer than the frame');
      end -= payload[0]!;
      start = 1;
    }
    const stream = this.#streams.get(streamId);
    if (stream === undefined) {
      // A stream we closed: its data is thrown away, and the connection's window given back.
      this.#creditConnection(length);
      return;
    }
    if (stream.remoteEnded) {
      this.#creditConnection(length);
      throw new H2StreamError(streamId, ErrorCode.STREAM_CLOSED, 'DATA after the end of the stream');
    }
    stream.recvWindow -= length;
    if (stream.recvWindow < 0) {
      this.#creditConnection(length);
      throw new H2StreamError(streamId, ErrorCode.FLOW_CONTROL_ERROR, 'the client overran the stream window');
    }
    const data = payload.subarray(start, end);
    // Padding is consumed at once.
    if (start !== 0 || end !== length) this.consumed(stream, length - data.byteLength);
    const declared = stream.declaredLength;
    const endStream = (flags & Flag.END_STREAM) !== 0;
    if (declared !== undefined) {
      const received = stream.receivedBytes + data.byteLength;
      if (received > declared || (endStream && received !== declared)) {
        this.#creditConnection(data.byteLength);
        throw new H2StreamError(streamId, ErrorCode.PROTOCOL_ERROR, 'the body does not match its content-length');
      }
    }
    stream.receive(data, endStream);
    if (endStream) this.#endOfRequest(stream);
  }

  /** The client ended its side: a finished response closes the stream. */
  #endOfRequest(stream: H2Stream): void {
    if (!stream.remoteEnded) stream.receive(new Uint8Array(0), true);
    if (stream.localEnded) this.#closeStream(stream, false);
  }

  // ---- flow control of what the client sends ----

  consumed(stream: H2Stream, bytes: number): void {
    this.#creditConnection(bytes);
    if (stream.remoteEnded || stream.closed) return;
    stream.recvWindow += bytes;
    stream.unackedBytes += bytes;
    if (stream.unackedBytes >= this.#opts.streamWindow / 2) {
      this.#queue(u32Frame(FrameType.WINDOW_UPDATE, stream.id, stream.unackedBytes));
      stream.unackedBytes = 0;
    }
  }

  #creditConnection(bytes: number): void {
    if (bytes === 0) return;
    this.#recvConnWindow += bytes;
    this.#connUnacked += bytes;
    if (this.#connUnacked >= this.#opts.connectionWindow / 2) {
      this.#queue(u32Frame(FrameType.WINDOW_UPDATE, 0, this.#connUnacked));
      this.#connUnacked = 0;
    }
  }

  // ---- output ----

  sendHeaders(stream: H2Stream, fields: readonly EncodedField[], endStream: boolean): void {
    const room = maxEncodedLength(fields);
    if (room <= this.#peerMaxFrame) {
      // The common case: encoded straight into the frame, which is then cut to its length.
      const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + room);
      const end = this.#encoder.encodeInto(fields, frame, FRAME_HEADER_BYTES);
      writeFrameHeader(frame, 0, end - FRAME_HEADER_BYTES, FrameType.HEADERS, (endStream ? Flag.END_STREAM : 0) | Flag.END_HEADERS, stream.id);
      this.#queue(frame.subarray(0, end));
    } else {
      this.#queueHeadersFrames(stream.id, this.#encoder.encode(fields), endStream);
    }
    if (endStream) this.#localEnd(stream);
  }

  /** HEADERS, and CONTINUATION frames when the block is larger than the client's frame size. */
  #queueHeadersFrames(streamId: number, block: Uint8Array, endStream: boolean): void {
    const max = this.#peerMaxFrame;
    const endFlag = endStream ? Flag.END_STREAM : 0;
    if (block.byteLength <= max) {
      const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + block.byteLength);
      writeFrameHeader(frame, 0, block.byteLength, FrameType.HEADERS, endFlag | Flag.END_HEADERS, streamId);
      frame.set(block, FRAME_HEADER_BYTES);
      this.#queue(frame);
      return;
    }
    for (let at = 0, first = true; at < block.byteLength; at += max, first = false) {
      const piece = block.subarray(at, Math.min(at + max, block.byteLength));
      const last = at + max >= block.byteLength;
      const type = first ? FrameType.HEADERS : FrameType.CONTINUATION;
      const flags = (first ? endFlag : 0) | (last ? Flag.END_HEADERS : 0);
      this.#queue(controlFrame(type, flags, streamId, piece));
    }
  }

  wantsToSend(stream: H2Stream): void {
    if (!stream.hasOutput) return;
    this.#sending.add(stream);
    this.#scheduleFlush();
  }

  resetStream(stream: H2Stream, code: number): void {
    this.#queue(u32Frame(FrameType.RST_STREAM, stream.id, code));
    this.#closeStream(stream, !stream.localEnded);
  }

  #resetById(streamId: number, code: number): void {
    this.#queueControl(u32Frame(FrameType.RST_STREAM, streamId, code));
    const stream = this.#streams.get(streamId);
    if (stream !== undefined) this.#closeStream(stream, !stream.localEnded);
  }

  /** Our END_STREAM is out: with the client's side ended too, the stream is done; else the rest of its body is refused (RFC 9113 8.1). */
  #localEnd(stream: H2Stream, settle = false): void {
    stream.localEnded = true;
    this.#sending.delete(stream);
    if (!stream.remoteEnded) this.#queue(u32Frame(FrameType.RST_STREAM, stream.id, ErrorCode.NO_ERROR));
    this.#closeStream(stream, false, settle);
  }

  /** `settle`: the stream's last bytes are still in the output; its end is told once they are written. */
  #closeStream(stream: H2Stream, aborted: boolean, settle = false): void {
    if (!this.#streams.delete(stream.id)) return;
    this.#sending.delete(stream);
    this.#creditConnection(stream.takeUnread());
    if (settle) this.#settling.add(stream);
    else stream.closeStream(aborted);
    if (this.#streams.size === 0) {
      this.#idleSince = performance.now();
      this.#endIfDone();
    }
  }

  #queue(frame: Buffer): void {
    this.#out.push(frame);
    this.#outBytes += frame.byteLength;
    this.#scheduleFlush();
  }

  /** A control frame the client's own frames made us send: bounded, as a client that does not read could pile them up. */
  #queueControl(frame: Buffer): void {
    if (this.socket.writableLength + this.#outBytes > CONTROL_BACKLOG_BYTES) {
      this.#fail(ErrorCode.ENHANCE_YOUR_CALM);
      return;
    }
    this.#queue(frame);
  }

  #scheduleFlush(): void {
    if (this.#flushScheduled || this.#phase === Phase.Dead && this.#out.length === 0) return;
    this.#flushScheduled = true;
    queueMicrotask(this.#flush);
  }

  readonly #flush = (): void => {
    this.#flushScheduled = false;
    if (this.#socketClosed || this.#socketEnded) return;
    const drained = this.#sending.size > 0 && !this.#waitingForDrain ? this.#frameData() : undefined;
    const out = this.#out;
    if (out.length > 0) {
      const total = this.#outBytes;
      this.#out = [];
      this.#outBytes = 0;
      let ok: boolean;
      if (total <= JOIN_BYTES) {
        // One copy into one buffer: nothing of the callers' is kept past this call.
        ok = this.socket.write(out.length === 1 ? out[0]! : Buffer.concat(out, total));
        if (this.#settling.size > 0) this.#settleAll(false);
      } else {
        this.socket.cork();
        for (let i = 0; i < out.length - 1; i++) this.socket.write(out[i]!);
        this.socket.write(out[out.length - 1]!, this.#settledCallback());
        this.socket.uncork();
        ok = this.socket.writableLength < SOCKET_HIGH_WATER;
      }
      if (!ok) this.#waitingForDrain = true;
    } else if (this.#settling.size > 0) {
      this.#settleAll(false);
    }
    if (drained !== undefined) for (const stream of drained) stream.drainIfLow();
    if (this.#phase === Phase.Dead || (this.#streams.size === 0 && this.closed)) {
      this.#socketEnded = true;
      this.socket.end();
    }
  };

  /** A write callback that tells the streams settling now that their bytes are out (or lost, on an error). */
  #settledCallback(): ((err?: Error | null) => void) | undefined {
    if (this.#settling.size === 0) return undefined;
    const streams = [...this.#settling];
    this.#settling.clear();
    return (err) => {
      for (const stream of streams) stream.closeStream(err != null);
    };
  }

  #settleAll(aborted: boolean): void {
    const streams = [...this.#settling];
    this.#settling.clear();
    for (const stream of streams) stream.closeStream(aborted);
  }

  readonly #onDrain = (): void => {
    this.#waitingForDrain = false;
    if (this.#sending.size > 0) this.#scheduleFlush();
  };

  /** Frames queued body bytes as the windows and the socket allow; returns the streams that gave some. */
  #frameData(): H2Stream[] {
    const gave: H2Stream[] = [];
    let budget = SOCKET_HIGH_WATER - this.socket.writableLength - this.#outBytes;
    const frameMax = Math.min(this.#peerMaxFrame, MAX_DATA_FRAME);
    while (this.#sending.size > 0 && budget > 0) {
      let progressed = false;
      for (const stream of this.#sending) {
        if (!stream.hasOutput) {
          this.#sending.delete(stream);
          continue;
        }
        if (!stream.endReady) {
          if (stream.sendWindow <= 0) {
            // Waiting for its own WINDOW_UPDATE, which puts it back.
            this.#sending.delete(stream);
            continue;
          }
          // Waiting for the connection's WINDOW_UPDATE (or the socket): it stays in line.
          if (this.#sendConnWindow <= 0) break;
        }
        const n = Math.min(stream.pendingBytes, stream.sendWindow, this.#sendConnWindow, frameMax, budget);
        if (n <= 0 && !stream.endReady) break;
        const pieces: Uint8Array[] = [];
        const taken = n > 0 ? stream.pull(n, pieces) : 0;
        const last = stream.endReady;
        const head = Buffer.allocUnsafe(FRAME_HEADER_BYTES);
        writeFrameHeader(head, 0, taken, FrameType.DATA, last ? Flag.END_STREAM : 0, stream.id);
        this.#out.push(head);
        this.#outBytes += FRAME_HEADER_BYTES;
        for (const piece of pieces) this.#out.push(piece as Buffer);
        this.#outBytes += taken;
        stream.sendWindow -= taken;
        this.#sendConnWindow -= taken;
        budget -= taken + FRAME_HEADER_BYTES;
        progressed = true;
        gave.push(stream);
        if (last) this.#localEnd(stream, true);
        else if (!stream.hasOutput) this.#sending.delete(stream);
      }
      if (!progressed || this.#sendConnWindow <= 0) break;
    }
    return gave;
  }

  // ---- ending ----

  /** A connection error: GOAWAY with `code`, no more input read, the socket ended (destroyed if the client lingers). */
  #fail(code: number): void {
    if (this.#phase === Phase.Dead) return;
    this.#phase = Phase.Dead;
    this.#block = undefined;
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#queue(goawayFrame(this.#lastClientStream, code));
    for (const stream of [...this.#streams.values()]) this.#closeStream(stream, !stream.localEnded);
    const timer = setTimeout(() => this.socket.destroy(), GOAWAY_GRACE_MS);
    timer.unref();
  }

  /** After a GOAWAY either way, the last stream's end ends the connection. */
  #endIfDone(): void {
    if (this.#streams.size === 0 && (this.#goawayLast >= 0 || this.#goawayReceived)) this.#scheduleFlush();
  }

  readonly #onSocketClose = (): void => {
    this.#socketClosed = true;
    this.#phase = Phase.Dead;
    clearTimeout(this.#timer);
    for (const stream of [...this.#streams.values()]) this.#closeStream(stream, !stream.localEnded);
    this.#settleAll(true);
    this.#sending.clear();
    this.#out = [];
    const listeners = this.#closeListeners;
    this.#closeListeners = [];
    for (const listener of listeners) listener();
  };

  // ---- timers: one a connection, re-armed only when it fires ----

  #arm(ms: number): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(this.#onTimer, ms);
    this.#timer.unref();
  }

  readonly #onTimer = (): void => {
    if (this.#phase === Phase.Dead) return;
    if (this.#phase !== Phase.Open) {
      // No SETTINGS within the header read timeout.
      this.socket.destroy();
      return;
    }
    const idleMs = this.#opts.idleMs;
    if (this.#idleSince < 0) {
      this.#arm(idleMs);
      return;
    }
    const idleFor = performance.now() - this.#idleSince;
    if (idleFor >= idleMs) {
      this.close();
      return;
    }
    this.#arm(idleMs - idleFor);
  };
}
