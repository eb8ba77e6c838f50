/**
 * One HTTP/2 stream of this project's own HTTP/2 engine (h2/connection.ts) as
 * ApiRequest/ApiResponse: what node-h2-exchange.ts does for node:http2's
 * streams, on a stream that queues the response's chunks by reference and
 * frames them as the client's windows allow.
 */
import { AUDIT_ID_HEADER, type RequestHandler } from '../server/http.ts';
import { totalLength } from './body-parts.ts';
import type { H2Connection } from './h2/connection.ts';
import { ErrorCode } from './h2/frames.ts';
import type { EncodedField } from './h2/hpack.ts';
import type { H2Stream } from './h2/stream.ts';
import { lowerHeaderName } from './header-bag.ts';
import { ExchangeLifecycle } from './lifecycle.ts';
import { H2StreamResponse } from './h2-stream-response.ts';
import { peerCertificateChain } from './peer-certificates.ts';
import { RequestBase } from './request-base.ts';
import { byteLength, checkHeader, isBodyless, isConnectionSpecific, takesContentLength, wantsClose } from './response-head.ts';
import type { ErrorReporter } from './run-handler.ts';
import { runHandler } from './run-handler.ts';
import type { WatchBudget } from './watch-budget.ts';

/** Each connection's peer address, read once. */
const peerAddresses = new WeakMap<H2Connection, string>();

/** `:status` values as strings, made once. */
const STATUS_TEXT: string[] = [];
function statusText(status: number): string {
  return (STATUS_TEXT[status] ??= String(status));
}

export function serveJsH2Stream(stream: H2Stream, connection: H2Connection, handler: RequestHandler, report: ErrorReporter, budget: WatchBudget): void {
  const lifecycle = new ExchangeLifecycle();
  const req = new JsH2Request(stream, connection, lifecycle);
  const res = new JsH2Response(stream, connection, req.method, req.path, lifecycle, budget);
  stream.once('close', () => lifecycle.finish(stream.aborted || !res.ended));
  runHandler(handler, req, res, report);
}

class JsH2Request extends RequestBase {
  readonly protocol = 'h2' as const;
  readonly frontend = 'node' as const;
  readonly #stream: H2Stream;
  readonly #connection: H2Connection;
  #body: Promise<Uint8Array> | undefined;

  constructor(stream: H2Stream, connection: H2Connection, lifecycle: ExchangeLifecycle) {
    // The engine checked the head: names are lower case, :method and :path are there (CONNECT aside).
    super(stream.method, stream.path, undefined, stream.fields, lifecycle, true);
    this.#stream = stream;
    this.#connection = connection;
  }

  get remoteAddress(): string {
    const connection = this.#connection;
    let address = peerAddresses.get(connection);
    if (address === undefined) {
      address = connection.socket.remoteAddress ?? '';
      peerAddresses.set(connection, address);
    }
    return address;
  }

  get peerCertificates(): readonly Uint8Array[] | undefined {
    return peerCertificateChain(this.#connection.socket);
  }

  body(limitBytes: number): Promise<Uint8Array> {
    return (this.#body ??= this.#stream.readBody(limitBytes));
  }
}

class JsH2Response extends H2StreamResponse {
  readonly #stream: H2Stream;
  readonly #connection: H2Connection;

  constructor(stream: H2Stream, connection: H2Connection, method: string, path: string, lifecycle: ExchangeLifecycle, budget: WatchBudget) {
    super(method, path, lifecycle, budget);
    this.#stream = stream;
    this.#connection = connection;
  }

  protected get sink(): H2Stream {
    return this.#stream;
  }

  protected get streamGone(): boolean {
    return this.#stream.closed;
  }

  get bufferedBytes(): number {
    return this.#stream.closed ? 0 : this.#stream.writableLength + (this.writes?.queuedBytes ?? 0);
  }

  protected resetStream(): void {
    this.#stream.reset(ErrorCode.CANCEL);
  }

  end(chunk?: Uint8Array | string): void {
    if (this.closed) return;
    const body = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    this.endParts(body === undefined ? [] : [body]);
  }

  endParts(parts: readonly Uint8Array[]): void {
    if (this.closed) return;
    if (this.endAfterWrites(parts, () => this.#stream.end())) return;
    const total = parts.length === 1 ? byteLength(parts[0]!) : totalLength(parts);
    if (!this.sent) this.sendHead(total === 0, total);
    this.finished = true;
    // A bodyless or empty response ended its stream with the HEADERS frame.
    if (this.bodyless) return;
    if (total === 0) {
      this.#stream.end();
      return;
    }
    // Queued by reference: the connection frames them as the client reads (no copy, no slices to wait for).
    for (let i = 0; i < parts.length - 1; i++) this.#stream.write(parts[i]!);
    this.#stream.end(parts[parts.length - 1]);
  }

  protected sendHead(endStream: boolean, length: number | undefined): void {
    const { status, headers } = this.head;
    const bodyless = isBodyless(this.method, status);
    const fields: EncodedField[] = [{ name: ':status', value: statusText(status) }];
    let hasLength = false;
    for (const name in headers) {
      const lower = lowerHeaderName(name);
      if (isConnectionSpecific(lower)) continue;
      const value = headers[name]!;
      if (lower === 'content-length') hasLength = true;
      // A value new in every response would only churn the client's HPACK table: sent as never indexed.
      const sensitive = lower === AUDIT_ID_HEADER;
      if (typeof value === 'string') {
        checkHeader(name, value);
        fields.push({ name: lower, value, sensitive });
      } else {
        for (const v of value) {
          checkHeader(name, v);
          fields.push({ name: lower, value: v, sensitive });
        }
      }
    }
    if (length !== undefined && !hasLength && takesContentLength(status)) {
      fields.push({ name: 'content-length', value: String(length) });
    }
    this.bodyless = bodyless;
    this.sent = true;
    this.#stream.respond(fields, endStream || bodyless);
    // Connection: close means GOAWAY in HTTP/2 (as Go's server reads it).
    if (wantsClose(headers)) this.#connection.close();
  }
}
