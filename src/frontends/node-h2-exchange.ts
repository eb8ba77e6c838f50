/**
 * One HTTP/2 stream as ApiRequest/ApiResponse, on node's core stream API
 * (about twice as fast as the compatibility req/res layer).
 */
import type { IncomingHttpHeaders, OutgoingHttpHeaders, Http2Session, ServerHttp2Stream } from 'node:http2';
import http2, { constants } from 'node:http2';
import type { TLSSocket } from 'node:tls';
import { AUDIT_ID_HEADER, type RequestHandler } from '../server/http.ts';
import { declaredLength } from './body-limit.ts';
import { totalLength } from './body-parts.ts';
import { ExchangeLifecycle } from './lifecycle.ts';
import { PartsPump, SLICE_BYTES } from './node-parts-pump.ts';
import { peerCertificateChain } from './peer-certificates.ts';
import { RequestBase } from './request-base.ts';
import { byteLength, checkHeader, isBodyless, isConnectionSpecific, takesContentLength, wantsClose } from './response-head.ts';
import type { ErrorReporter } from './run-handler.ts';
import { runHandler } from './run-handler.ts';
import { H2StreamResponse } from './h2-stream-response.ts';
import type { BodyProgress } from './stream-body.ts';
import { readStreamBody } from './stream-body.ts';
import type { WatchBudget } from './watch-budget.ts';
import { lowerHeaderName } from './header-bag.ts';

/** Response headers sent as never indexed (HPACK): their values differ in every response. */
const NEVER_INDEXED: readonly string[] = [AUDIT_ID_HEADER];

/** Each HTTP/2 connection's peer address, read once (remoteAddress). */
const peerAddresses = new WeakMap<Http2Session, string>();

export function serveH2Stream(
  stream: ServerHttp2Stream,
  headers: IncomingHttpHeaders,
  rawHeaders: readonly string[],
  handler: RequestHandler,
  report: ErrorReporter,
  budget: WatchBudget,
): void {
  const lifecycle = new ExchangeLifecycle();
  const req = new H2Request(stream, headers, rawHeaders, lifecycle);
  const res = new H2Response(stream, req, lifecycle, budget);
  // A reset stream emits 'error' before 'close'; unhandled, it would take the
  // process down. 'close' below says all we need.
  stream.on('error', ignore);
  // node marks the writable side finished when a RST_STREAM arrives, so
  // writableFinished cannot tell an abort from a completed response.
  stream.once('close', () => lifecycle.finish(stream.rstCode !== NGHTTP2_NO_ERROR || !res.ended));
  runHandler(handler, req, res, report);
}

const { NGHTTP2_NO_ERROR } = constants;

/** What holdReadableSide puts back; never read by anyone. */
const HELD_BYTE = Buffer.from([0]);

/**
 * Keeps a stream's readable side from ending until its response is written. node destroys a stream whose
 * readable side ended as soon as nghttp2 closes it, which with END_STREAM on the response's last DATA
 * frame comes before that write's callback: the write then completes on a destroyed stream, and node
 * builds an ERR_STREAM_DESTROYED error (stack and all) nobody sees, ~10 µs of every create's serving
 * thread here. With a byte left in its read buffer the readable side cannot end (a client's END_STREAM
 * only marks it ended), so node waits for the response to finish before destroying the stream; once it
 * has, the byte is read and the stream ends and goes as before.
 */
export function holdReadableSide(stream: ServerHttp2Stream): void {
  // A response already finished (or a stream gone) has nothing left to wait for.
  if (stream.writableFinished || stream.destroyed) return;
  stream.unshift(HELD_BYTE);
  stream.once('finish', () => stream.read());
}

function ignore(): void {}

class H2Request extends RequestBase {
  readonly protocol = 'h2' as const;
  readonly frontend = 'node' as const;
  readonly #stream: ServerHttp2Stream;
  readonly #progress: BodyProgress;
  #body: Promise<Uint8Array> | undefined;

  constructor(stream: ServerHttp2Stream, headers: IncomingHttpHeaders, rawHeaders: readonly string[], lifecycle: ExchangeLifecycle) {
    const method = headers[':method'];
    const path = headers[':path'];
    super(typeof method === 'string' ? method : 'GET', typeof path === 'string' ? path : '', undefined, rawHeaders, lifecycle);
    this.#stream = stream;
    // END_STREAM on the HEADERS frame: there is no body to wait for.
    this.#progress = { received: 0, complete: stream.endAfterHeaders };
  }

  get remoteAddress(): string {
    const session = this.#stream.session;
    if (session === undefined) return '';
    // Read once per connection: through the session's socket proxy it costs a microsecond a request (audit reads it for every event).
    let address = peerAddresses.get(session);
    if (address === undefined) {
      address = session.socket.remoteAddress ?? '';
      peerAddresses.set(session, address);
    }
    return address;
  }

  get peerCertificates(): readonly Uint8Array[] | undefined {
    const session = this.#stream.session;
    return session === undefined ? undefined : peerCertificateChain(session.socket as TLSSocket);
  }

  body(limitBytes: number): Promise<Uint8Array> {
    const stream = this.#stream;
    return (this.#body ??= readStreamBody(stream, limitBytes, declaredLength(this.headers), this.#progress, () => holdReadableSide(stream)));
  }
}

class H2Response extends H2StreamResponse {
  readonly #stream: ServerHttp2Stream;
  /** Writes the rest of a body ended in parts; undefined otherwise. */
  #pump: PartsPump | undefined;

  constructor(stream: ServerHttp2Stream, req: H2Request, lifecycle: ExchangeLifecycle, budget: WatchBudget) {
    super(req.method, req.path, lifecycle, budget);
    this.#stream = stream;
  }

  protected get sink(): ServerHttp2Stream {
    return this.#stream;
  }

  protected get streamGone(): boolean {
    return this.#stream.destroyed;
  }

  get bufferedBytes(): number {
    return this.#stream.destroyed ? 0 : this.#stream.bufferSize + (this.#pump?.remaining ?? 0) + (this.writes?.queuedBytes ?? 0);
  }

  protected resetStream(): void {
    this.#stream.close(constants.NGHTTP2_CANCEL);
  }

  end(chunk?: Uint8Array | string): void {
    if (this.closed) return;
    // A large body goes out in slices (see node-parts-pump.ts).
    if (typeof chunk !== 'string' && chunk !== undefined && chunk.byteLength > SLICE_BYTES) {
      this.endParts([chunk]);
      return;
    }
    if (this.endAfterWrites(chunk === undefined ? [] : [typeof chunk === 'string' ? Buffer.from(chunk) : chunk], () => this.#stream.end())) return;
    if (!this.sent) {
      const length = chunk === undefined ? 0 : byteLength(chunk);
      this.sendHead(length === 0, length);
      this.finished = true;
      if (length > 0 && !this.bodyless) this.#stream.end(chunk);
      return;
    }
    this.finished = true;
    // A bodyless response already ended its stream with the HEADERS frame.
    if (this.bodyless) return;
    if (chunk === undefined) this.#stream.end();
    else this.#stream.end(chunk);
  }

  endParts(parts: readonly Uint8Array[]): void {
    if (this.closed) return;
    if (this.endAfterWrites(parts, () => this.#stream.end())) return;
    const total = totalLength(parts);
    if (!this.sent) this.sendHead(total === 0, total);
    else if (total === 0 && !this.bodyless) this.#stream.end();
    this.finished = true;
    // An empty or bodyless response already ended its stream.
    if (total === 0 || this.bodyless) return;
    this.#pump = new PartsPump(this.#stream, parts, total);
    this.#pump.start();
  }

  protected sendHead(endStream: boolean, length: number | undefined): void {
    const { status, headers } = this.head;
    const bodyless = isBodyless(this.method, status);
    const out: OutgoingHttpHeaders = { ':status': status };
    for (const name in headers) {
      const lower = lowerHeaderName(name);
      if (isConnectionSpecific(lower)) continue;
      const value = headers[name]!;
      // node's HTTP/2 layer passes CR/LF through where HTTP/1.1 would throw.
      if (typeof value === 'string') checkHeader(name, value);
      else for (const v of value) checkHeader(name, v);
      out[lower] = value;
      // A value new in every response would only churn the connection's HPACK table (evicting the
      // headers that do repeat): sent as never indexed.
      if (lower === AUDIT_ID_HEADER) (out as Record<symbol, unknown>)[http2.sensitiveHeaders] = NEVER_INDEXED;
    }
    if (length !== undefined && out['content-length'] === undefined && takesContentLength(status)) {
      out['content-length'] = length;
    }
    // node ends 204/304/HEAD streams itself; say so, so nothing writes after.
    this.#stream.respond(out, { endStream: endStream || bodyless });
    // Connection: close means GOAWAY in HTTP/2 (as Go's server reads it): this
    // stream and the others under way finish, new ones go to a new connection.
    if (wantsClose(headers)) {
      const session = this.#stream.session;
      if (session !== undefined && !session.closed) session.close();
    }
    this.bodyless = bodyless;
    this.sent = true;
  }
}
