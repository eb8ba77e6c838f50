/**
 * A view of a request that keeps a copy of its body once the handler reads
 * it: audit at Request level and above records the request object. Every
 * other member is the request's own.
 */
import type { ApiRequest } from '../server/http.ts';

class TappedRequest implements ApiRequest {
  readonly #inner: ApiRequest;
  readonly #onBody: (body: Uint8Array) => void;

  constructor(inner: ApiRequest, onBody: (body: Uint8Array) => void) {
    this.#inner = inner;
    this.#onBody = onBody;
  }

  get method(): string {
    return this.#inner.method;
  }
  get path(): string {
    return this.#inner.path;
  }
  get rawQuery(): string {
    return this.#inner.rawQuery;
  }
  get query(): URLSearchParams {
    return this.#inner.query;
  }
  get remoteAddress(): string {
    return this.#inner.remoteAddress;
  }
  get protocol(): 'h2' | 'http/1.1' {
    return this.#inner.protocol;
  }
  get frontend(): 'node' | 'uws' {
    return this.#inner.frontend;
  }
  get peerCertificates(): readonly Uint8Array[] | undefined {
    return this.#inner.peerCertificates;
  }
  get signal(): AbortSignal {
    return this.#inner.signal;
  }
  header(name: string): string | undefined {
    return this.#inner.header(name);
  }
  headerValues(name: string): string[] {
    return this.#inner.headerValues(name);
  }
  headerNames(): string[] {
    return this.#inner.headerNames();
  }

  async body(limitBytes: number): Promise<Uint8Array> {
    const body = await this.#inner.body(limitBytes);
    this.#onBody(body);
    return body;
  }
}

export function tapRequestBody(req: ApiRequest, onBody: (body: Uint8Array) => void): ApiRequest {
  return new TappedRequest(req, onBody);
}
