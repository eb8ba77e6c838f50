/**
 * In-memory ApiRequest/ApiResponse for driving the filter chain without a
 * socket: requests are built from a method and URL, responses record what
 * the chain wrote and can simulate a client that goes away.
 */
import type { ApiRequest, ApiResponse } from '../../src/server/http.ts';

export interface FakeRequestInit {
  readonly headers?: Readonly<Record<string, string | readonly string[]>>;
  readonly body?: string;
  readonly protocol?: 'h2' | 'http/1.1';
  readonly frontend?: 'node' | 'uws';
  readonly remoteAddress?: string;
}

export class FakeRequest implements ApiRequest {
  readonly method: string;
  readonly path: string;
  readonly rawQuery: string;
  readonly query: URLSearchParams;
  readonly remoteAddress: string;
  readonly protocol: 'h2' | 'http/1.1';
  readonly frontend: 'node' | 'uws';
  readonly peerCertificates = undefined;
  readonly #headers = new Map<string, string[]>();
  readonly #body: Uint8Array;
  readonly #abort = new AbortController();

  constructor(method: string, url: string, init: FakeRequestInit = {}) {
    this.method = method.toUpperCase();
    const q = url.indexOf('?');
    this.path = q === -1 ? url : url.slice(0, q);
    this.rawQuery = q === -1 ? '' : url.slice(q + 1);
    this.query = new URLSearchParams(this.rawQuery);
    this.remoteAddress = init.remoteAddress ?? '127.0.0.1';
    this.protocol = init.protocol ?? 'http/1.1';
    this.frontend = init.frontend ?? 'node';
    for (const [name, value] of Object.entries(init.headers ?? {})) {
      this.#headers.set(name.toLowerCase(), typeof value === 'string' ? [value] : [...value]);
    }
    this.#body = new TextEncoder().encode(init.body ?? '');
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

  async body(): Promise<Uint8Array> {
    return this.#body;
  }

  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  /** The client goes away. */
  disconnect(): void {
    this.#abort.abort(new Error('client disconnected'));
  }
}

export class FakeResponse implements ApiResponse {
  status = 0;
  headers: Record<string, string | string[]> = {};
  readonly chunks: Uint8Array[] = [];
  ended = false;
  headCount = 0;
  #gone = false;
  #closeCbs: (() => void)[] = [];
  #drainCbs: (() => void)[] = [];
  readonly #endedPromise: Promise<void>;
  #resolveEnded!: () => void;

  constructor() {
    this.#endedPromise = new Promise((resolve) => {
      this.#resolveEnded = resolve;
    });
  }

  get closed(): boolean {
    return this.ended || this.#gone;
  }

  get bufferedBytes(): number {
    return 0;
  }

  writeHead(status: number, headers: Readonly<Record<string, string | string[]>>): void {
    if (this.headCount > 0) throw new Error('writeHead called twice');
    this.headCount++;
    this.status = status;
    this.headers = { ...headers };
  }

  flushHead(): boolean {
    return true;
  }

  /** Set when the response was reset (connection closed or stream reset) rather than ended. */
  destroyed = false;

  destroy(): void {
    this.destroyed = true;
    this.end();
  }

  write(chunk: Uint8Array): boolean {
    if (this.closed) return true;
    if (this.headCount === 0) this.writeHead(200, {});
    this.chunks.push(chunk);
    return true;
  }

  onDrain(cb: () => void): void {
    this.#drainCbs.push(cb);
  }

  onClose(cb: () => void): void {
    this.#closeCbs.push(cb);
  }

  end(chunk?: Uint8Array | string): void {
    if (this.ended) throw new Error('end called twice');
    if (this.headCount === 0) this.writeHead(200, {});
    if (chunk !== undefined) this.chunks.push(typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk);
    this.ended = true;
    this.#fireClose();
    this.#resolveEnded();
  }

  endParts(parts: readonly Uint8Array[]): void {
    if (this.ended) throw new Error('end called twice');
    if (this.headCount === 0) this.writeHead(200, {});
    this.chunks.push(...parts);
    this.ended = true;
    this.#fireClose();
    this.#resolveEnded();
  }

  /** The client goes away mid-response. */
  disconnect(): void {
    this.#gone = true;
    this.#fireClose();
    this.#resolveEnded();
  }

  /** Resolves when the response ended or the client went away. */
  whenEnded(): Promise<void> {
    return this.#endedPromise;
  }

  get text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }

  json(): Record<string, unknown> {
    return JSON.parse(this.text) as Record<string, unknown>;
  }

  header(name: string): string | string[] | undefined {
    const key = Object.keys(this.headers).find((k) => k.toLowerCase() === name.toLowerCase());
    return key === undefined ? undefined : this.headers[key];
  }

  #fireClose(): void {
    const cbs = this.#closeCbs;
    this.#closeCbs = [];
    for (const cb of cbs) cb();
  }
}

/** A request/response pair; `disconnect()` on both sides at once. */
export function exchange(method: string, url: string, init?: FakeRequestInit): { req: FakeRequest; res: FakeResponse; disconnect: () => void } {
  const req = new FakeRequest(method, url, init);
  const res = new FakeResponse();
  return {
    req,
    res,
    disconnect: () => {
      req.disconnect();
      res.disconnect();
    },
  };
}
