/**
 * A view of a request with some headers removed, for the filters that must
 * keep credentials or identity headers from everything after them (the
 * authenticating proxy's X-Remote-* headers, Impersonate-*), as the original
 * deletes them from its request. ApiRequest is read-only, so the filter puts
 * this view on the context instead; everything but the headers is the
 * original request's.
 */
import type { ApiRequest } from './http.ts';

class MaskedRequest implements ApiRequest {
  readonly #inner: ApiRequest;
  readonly #hidden: (lowerName: string) => boolean;

  constructor(inner: ApiRequest, hidden: (lowerName: string) => boolean) {
    this.#inner = inner;
    this.#hidden = hidden;
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
    return this.#hidden(name.toLowerCase()) ? undefined : this.#inner.header(name);
  }

  headerValues(name: string): string[] {
    return this.#hidden(name.toLowerCase()) ? [] : this.#inner.headerValues(name);
  }

  headerNames(): string[] {
    return this.#inner.headerNames().filter((n) => !this.#hidden(n));
  }

  body(limitBytes: number): Promise<Uint8Array> {
    return this.#inner.body(limitBytes);
  }
}

/** `req` without the headers `hidden` names (lower-case); `req` itself when it carries none of them. */
export function withoutHeaders(req: ApiRequest, hidden: (lowerName: string) => boolean): ApiRequest {
  if (!req.headerNames().some(hidden)) return req;
  return new MaskedRequest(req, hidden);
}
