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
 */
import type { HttpRequest, HttpResponse } from '@trufflesuite/uws-js-unofficial';
import { STATUS_CODES } from 'node:http';
import type { RequestHandler } from '../server/http.ts';
import { closeRatherThanDrain, declaredLength, EMPTY_BODY, mayHaveBody } from './body-limit.ts';
import { ExchangeLifecycle, runAll } from './lifecycle.ts';
import { PushedBody } from './pushed-body.ts';
import { RequestBase } from './request-base.ts';
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
): void {
  const lifecycle = new ExchangeLifecycle();
  const req = new UwsRequest(res, nativeReq, lifecycle);
  const response = new UwsResponse(res, req, lifecycle);
  track(lifecycle);
  runHandler(handler, req, response, report);
}

class UwsRequest extends RequestBase {
  readonly protocol = 'http/1.1' as const;
  readonly frontend = 'uws' as const;
  /** uWS never shows the client certificate: clients that need one use the node front end. */
  readonly peerCertificates = undefined;
  readonly remoteAddress: string;
  readonly #body: PushedBody | undefined;
  readonly #declared: number | undefined;

  constructor(res: HttpResponse, req: HttpRequest, lifecycle: ExchangeLifecycle) {
    const raw: string[] = [];
    req.forEach((name, value) => {
      raw.push(name, value);
    });
    // getQuery() is undefined, not '', when the URL has no '?'.
    super(req.getCaseSensitiveMethod(), req.getUrl(), req.getQuery() ?? '', raw, lifecycle);
    this.remoteAddress = Buffer.from(res.getRemoteAddressAsText()).toString('latin1');
    this.#declared = declaredLength(this.headers);
    if (mayHaveBody(this.headers)) {
      const body = new PushedBody(this.#declared, {
        pause: () => res.pause(),
        resume: () => {
          if (!lifecycle.closed) res.resume();
        },
      });
      // uWS reuses (neuters) the chunk's memory once this returns: copy it.
      res.onData((chunk, last) => body.push(new Uint8Array(chunk.slice(0)), last));
      this.#body = body;
    }
  }

  body(limitBytes: number): Promise<Uint8Array> {
    return this.#body === undefined ? Promise.resolve(EMPTY_BODY) : this.#body.read(limitBytes);
  }

  /** The client went away: a pending body read fails. */
  abortBody(): void {
    this.#body?.abort();
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
  /** Flat [name, value, ...], already checked. */
  headers: string[];
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

class UwsResponse implements FrontendResponse {
  readonly #res: HttpResponse;
  readonly #req: UwsRequest;
  readonly #lifecycle: ExchangeLifecycle;
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
  #buffered = 0;
  #drains: (() => void)[] = [];
  #writableHooked = false;

  constructor(res: HttpResponse, req: UwsRequest, lifecycle: ExchangeLifecycle) {
    this.#res = res;
    this.#req = req;
    this.#lifecycle = lifecycle;
    res.onAborted(() => {
      this.#drains = [];
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
    return this.closed ? 0 : this.#buffered;
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
    const ok = this.#writePieces(chunk);
    if (ok) {
      this.#buffered = 0;
      return true;
    }
    this.#buffered += chunk.byteLength;
    this.#hookWritable();
    return false;
  }

  destroy(): void {
    if (this.#lifecycle.closed) return;
    this.#ended = true;
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
    const res = this.#res;
    const body = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    const length = body === undefined ? 0 : body.byteLength;
    const close = this.#req.closeForUnreadBody() || (!this.#headSent && wantsClose(this.#head.headers));
    let last = body;
    if (!this.#headSent) {
      const head = this.#prepareHead(length);
      if (head.bodyless || head.size + length <= CORK_BUFFER_BYTES) {
        // The common case: head and body in one cork, one TLS record, with
        // Content-Length.
        this.#ended = true;
        res.cork(() => {
          this.#sendHead(head);
          this.#finish(body, close);
        });
        this.#lifecycle.finish(false);
        return;
      }
      // Too big for one cork: chunked, in cork-sized pieces (see PIECE_BYTES).
      res.cork(() => this.#sendHead(head));
    }
    if (last !== undefined && last.byteLength > PIECE_BYTES && !this.#bodyless) {
      this.#writePieces(last);
      last = undefined;
    }
    this.#ended = true;
    res.cork(() => this.#finish(last, close));
    this.#lifecycle.finish(false);
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
   * client would get a corrupt chunked stream. Returns false once any piece
   * met backpressure.
   */
  #writePieces(chunk: Uint8Array): boolean {
    const res = this.#res;
    let ok = true;
    const write = (piece: Uint8Array): void => {
      if (!res.write(piece)) ok = false;
    };
    if (chunk.byteLength <= PIECE_BYTES) {
      res.cork(() => write(chunk));
      return ok;
    }
    for (let offset = 0; offset < chunk.byteLength; offset += PIECE_BYTES) {
      const piece = chunk.subarray(offset, offset + PIECE_BYTES);
      res.cork(() => write(piece));
    }
    return ok;
  }

  /** Validates everything before touching uWS, so a bad header throws here and not half-way into a cork. */
  #prepareHead(length: number | undefined): PreparedHead {
    const { status, headers } = this.#head;
    if (!Number.isInteger(status) || status < 100 || status > 999) throw new RangeError(`invalid status code ${status}`);
    const isHead = this.#req.method === 'HEAD';
    const out: string[] = [];
    const line = statusLine(status);
    let size = line.length + UWS_HEAD_OVERHEAD;
    for (const name in headers) {
      const lower = name.toLowerCase();
      // uWS frames the body itself (Content-Length or chunked) and writes its
      // own Date; copies from the handler would contradict it. A HEAD
      // response keeps its Content-Length: nothing else will write one.
      if (isConnectionSpecific(lower) || lower === 'date' || (lower === 'content-length' && !isHead)) continue;
      const value = headers[name]!;
      for (const v of Array.isArray(value) ? value : [value]) {
        checkHeader(name, v);
        out.push(name, v);
        size += name.length + Buffer.byteLength(v) + 4;
      }
    }
    if (isHead && length !== undefined && length > 0 && findHeader(headers, 'content-length') === undefined) {
      out.push('content-length', String(length));
    }
    return { statusLine: line, headers: out, bodyless: isBodyless(this.#req.method, status), size };
  }

  #sendHead(head: PreparedHead): void {
    const res = this.#res;
    res.writeStatus(head.statusLine);
    const headers = head.headers;
    for (let i = 0; i < headers.length; i += 2) res.writeHeader(headers[i]!, headers[i + 1]!);
    this.#bodyless = head.bodyless;
    this.#headSent = true;
  }

  #hookWritable(): void {
    if (this.#writableHooked) return;
    this.#writableHooked = true;
    this.#res.onWritable(() => {
      if (this.#lifecycle.closed) return true;
      // Once an onWritable handler is registered, uWS stops draining its own
      // backpressure buffer on writable events and leaves that to the
      // handler's next write. A stream with nothing more to say right now
      // (an idle watch) would keep its last bytes stuck; an empty cork
      // flushes them.
      this.#res.cork(noop);
      this.#buffered = 0;
      const drains = this.#drains;
      this.#drains = [];
      runAll(drains);
      return true;
    });
  }
}

function noop(): void {}

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
