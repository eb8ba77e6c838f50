/**
 * One HTTP/2 request stream of a server connection (connection.ts), as the
 * exchange (../js-h2-exchange.ts) sees it: the request's fields, its body
 * read under a limit, and a response written as a head and queued body
 * chunks. The connection frames the queued chunks as flow control allows;
 * nothing here touches the socket.
 *
 * It offers what NodeWriteQueue and PartsPump need of a node stream (write,
 * end, writableLength, 'drain' and 'close'), so streamed and large bodies
 * go out through the same code as on node's stacks.
 */
import { bodyIncomplete, bodyTooLarge, concatChunks, EMPTY_BODY } from '../body-limit.ts';
import { runAll } from '../lifecycle.ts';
import type { EncodedField } from './hpack.ts';

/** What the stream asks of its connection. */
export interface StreamHost {
  sendHeaders(stream: H2Stream, fields: readonly EncodedField[], endStream: boolean): void;
  /** The stream has body bytes (or its end) queued. */
  wantsToSend(stream: H2Stream): void;
  /** RST_STREAM with `code`, and the stream is closed. */
  resetStream(stream: H2Stream, code: number): void;
  /** Inbound bytes were consumed (read or thrown away): flow-control credit for the stream and the connection. */
  consumed(stream: H2Stream, bytes: number): void;
}

/** Queued response bytes past which write() asks the writer to wait for 'drain'. */
export const STREAM_HIGH_WATER = 64 * 1024;

type Listener = () => void;

interface BodyWaiter {
  limit: number;
  resolve: (body: Uint8Array) => void;
  reject: (err: Error) => void;
}

export class H2Stream {
  readonly id: number;
  /** Request fields as decoded: lower-case names at even indexes, values at odd ones, pseudo-headers first. */
  readonly fields: readonly string[];
  readonly method: string;
  readonly path: string;
  /** The declared content-length, when the request had a plain decimal one. */
  readonly declaredLength: number | undefined;
  /** Flow-control windows: what the client may still send us, what we may still send it. */
  recvWindow: number;
  sendWindow: number;
  /** Bytes received and not yet returned to the client as window. */
  unackedBytes = 0;
  /** The client ended its side (END_STREAM). */
  remoteEnded: boolean;
  /** Our END_STREAM went out (in HEADERS or the last DATA frame). */
  localEnded = false;
  /** The response's head went out. */
  headersSent = false;
  /** Closed: both sides ended, reset either way, or the connection is gone. */
  closed = false;
  /** Body bytes received so far. */
  receivedBytes = 0;

  readonly #host: StreamHost;
  #inChunks: Uint8Array[] = [];
  #inBytes = 0;
  #waiter: BodyWaiter | undefined;
  /** The body was refused or read: later DATA is thrown away (credited to the connection only). */
  #discarding = false;
  #out: Uint8Array[] = [];
  #outHead = 0;
  #outBytes = 0;
  #endQueued = false;
  #needDrain = false;
  #drainListeners: Listener[] = [];
  #closeListeners: Listener[] = [];
  #aborted = false;

  constructor(host: StreamHost, id: number, fields: readonly string[], remoteEnded: boolean, sendWindow: number, recvWindow: number) {
    this.#host = host;
    this.id = id;
    this.fields = fields;
    this.remoteEnded = remoteEnded;
    this.sendWindow = sendWindow;
    this.recvWindow = recvWindow;
    let method = '';
    let path = '';
    let declared: number | undefined;
    for (let i = 0; i < fields.length; i += 2) {
      const name = fields[i]!;
      if (name === ':method') method = fields[i + 1]!;
      else if (name === ':path') path = fields[i + 1]!;
      else if (name === 'content-length') {
        const value = fields[i + 1]!;
        declared = /^\d{1,15}$/.test(value) ? Number(value) : undefined;
      }
    }
    this.method = method;
    this.path = path;
    this.declaredLength = declared;
  }

  /** True when the client went away before the response was complete. */
  get aborted(): boolean {
    return this.#aborted;
  }

  // ---- request body ----

  /** Called by the connection with each DATA frame's data (already checked against windows and content-length). */
  receive(data: Uint8Array, end: boolean): void {
    if (data.byteLength > 0) {
      this.receivedBytes += data.byteLength;
      if (this.#discarding) this.#host.consumed(this, data.byteLength);
      else if (this.#waiter !== undefined) this.#take(data);
      else {
        this.#inChunks.push(data);
        this.#inBytes += data.byteLength;
      }
    }
    if (end) {
      this.remoteEnded = true;
      const waiter = this.#waiter;
      if (waiter !== undefined) {
        this.#waiter = undefined;
        waiter.resolve(this.#takeBody());
      }
    }
  }

  /** Reads the whole body, refusing it (413) past `limit`. */
  readBody(limit: number): Promise<Uint8Array> {
    if (this.declaredLength !== undefined && this.declaredLength > limit) return Promise.reject(bodyTooLarge(limit));
    if (this.#waiter !== undefined || this.#discarding) return Promise.reject(new Error('the request body is read once'));
    if (this.closed && !this.remoteEnded) return Promise.reject(bodyIncomplete());
    if (this.#inBytes > limit) return Promise.reject(this.#refuse(limit));
    const buffered = this.#inBytes;
    if (buffered > 0) this.#host.consumed(this, buffered);
    if (this.remoteEnded || (this.declaredLength !== undefined && buffered === this.declaredLength)) {
      // Complete at its declared length, END_STREAM or not (the connection refuses anything past it).
      return Promise.resolve(this.#takeBody());
    }
    return new Promise<Uint8Array>((resolve, reject) => {
      this.#waiter = { limit, resolve, reject };
    });
  }

  #take(data: Uint8Array): void {
    const waiter = this.#waiter!;
    this.#inChunks.push(data);
    this.#inBytes += data.byteLength;
    this.#host.consumed(this, data.byteLength);
    if (this.#inBytes > waiter.limit) {
      this.#waiter = undefined;
      waiter.reject(this.#refuse(waiter.limit));
      return;
    }
    if (this.#inBytes === this.declaredLength) {
      // Complete at its declared length: the handler need not wait for END_STREAM.
      this.#waiter = undefined;
      waiter.resolve(this.#takeBody());
    }
  }

  /** The whole body, read: later DATA is thrown away. */
  #takeBody(): Uint8Array {
    this.#discarding = true;
    const body = this.#inBytes === 0 ? EMPTY_BODY : concatChunks(this.#inChunks, this.#inBytes);
    this.#inChunks = [];
    this.#inBytes = 0;
    return body;
  }

  /** Refuses the body past `limit`: what was buffered is dropped, later DATA thrown away. */
  #refuse(limit: number): Error {
    const unread = this.#waiter === undefined && this.#inBytes > 0 && !this.#discarding ? this.#inBytes : 0;
    this.#discarding = true;
    this.#inChunks = [];
    this.#inBytes = 0;
    if (unread > 0) this.#host.consumed(this, unread);
    return bodyTooLarge(limit);
  }

  /** Bytes received and never read (credited to the connection when the stream closes). */
  takeUnread(): number {
    const n = this.#inBytes;
    this.#inChunks = [];
    this.#inBytes = 0;
    return n;
  }

  // ---- response ----

  /** Sends the response head (`:status` first among `fields`). */
  respond(fields: readonly EncodedField[], endStream: boolean): void {
    if (this.closed || this.headersSent) return;
    this.headersSent = true;
    if (endStream) this.#endQueued = true;
    this.#host.sendHeaders(this, fields, endStream);
  }

  /** Queues a body chunk (kept by reference until framed); false once the writer should wait for 'drain'. */
  write(chunk: Uint8Array): boolean {
    if (this.closed || this.#endQueued) return false;
    if (chunk.byteLength > 0) {
      this.#out.push(chunk);
      this.#outBytes += chunk.byteLength;
      this.#host.wantsToSend(this);
    }
    if (this.#outBytes < STREAM_HIGH_WATER) return true;
    this.#needDrain = true;
    return false;
  }

  /** Ends the response, after a last chunk if given. */
  end(chunk?: Uint8Array): void {
    if (this.closed || this.#endQueued) return;
    if (chunk !== undefined && chunk.byteLength > 0) {
      this.#out.push(chunk);
      this.#outBytes += chunk.byteLength;
    }
    this.#endQueued = true;
    this.#host.wantsToSend(this);
  }

  /** RST_STREAM(code): the response is dropped. */
  reset(code: number): void {
    if (!this.closed) this.#host.resetStream(this, code);
  }

  // node stream shape for NodeWriteQueue and PartsPump: cork is the connection's (one write a turn).
  cork(): void {}
  uncork(): void {}

  get writableLength(): number {
    return this.#outBytes;
  }

  get destroyed(): boolean {
    return this.closed;
  }

  once(event: 'drain' | 'close', listener: Listener): this {
    if (event === 'drain') this.#drainListeners.push(listener);
    else this.#closeListeners.push(listener);
    return this;
  }

  off(event: 'drain' | 'close', listener: Listener): this {
    const list = event === 'drain' ? this.#drainListeners : this.#closeListeners;
    const at = list.indexOf(listener);
    if (at >= 0) list.splice(at, 1);
    return this;
  }

  /** Queued body bytes not yet framed. */
  get pendingBytes(): number {
    return this.#outBytes;
  }

  /** The end is queued and every byte before it framed: the next frame carries END_STREAM. */
  get endReady(): boolean {
    return this.#endQueued && this.#outBytes === 0 && !this.localEnded;
  }

  /** True when the connection has something to frame for this stream. */
  get hasOutput(): boolean {
    return !this.closed && this.headersSent && (this.#outBytes > 0 || this.endReady);
  }

  /** Moves up to `max` queued bytes (views, no copy) into `into`; returns how many. */
  pull(max: number, into: Uint8Array[]): number {
    let taken = 0;
    const out = this.#out;
    while (taken < max && this.#outHead < out.length) {
      const chunk = out[this.#outHead]!;
      const room = max - taken;
      if (chunk.byteLength <= room) {
        into.push(chunk);
        taken += chunk.byteLength;
        out[this.#outHead++] = EMPTY_BODY;
      } else {
        into.push(chunk.subarray(0, room));
        out[this.#outHead] = chunk.subarray(room);
        taken += room;
      }
    }
    if (this.#outHead === out.length) {
      this.#out = [];
      this.#outHead = 0;
    }
    this.#outBytes -= taken;
    return taken;
  }

  /** After framing: tells a waiting writer it may go on. */
  drainIfLow(): void {
    if (!this.#needDrain || this.#outBytes >= STREAM_HIGH_WATER || this.closed) return;
    this.#needDrain = false;
    const listeners = this.#drainListeners;
    this.#drainListeners = [];
    runAll(listeners);
  }

  /** The connection closed the stream; `aborted` when the response was not complete. */
  closeStream(aborted: boolean): void {
    if (this.closed) return;
    this.closed = true;
    this.#aborted = aborted;
    this.#out = [];
    this.#outHead = 0;
    this.#outBytes = 0;
    this.#drainListeners = [];
    const waiter = this.#waiter;
    this.#waiter = undefined;
    if (waiter !== undefined) waiter.reject(bodyIncomplete());
    const listeners = this.#closeListeners;
    this.#closeListeners = [];
    runAll(listeners);
  }
}
