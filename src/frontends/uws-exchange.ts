/**
 * One uWS request as ApiRequest/ApiResponse. uWS's rules shape all of it:
 * - HttpRequest dies with the callback: method, URL, query and headers are
 *   copied out before anything else, and the body's onData handler must be
 *   attached right then too, or the bytes are dropped.
 * - onAborted is registered at once; after it fires, or after end(), the
 *   HttpResponse must never be touched again.
 * - Every write goes through cork(): outside the request callback (after an
 *   await) an uncorked write is a syscall, and a TLS record, per call.
 * - Backpressure comes from write()'s return and onWritable.
 * - A streamed body (a watch) whose client does not keep up waits in a
 *   WatchQueue of references to the caller's chunks, shared with every
 *   other watcher of the same event and counted against the process's
 *   WatchBudget: uWS itself gets the next piece only from onWritable, so it
 *   holds at most about a piece of each stream, where write() would copy
 *   all that the socket does not take into its backpressure buffer, once
 *   per watcher.
 * - A large body with a known length (endParts, or a large end) is streamed
 *   with tryEnd, a cork buffer's worth per cork, resumed from onWritable: uWS
 *   then holds at most one cork buffer of it, where end() or write() would
 *   copy all that the socket does not take at once into its backpressure
 *   buffer.
 */
import type { HttpRequest, HttpResponse } from '@trufflesuite/uws-js-unofficial';
import { STATUS_CODES } from 'node:http';
import { statusBody } from '../api/status.ts';
import type { RequestHandler } from '../server/http.ts';
import { closeRatherThanDrain, declaredLength, EMPTY_BODY, mayHaveBody } from './body-limit.ts';
import { joinSmall, NO_PARTS, PartsCursor, totalLength } from './body-parts.ts';
import { ExchangeLifecycle, runAll } from './lifecycle.ts';
import { PushedBody } from './pushed-body.ts';
import { RequestBase } from './request-base.ts';
import { lowerHeaderName } from './header-bag.ts';
import type { WatchBudget, WatchQueue } from './watch-budget.ts';
import type { PendingHead, ResponseHeaders } from './response-head.ts';
import { checkHeader, DEFAULT_HEAD, findHeader, isBodyless, isConnectionSpecific, wantsClose } from './response-head.ts';
import type { ErrorReporter, FrontendResponse } from './run-handler.ts';
import { runHandler } from './run-handler.ts';

/** Called by the uWS route callback, synchronously: it must not await before the copies are made. */
export function serveUws(
  res: HttpResponse,
  nativeReq: HttpRequest,
  handler: RequestHandler,
  report: ErrorReporter,
  track: (lifecycle: ExchangeLifecycle) => void,
  budget: WatchBudget,
): void {
  const lifecycle = new ExchangeLifecycle();
  const req = new UwsRequest(res, nativeReq, lifecycle);
  const response = new UwsResponse(res, req, lifecycle, budget);
  track(lifecycle);
  // uWS's parser lets disagreeing Content-Lengths through: answered here, before any handler, and the connection closed.
  const refused = req.framingError();
  if (refused !== undefined) {
    response.writeHead(refused.code, { 'content-type': 'application/json', connection: 'close' });
    response.end(statusBody(refused));
    return;
  }
  runHandler(handler, req, response, report);
}

class UwsRequest extends RequestBase {
  readonly protocol = 'http/1.1' as const;
  readonly frontend = 'uws' as const;
  /** uWS never shows the client certificate: clients that need one use the node front end. */
  readonly peerCertificates = undefined;
  readonly #res: HttpResponse;
  #remoteAddress: string | undefined;
  readonly #body: PushedBody | undefined;
  readonly #declared: number | undefined;

  constructor(res: HttpResponse, req: HttpRequest, lifecycle: ExchangeLifecycle) {
    const raw: string[] = [];
    req.forEach((name, value) => {
      raw.push(name, value);
    });
    // getQuery() is undefined, not '', when the URL has no '?'. uWS lower-cases header names as it parses them.
    super(req.getCaseSensitiveMethod(), req.getUrl(), req.getQuery() ?? '', raw, lifecycle, true);
    this.#res = res;
    this.#declared = declaredLength(this.headers);
    if (mayHaveBody(this.headers)) {
      const body = new PushedBody(this.#declared, {
        pause: () => res.pause(),
        resume: () => {
          if (!lifecycle.closed) res.resume();
        },
      });
      // uWS reuses (neuters) the chunk's memory once this returns: copy it. Into Buffer's shared pool (a
      // third of an ArrayBuffer of its own, ~0.4 against ~1.3 µs a 1 KiB body): a body is read, decoded and
      // dropped, never transferred to another thread.
      res.onData((chunk, last) => body.push(Buffer.from(new Uint8Array(chunk)), last));
      this.#body = body;
    }
  }

  /**
   * Read from uWS on first use (about 2 µs, which most requests never need),
   * while the exchange is open: the native response must not be touched
   * after it ended or was aborted, and then this is '' unless read before.
   */
  get remoteAddress(): string {
    if (this.#remoteAddress === undefined) {
      if (this.lifecycle.closed) return '';
      // IPv4 (4 bytes) is formatted here: the text form costs twice the binary one (a per-request cost of audit).
      const bin = new Uint8Array(this.#res.getRemoteAddress());
      this.#remoteAddress = bin.length === 4 ? ipv4Text(bin) : Buffer.from(this.#res.getRemoteAddressAsText()).toString('latin1');
    }
    return this.#remoteAddress;
  }

  body(limitBytes: number): Promise<Uint8Array> {
    return this.#body === undefined ? Promise.resolve(EMPTY_BODY) : this.#body.read(limitBytes);
  }

  /** The client went away: a pending body read fails. */
  abortBody(): void {
    this.#body?.abort();
  }

  /** The response is ending: a body nobody asked for is no longer wanted. */
  discardBody(): void {
    this.#body?.discard();
  }

  /**
   * Whether to close the connection after the response because of body
   * bytes still coming: uWS would read them all away to keep it alive.
   */
  closeForUnreadBody(): boolean {
    const body = this.#body;
    return body !== undefined && !body.complete && closeRatherThanDrain(this.#declared, body.received);
  }
}

interface PreparedHead {
  statusLine: string;
  /**
   * Every header in one writeHeader call: the first name, and its value followed by the other lines
   * ("value\r\nname: value..."), all checked (no CR, LF or NUL in any of them). uWS writes a header as
   * `name: value\r\n` and looks at neither, so the lines come out as separate calls would write them, for one
   * crossing into native code and one string conversion instead of two per header (~1,500 instructions a GET).
   */
  firstName: string | undefined;
  lines: string;
  bodyless: boolean;
  /** Bytes the head takes on the wire, with what uWS adds (Date, its mark, framing). */
  size: number;
}

/** uWS's per-loop cork buffer (LoopData::CORK_BUFFER_SIZE). */
const CORK_BUFFER_BYTES = 16 * 1024;
/** The largest body piece handed to uWS in one cork: its chunk framing must fit beside it. */
const PIECE_BYTES = CORK_BUFFER_BYTES - 64;
/** What uWS adds to every head: Date, "uWebSockets: 20", Content-Length or Transfer-Encoding, blank line. */
const UWS_HEAD_OVERHEAD = 128;
/** "Connection: close\r\n", which a streamed body's head carries itself (see #streamBody). */
const CLOSE_HEADER_BYTES = 19;
/** What uWS adds around each chunk of a chunked body: "\r\n", up to 4 hex digits, "\r\n", with room to spare. */
const CHUNK_FRAMING_BYTES = 16;

/** What one tryEnd achieved. */
type Progress = 'more' | 'blocked' | 'done';

class UwsResponse implements FrontendResponse {
  readonly #res: HttpResponse;
  readonly #req: UwsRequest;
  readonly #lifecycle: ExchangeLifecycle;
  readonly #budget: WatchBudget;
  #head: PendingHead = DEFAULT_HEAD;
  #headSent = false;
  #ended = false;
  #bodyless = false;
  /**
   * uWS has no per-response count of buffered bytes for chunked writes
   * (getWriteOffset only moves with tryEnd). We count what was handed over
   * since the last write that went through without backpressure: an upper
   * bound on what uWS holds.
   */
  #held = 0;
  /** uWS reported backpressure: written chunks wait in #queue until onWritable. */
  #blocked = false;
  /** Written chunks uWS has not been given yet; made the first time uWS backs up. */
  #queue: WatchQueue | undefined;
  /** end() came while chunks were queued: the response ends once they are out. */
  #endQueued = false;
  #drains: (() => void)[] = [];
  #writableHooked = false;
  /** The rest of a body being streamed after end or endParts; undefined otherwise. */
  #body: PartsCursor | undefined;
  /** Whether #body goes out in chunks (the head went out before, without a length) or by tryEnd. */
  #chunkedBody = false;

  constructor(res: HttpResponse, req: UwsRequest, lifecycle: ExchangeLifecycle, budget: WatchBudget) {
    this.#res = res;
    this.#req = req;
    this.#lifecycle = lifecycle;
    this.#budget = budget;
    res.onAborted(() => {
      this.#drains = [];
      this.#dropBody();
      lifecycle.finish(true);
      req.abortBody();
    });
  }

  get closed(): boolean {
    return this.#ended || this.#lifecycle.closed;
  }

  get headSent(): boolean {
    return this.#headSent;
  }

  get bufferedBytes(): number {
    if (this.#body !== undefined) return this.#body.remaining;
    return this.#lifecycle.closed ? 0 : (this.#queue?.bytes ?? 0) + this.#held;
  }

  writeHead(status: number, headers: ResponseHeaders): void {
    if (this.#headSent) throw new Error('writeHead after the response head was sent');
    this.#head = { status, headers };
  }

  write(chunk: Uint8Array): boolean {
    if (this.closed) return false;
    if (!this.#headSent) {
      const head = this.#prepareHead(undefined);
      this.#res.cork(() => this.#sendHead(head));
    }
    if (this.#bodyless) return true;
    if (this.#blocked) {
      const queue = this.#queueFor();
      queue.push(chunk);
      if (!queue.closed) this.#rearmTimeout(queue);
      return false;
    }
    const taken = this.#writePieces(chunk);
    if (!this.#blocked) return true;
    // uWS took up to the piece that met backpressure; the rest waits here,
    // by reference. Either may drop this very response (over the budget).
    const queue = this.#queueFor();
    queue.setPrivate(this.#held);
    if (taken < chunk.byteLength) queue.push(chunk.subarray(taken));
    return false;
  }

  destroy(): void {
    if (this.#lifecycle.closed) return;
    this.#ended = true;
    this.#dropBody();
    this.#lifecycle.finish(true);
    // Closes the socket at once, dropping what uWS still buffers.
    this.#res.close();
  }

  /** uWS ends the head with the first body chunk and will not send an empty one: the caller must write. */
  flushHead(): boolean {
    return false;
  }

  onDrain(cb: () => void): void {
    if (!this.closed) this.#drains.push(cb);
  }

  onClose(cb: () => void): void {
    this.#lifecycle.onClose(cb);
  }

  end(chunk?: Uint8Array | string): void {
    if (this.closed) return;
    if (chunk === undefined) {
      this.#endWith(NO_PARTS, 0);
      return;
    }
    const body = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    this.#endWith([body], body.byteLength);
  }

  endParts(parts: readonly Uint8Array[]): void {
    if (this.closed) return;
    this.#endWith(parts, totalLength(parts));
  }

  #endWith(parts: readonly Uint8Array[], total: number): void {
    const req = this.#req;
    if (this.#headSent) {
      const close = req.closeForUnreadBody();
      req.discardBody();
      this.#endChunked(parts, total, close);
      return;
    }
    const close = req.closeForUnreadBody() || wantsClose(this.#head.headers);
    const head = this.#prepareHead(total);
    req.discardBody();
    if (head.bodyless) {
      this.#endInOneCork(head, undefined, close);
    } else if (head.size + total <= CORK_BUFFER_BYTES) {
      // The common case: head and body in one cork, one TLS record.
      this.#endInOneCork(head, total === 0 ? undefined : joinSmall(parts, total), close);
    } else {
      this.#streamBody(head, parts, total, close);
    }
  }

  #endInOneCork(head: PreparedHead, body: Uint8Array | undefined, close: boolean): void {
    this.#ended = true;
    this.#res.cork(() => {
      this.#sendHead(head);
      // This uWS closes the socket on end(body, true) without saying so in the head; say it, as the
      // original does (a client that sees the socket close unannounced may count it a failure).
      if (close && !head.bodyless) this.#res.writeHeader('Connection', 'close');
      this.#finish(body, close);
    });
    this.#lifecycle.finish(false);
  }

  /**
   * Head and the first piece of the body in one cork (one TLS record), then
   * the rest a cork buffer's worth at a time, each by tryEnd in its own cork,
   * until the socket backs up; onWritable resumes from there.
   *
   * Why pieces no larger than the cork buffer, in cork: this uWS.js binding
   * prints a warning on every write made outside a cork callback, and a
   * corked write larger than the cork buffer goes through uncork, which
   * buffers what the socket does not take (and, for a plain write, can drop
   * the rest). A tryEnd that fits the cork buffer is only copied into it;
   * if the socket then cannot take the cork buffer, uWS keeps those bytes
   * (at most one cork buffer per response) and the next tryEnd reports the
   * backpressure.
   *
   * The JS binding's tryEnd takes no closeConnection flag, and end() with
   * one would put its Connection header into the body once Content-Length
   * has gone out: a streamed body carries the header itself, so the client
   * closes (uWS still closes by itself when the request asked to).
   */
  #streamBody(head: PreparedHead, parts: readonly Uint8Array[], total: number, close: boolean): void {
    const res = this.#res;
    this.#ended = true;
    this.#body = new PartsCursor(parts, total);
    this.#chunkedBody = false;
    let progress: Progress = 'more';
    res.cork(() => {
      this.#sendHead(head);
      let room = CORK_BUFFER_BYTES - head.size;
      if (close) {
        res.writeHeader('Connection', 'close');
        room -= CLOSE_HEADER_BYTES;
      }
      // Writes the rest of the head even when no body byte fits beside it.
      progress = room > 0 ? this.#fillCork(room) : this.#tryEnd(EMPTY_BODY);
    });
    if (progress === 'more') this.#pumpLength();
  }

  /** Hands uWS the body from the cursor on until it is all out or the socket backs up. */
  #pumpLength(): Progress {
    let progress: Progress = 'more';
    // Bounded by the body: every 'more' moved the cursor.
    while (progress === 'more' && this.#body !== undefined && this.#body.remaining > 0) {
      this.#res.cork(() => {
        progress = this.#fillCork(CORK_BUFFER_BYTES);
      });
    }
    return progress;
  }

  /** tryEnd of up to `room` bytes from the cursor on, part by part, inside the current cork. */
  #fillCork(room: number): Progress {
    const cursor = this.#body!;
    let progress: Progress = 'more';
    while (progress === 'more' && room > 0 && cursor.remaining > 0) {
      const piece = cursor.view(room);
      room -= piece.byteLength;
      progress = this.#tryEnd(piece);
    }
    return progress;
  }

  #tryEnd(piece: Uint8Array): Progress {
    const res = this.#res;
    const cursor = this.#body!;
    const [ok, done] = res.tryEnd(piece, cursor.total);
    if (done) {
      // uWS has every byte (some perhaps still in its buffer, which it
      // drains by itself now) and has let go of the response.
      this.#dropBody();
      this.#lifecycle.finish(false);
      return 'done';
    }
    if (this.#lifecycle.closed) return 'done'; // aborted meanwhile: res is gone
    if (ok) {
      cursor.advance(piece.byteLength);
      return 'more';
    }
    cursor.advanceTo(res.getWriteOffset());
    this.#hookWritable();
    return 'blocked';
  }

  /**
   * The rest of a body whose head went out earlier without a length (the
   * handler wrote before ending): chunks in corks of at most PIECE_BYTES
   * with their framing (see #writePieces), the next cork only once uWS took
   * the last without backpressure, so at most one cork's worth waits in
   * uWS's buffer.
   *
   * `close` only for a bodyless response, whose head is still open: once a
   * chunk went out, uWS would write its Connection header into the chunked
   * body. The unread request body is read away instead.
   */
  #endChunked(parts: readonly Uint8Array[], total: number, close: boolean): void {
    this.#ended = true;
    if (this.#blocked && !this.#bodyless) {
      // Written chunks still wait: the rest goes after them (see #pumpQueue).
      this.#endQueued = true;
      const queue = this.#queueFor();
      for (const part of parts) queue.push(part);
      return;
    }
    if (this.#bodyless) {
      this.#res.cork(() => this.#finish(undefined, close));
      this.#lifecycle.finish(false);
      return;
    }
    if (total <= PIECE_BYTES) {
      const last = total === 0 ? undefined : joinSmall(parts, total);
      this.#res.cork(() => this.#finish(last, false));
      this.#lifecycle.finish(false);
      return;
    }
    this.#body = new PartsCursor(parts, total);
    this.#chunkedBody = true;
    this.#pumpChunked();
  }

  #pumpChunked(): Progress {
    const res = this.#res;
    const cursor = this.#body!;
    let ok = true;
    const writeCork = (): void => {
      let room = PIECE_BYTES;
      while (ok && room > CHUNK_FRAMING_BYTES && cursor.remaining > 0) {
        const piece = cursor.view(room - CHUNK_FRAMING_BYTES);
        room -= piece.byteLength + CHUNK_FRAMING_BYTES;
        // A false return still took the piece (into uWS's buffer).
        ok = res.write(piece);
        cursor.advance(piece.byteLength);
      }
    };
    while (cursor.remaining > 0) {
      res.cork(writeCork);
      if (!ok) {
        this.#hookWritable();
        return 'blocked';
      }
    }
    this.#dropBody();
    res.cork(() => this.#finish(undefined, false));
    this.#lifecycle.finish(false);
    return 'done';
  }

  /** Lets go of the caller's parts: sent, or never to be. */
  #dropBody(): void {
    this.#body?.release();
    this.#body = undefined;
  }

  #finish(last: Uint8Array | undefined, close: boolean): void {
    const res = this.#res;
    if (!this.#bodyless) {
      res.end(last ?? EMPTY_BODY, close);
      return;
    }
    // A bodyless response must not get the Content-Length: 0 that end()
    // adds. endWithoutBody() with no arguments is the only safe form in this
    // uWS: given a length (even undefined) it writes a bogus Content-Length
    // or never counts the response as done. So no closeConnection flag
    // either: ask the client to close instead.
    if (close) res.writeHeader('Connection', 'close');
    res.endWithoutBody();
  }

  /**
   * Hands `chunk` to uWS in pieces that fit its cork buffer, each in its own
   * cork. A larger corked write takes a path in this uWS (AsyncSocket
   * write -> uncork) that, when the socket is already backed up, buffers the
   * cork buffer and silently drops the rest of the write: a slow watch
   * client would get a corrupt chunked stream. Stops after the first piece
   * that met backpressure (uWS keeps that one) and returns how many bytes
   * uWS took.
   */
  #writePieces(chunk: Uint8Array): number {
    let offset = 0;
    while (offset < chunk.byteLength) {
      const piece = chunk.byteLength <= PIECE_BYTES ? chunk : chunk.subarray(offset, offset + PIECE_BYTES);
      offset += piece.byteLength;
      if (!this.#writePiece(piece)) break;
    }
    return offset;
  }

  /** One piece in its own cork; false (and blocked, waiting for onWritable) when it met backpressure. */
  #writePiece(piece: Uint8Array): boolean {
    const res = this.#res;
    let ok = true;
    res.cork(() => {
      ok = res.write(piece);
    });
    if (ok) {
      this.#held = 0;
      return true;
    }
    // uWS keeps the piece, and whatever it held before, in its own buffer.
    this.#held += piece.byteLength;
    this.#blocked = true;
    this.#hookWritable();
    return false;
  }

  /**
   * uWS closes a connection 10 s (its HTTP timeout) after a write that met
   * backpressure unless it becomes writable meanwhile. Every write used to
   * re-arm that timer; a stream that only queues would now be closed 10 s
   * after it first backed up, however the bounds are set. A byte of the
   * queue handed over per write keeps the old behaviour (the flags decide
   * when a slow watcher goes) for a few bytes of uWS buffer per event.
   */
  #rearmTimeout(queue: WatchQueue): void {
    const piece = queue.view(1);
    queue.advance(piece.byteLength);
    if (this.#writePiece(piece)) {
      // uWS flushed its own buffer to take it: the socket has room, and no
      // writable event may come for it. Go on from here.
      this.#pumpQueue();
      return;
    }
    queue.setPrivate(this.#held);
  }

  /** The queue for this response, with its bytes let go when the exchange closes. */
  #queueFor(): WatchQueue {
    if (this.#queue === undefined) {
      const queue = this.#budget.open({ frontend: 'uws', path: this.#req.path }, () => this.destroy());
      this.#queue = queue;
      this.#lifecycle.onClose(() => queue.close());
    }
    return this.#queue;
  }

  /**
   * From onWritable: hands uWS the queued chunks a piece at a time until it
   * backs up again. Once all are out, the response ends (if end() came
   * meanwhile) or the handler hears of the drain.
   */
  #pumpQueue(): Progress {
    const queue = this.#queue;
    if (queue !== undefined) {
      while (queue.bytes > 0) {
        const piece = queue.view(PIECE_BYTES);
        queue.advance(piece.byteLength);
        if (!this.#writePiece(piece)) {
          queue.setPrivate(this.#held);
          return 'blocked';
        }
      }
    }
    // uWS may still hold some of the last pieces; it flushes them on the next
    // writes or writable events, and they are not counted any more.
    this.#held = 0;
    queue?.setPrivate(0);
    this.#blocked = false;
    if (this.#endQueued) {
      this.#endQueued = false;
      this.#res.cork(() => this.#finish(undefined, false));
      this.#lifecycle.finish(false);
      return 'done';
    }
    const drains = this.#drains;
    this.#drains = [];
    runAll(drains);
    return 'more';
  }

  /** Validates everything before touching uWS, so a bad header throws here and not half-way into a cork. */
  #prepareHead(length: number | undefined): PreparedHead {
    const { status, headers } = this.#head;
    if (!Number.isInteger(status) || status < 100 || status > 999) throw new RangeError(`invalid status code ${status}`);
    const isHead = this.#req.method === 'HEAD';
    let firstName: string | undefined;
    let lines = '';
    const line = statusLine(status);
    let size = line.length + UWS_HEAD_OVERHEAD;
    for (const name in headers) {
      const lower = lowerHeaderName(name);
      // uWS frames the body itself (Content-Length or chunked) and writes its
      // own Date; copies from the handler would contradict it. A HEAD
      // response keeps its Content-Length: nothing else will write one.
      if (isConnectionSpecific(lower) || lower === 'date' || (lower === 'content-length' && !isHead)) continue;
      const value = headers[name]!;
      if (typeof value === 'string') {
        checkHeader(name, value);
        if (firstName === undefined) {
          firstName = name;
          lines = value;
        } else lines += `\r\n${name}: ${value}`;
        size += name.length + Buffer.byteLength(value) + 4;
        continue;
      }
      for (const v of value) {
        checkHeader(name, v);
        if (firstName === undefined) {
          firstName = name;
          lines = v;
        } else lines += `\r\n${name}: ${v}`;
        size += name.length + Buffer.byteLength(v) + 4;
      }
    }
    if (isHead && length !== undefined && length > 0 && findHeader(headers, 'content-length') === undefined) {
      if (firstName === undefined) {
        firstName = 'content-length';
        lines = String(length);
      } else lines += `\r\ncontent-length: ${length}`;
    }
    return { statusLine: line, firstName, lines, bodyless: isBodyless(this.#req.method, status), size };
  }

  #sendHead(head: PreparedHead): void {
    const res = this.#res;
    res.writeStatus(head.statusLine);
    if (head.firstName !== undefined) res.writeHeader(head.firstName, head.lines);
    this.#bodyless = head.bodyless;
    this.#headSent = true;
  }

  #hookWritable(): void {
    if (this.#writableHooked) return;
    this.#writableHooked = true;
    this.#res.onWritable(() => {
      if (this.#lifecycle.closed) return true;
      // uWS has one onWritable handler per response: a streamed body and a
      // handler's own writes share this one.
      if (this.#body !== undefined) return (this.#chunkedBody ? this.#pumpChunked() : this.#pumpLength()) !== 'blocked';
      // Once an onWritable handler is registered, uWS stops draining its own
      // backpressure buffer on writable events and leaves that to the
      // handler's next write. A stream with nothing more to say right now
      // (an idle watch) would keep its last bytes stuck; an empty cork
      // flushes them.
      this.#res.cork(noop);
      return this.#pumpQueue() !== 'blocked';
    });
  }
}

function noop(): void {}

/** Dotted IPv4 text by address: a few peers send most requests, and a string built per request is garbage. */
const ipv4Texts = new Map<number, string>();
const IPV4_TEXTS_MAX = 4096;
function ipv4Text(bin: Uint8Array): string {
  const n = ((bin[0]! << 24) | (bin[1]! << 16) | (bin[2]! << 8) | bin[3]!) >>> 0;
  let text = ipv4Texts.get(n);
  if (text === undefined) {
    text = `${bin[0]}.${bin[1]}.${bin[2]}.${bin[3]}`;
    if (ipv4Texts.size >= IPV4_TEXTS_MAX) ipv4Texts.clear();
    ipv4Texts.set(n, text);
  }
  return text;
}

const statusLines = new Map<number, string>();

/** uWS wants the whole status line ("404 Not Found"). */
function statusLine(status: number): string {
  let line = statusLines.get(status);
  if (line === undefined) {
    line = `${status} ${STATUS_CODES[status] ?? 'Unknown'}`;
    statusLines.set(status, line);
  }
  return line;
}
