/**
 * An in-memory ApiRequest/ApiResponse pair for driving the real request
 * pipeline without a socket. Unlike test/server/fake-http.ts the body is
 * bytes (Protobuf, invalid UTF-8), the body limit is enforced as the front
 * ends enforce it, and the response records protocol misuse (a second head,
 * a write after the end) instead of throwing into the chain, where the
 * chain's own error handling would hide it.
 */
import type { ApiRequest, ApiResponse } from '../../../src/server/http.ts';
import { bodyTooLarge } from '../../../src/frontends/body-limit.ts';

export interface ExchangeInit {
  readonly method: string;
  /** Path and query as sent, e.g. `/api/v1/pods?limit=1`. */
  readonly url: string;
  /** Header name/value pairs in order; a name may repeat. */
  readonly headers: readonly (readonly [string, string])[];
  readonly body: Uint8Array;
  readonly frontend?: 'node' | 'uws';
}

export class FuzzRequest implements ApiRequest {
  readonly method: string;
  readonly path: string;
  readonly rawQuery: string;
  readonly query: URLSearchParams;
  readonly remoteAddress = '127.0.0.1';
  readonly protocol = 'h2' as const;
  readonly frontend: 'node' | 'uws';
  readonly peerCertificates = undefined;
  readonly #headers = new Map<string, string[]>();
  readonly #body: Uint8Array;
  readonly #abort = new AbortController();

  constructor(init: ExchangeInit) {
    this.method = init.method.toUpperCase();
    const q = init.url.indexOf('?');
    this.path = q === -1 ? init.url : init.url.slice(0, q);
    this.rawQuery = q === -1 ? '' : init.url.slice(q + 1);
    this.query = new URLSearchParams(this.rawQuery);
    this.frontend = init.frontend ?? 'node';
    for (const [name, value] of init.headers) {
      const key = name.toLowerCase();
      const values = this.#headers.get(key);
      if (values === undefined) this.#headers.set(key, [value]);
      else values.push(value);
    }
    this.#body = init.body;
  }

  header(name: string): string | undefined {
    return this.#headers.get(name.toLowerCase())?.join(', ');
  }

  headerValues(name: string): string[] {
    return [...(this.#headers.get(name.toLowerCase()) ?? [])];
  }

  headerNames(): string[] {
    return [...this.#headers.keys()];
  }

  async body(limitBytes: number): Promise<Uint8Array> {
    if (this.#body.length > limitBytes) throw bodyTooLarge(limitBytes);
    return this.#body;
  }

  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  disconnect(): void {
    this.#abort.abort(new Error('client disconnected'));
  }
}

export class RecordingResponse implements ApiResponse {
  status = 0;
  headers: Record<string, string | string[]> = {};
  readonly chunks: Uint8Array[] = [];
  /** Misuse of the response protocol by the pipeline (each one is a finding). */
  readonly violations: string[] = [];
  ended = false;
  #headWritten = false;
  #gone = false;
  #closeCbs: (() => void)[] = [];
  #firstByte: (() => void) | undefined;
  /** Settles once the head or any byte was written, or the response ended. */
  readonly started: Promise<void>;

  constructor() {
    this.started = new Promise((resolve) => (this.#firstByte = resolve));
  }

  get closed(): boolean {
    return this.ended || this.#gone;
  }

  get bufferedBytes(): number {
    return 0;
  }

  writeHead(status: number, headers: Readonly<Record<string, string | string[]>>): void {
    if (this.#headWritten) {
      this.violations.push(`writeHead(${status}) after the head was written (${this.status})`);
      return;
    }
    if (this.ended) this.violations.push('writeHead after end');
    this.#headWritten = true;
    this.status = status;
    this.headers = { ...headers };
    this.#firstByte?.();
  }

  flushHead(): boolean {
    this.#firstByte?.();
    return true;
  }

  write(chunk: Uint8Array): boolean {
    if (this.ended) {
      this.violations.push('write after end');
      return true;
    }
    if (this.#gone) return true;
    if (!this.#headWritten) this.writeHead(200, {});
    this.chunks.push(chunk);
    this.#firstByte?.();
    return true;
  }

  onDrain(): void {}

  onClose(cb: () => void): void {
    if (this.closed) cb();
    else this.#closeCbs.push(cb);
  }

  destroy(): void {
    this.#gone = true;
    this.#fireClose();
  }

  end(chunk?: Uint8Array | string): void {
    if (this.ended) {
      this.violations.push('end called twice');
      return;
    }
    if (!this.#headWritten && !this.#gone) this.writeHead(200, {});
    if (chunk !== undefined && !this.#gone) this.chunks.push(typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk);
    this.ended = true;
    this.#firstByte?.();
    this.#fireClose();
  }

  endParts(parts: readonly Uint8Array[]): void {
    if (this.ended) {
      this.violations.push('endParts after end');
      return;
    }
    if (!this.#headWritten && !this.#gone) this.writeHead(200, {});
    if (!this.#gone) this.chunks.push(...parts);
    this.ended = true;
    this.#firstByte?.();
    this.#fireClose();
  }

  /** The client goes away. */
  disconnect(): void {
    this.#gone = true;
    this.#fireClose();
  }

  header(name: string): string | undefined {
    const key = Object.keys(this.headers).find((k) => k.toLowerCase() === name.toLowerCase());
    if (key === undefined) return undefined;
    const v = this.headers[key]!;
    return Array.isArray(v) ? v.join(', ') : v;
  }

  get bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }

  #fireClose(): void {
    const cbs = this.#closeCbs;
    this.#closeCbs = [];
    for (const cb of cbs) cb();
  }
}
