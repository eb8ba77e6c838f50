/**
 * One HTTP/1.1 request (from the HTTP/2 server's allowHTTP1 fallback) as
 * ApiRequest/ApiResponse.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { RequestHandler } from '../server/http.ts';
import { closeRatherThanDrain, declaredLength, EMPTY_BODY, mayHaveBody } from './body-limit.ts';
import { NO_PARTS, totalLength } from './body-parts.ts';
import { ExchangeLifecycle } from './lifecycle.ts';
import { PartsPump, SLICE_BYTES } from './node-parts-pump.ts';
import { peerCertificateChain } from './peer-certificates.ts';
import { RequestBase } from './request-base.ts';
import type { PendingHead, ResponseHeaders } from './response-head.ts';
import { byteLength, DEFAULT_HEAD, findHeader, isBodyless, takesContentLength } from './response-head.ts';
import type { ErrorReporter, FrontendResponse } from './run-handler.ts';
import { runHandler } from './run-handler.ts';
import { NodeWriteQueue } from './node-write-queue.ts';
import type { BodyProgress } from './stream-body.ts';
import { readStreamBody } from './stream-body.ts';
import type { WatchBudget } from './watch-budget.ts';
import { copyWith } from '../api/object-copy.ts';

export function serveH1Request(msg: IncomingMessage, raw: ServerResponse, handler: RequestHandler, report: ErrorReporter, budget: WatchBudget): void {
  const lifecycle = new ExchangeLifecycle();
  const req = new H1Request(msg, lifecycle);
  const res = new H1Response(raw, req, lifecycle, budget);
  // 'close' comes after 'finish' on a complete response, or alone when the
  // connection died first.
  raw.once('close', () => lifecycle.finish(!raw.writableFinished));
  runHandler(handler, req, res, report);
}

class H1Request extends RequestBase {
  readonly protocol = 'http/1.1' as const;
  readonly frontend = 'node' as const;
  readonly #msg: IncomingMessage;
  readonly #progress: BodyProgress = { received: 0, complete: false };
  #body: Promise<Uint8Array> | undefined;

  constructor(msg: IncomingMessage, lifecycle: ExchangeLifecycle) {
    super(msg.method ?? 'GET', msg.url ?? '', undefined, msg.rawHeaders, lifecycle);
    this.#msg = msg;
  }

  get remoteAddress(): string {
    return this.#msg.socket.remoteAddress ?? '';
  }

  get peerCertificates(): readonly Uint8Array[] | undefined {
    return peerCertificateChain(this.#msg.socket as TLSSocket);
  }

  body(limitBytes: number): Promise<Uint8Array> {
    if (this.#body === undefined) {
      if (!mayHaveBody(this.headers)) {
        this.#progress.complete = true;
        this.#body = Promise.resolve(EMPTY_BODY);
      } else {
        this.#body = readStreamBody(this.#msg, limitBytes, declaredLength(this.headers), this.#progress);
      }
    }
    return this.#body;
  }

  /**
   * Whether the response should close the connection because of body bytes
   * still on their way: node would otherwise read them all away to keep the
   * connection alive, however many there are.
   */
  closeForUnreadBody(): boolean {
    // msg.complete is not yet true while a handler answers synchronously
    // from inside the 'request' event, even for a GET: look at the framing.
    if (this.#progress.complete || this.#msg.complete || !mayHaveBody(this.headers)) return false;
    return closeRatherThanDrain(declaredLength(this.headers), this.#progress.received);
  }
}

class H1Response implements FrontendResponse {
  readonly #raw: ServerResponse;
  readonly #req: H1Request;
  readonly #lifecycle: ExchangeLifecycle;
  readonly #budget: WatchBudget;
  #head: PendingHead = DEFAULT_HEAD;
  #headSent = false;
  #ended = false;
  /** Writes the rest of a body ended in parts; undefined otherwise. */
  #pump: PartsPump | undefined;
  /** What write() could not hand to node yet; made at the first write. */
  #writes: NodeWriteQueue | undefined;

  constructor(raw: ServerResponse, req: H1Request, lifecycle: ExchangeLifecycle, budget: WatchBudget) {
    this.#raw = raw;
    this.#req = req;
    this.#lifecycle = lifecycle;
    this.#budget = budget;
  }

  get closed(): boolean {
    return this.#ended || this.#lifecycle.closed || this.#raw.destroyed;
  }

  get headSent(): boolean {
    return this.#headSent;
  }

  get bufferedBytes(): number {
    // Includes what sits in the socket's own write buffer.
    return this.#raw.writableLength + (this.#pump?.remaining ?? 0) + (this.#writes?.queuedBytes ?? 0);
  }

  writeHead(status: number, headers: ResponseHeaders): void {
    if (this.#headSent) throw new Error('writeHead after the response head was sent');
    this.#head = { status, headers };
  }

  write(chunk: Uint8Array): boolean {
    if (this.closed) return false;
    if (!this.#headSent) this.#sendHead(undefined);
    // HEAD, 204 and 304: node drops body writes itself.
    return this.#writeQueue().write(chunk);
  }

  #writeQueue(): NodeWriteQueue {
    if (this.#writes === undefined) {
      const writes = new NodeWriteQueue(this.#raw, this.#budget, { frontend: 'node', path: this.#req.path }, () => this.destroy());
      this.#writes = writes;
      this.#lifecycle.onClose(() => writes.close());
    }
    return this.#writes;
  }

  destroy(): void {
    if (this.#lifecycle.closed) return;
    this.#raw.destroy();
    this.#lifecycle.finish(true);
  }

  flushHead(): boolean {
    if (this.closed) return false;
    if (!this.#headSent) {
      this.#sendHead(undefined);
      this.#raw.flushHeaders();
    }
    return true;
  }

  onDrain(cb: () => void): void {
    if (this.#writes !== undefined) this.#writes.onDrain(cb);
    else this.#raw.once('drain', cb);
  }

  onClose(cb: () => void): void {
    this.#lifecycle.onClose(cb);
  }

  end(chunk?: Uint8Array | string): void {
    if (this.closed) return;
    if (this.#endAfterWrites(chunk === undefined ? [] : [typeof chunk === 'string' ? Buffer.from(chunk) : chunk])) return;
    // A large body goes out in slices (see node-parts-pump.ts).
    if (typeof chunk !== 'string' && chunk !== undefined && chunk.byteLength > SLICE_BYTES) {
      this.endParts([chunk]);
      return;
    }
    if (!this.#headSent) this.#sendHead(chunk === undefined ? 0 : byteLength(chunk));
    this.#ended = true;
    if (chunk === undefined) this.#raw.end();
    else this.#raw.end(chunk);
  }

  endParts(parts: readonly Uint8Array[]): void {
    if (this.closed) return;
    if (this.#endAfterWrites(parts)) return;
    const total = totalLength(parts);
    if (!this.#headSent) this.#sendHead(total);
    this.#ended = true;
    // HEAD, 204 and 304: node would drop the writes; do not make them.
    const body = isBodyless(this.#req.method, this.#head.status) ? NO_PARTS : parts;
    this.#pump = new PartsPump(this.#raw, body, body === parts ? total : 0);
    this.#pump.start();
  }

  /** Output written earlier still waits for the client: the end goes after it. */
  #endAfterWrites(parts: readonly Uint8Array[]): boolean {
    const writes = this.#writes;
    if (writes === undefined || !writes.endAfter(parts, () => this.#raw.end())) return false;
    this.#ended = true;
    return true;
  }

  /** `length` is the whole body's size when known (a one-shot end), so it can go out as Content-Length. */
  #sendHead(length: number | undefined): void {
    const { status, headers } = this.#head;
    let out: OutgoingHttpHeaders = headers;
    if (length !== undefined && takesContentLength(status) && findHeader(headers, 'content-length') === undefined) {
      out = copyWith(out, 'content-length', length);
    }
    if (this.#req.closeForUnreadBody()) out = copyWith(out, 'connection', 'close');
    this.#raw.writeHead(status, out);
    this.#headSent = true;
  }
}
