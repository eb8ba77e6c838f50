/**
 * The protocol-independent part of ApiRequest: target, query and headers
 * copied out of the native request up front, the parsed forms built only
 * when read.
 */
import type { StatusError } from '../api/status.ts';
import type { ApiRequest } from '../server/http.ts';
import { conflictingLengths } from './body-limit.ts';
import { HeaderBag } from './header-bag.ts';
import type { ExchangeLifecycle } from './lifecycle.ts';

export abstract class RequestBase implements ApiRequest {
  readonly method: string;
  readonly path: string;
  readonly rawQuery: string;
  abstract readonly protocol: 'h2' | 'http/1.1';
  abstract readonly frontend: 'node' | 'uws';
  abstract readonly remoteAddress: string;
  abstract readonly peerCertificates: readonly Uint8Array[] | undefined;
  protected readonly headers: HeaderBag;
  protected readonly lifecycle: ExchangeLifecycle;
  #query: URLSearchParams | undefined;

  /**
   * `target` is the request target as sent (path and query); `rawQuery` overrides the split when the stack already did
   * it; `namesLowerCase`: the stack lower-cased every header name already (see HeaderBag).
   */
  constructor(
    method: string,
    target: string,
    rawQuery: string | undefined,
    rawHeaders: readonly string[],
    lifecycle: ExchangeLifecycle,
    namesLowerCase = false,
  ) {
    this.method = method;
    if (rawQuery !== undefined) {
      this.path = target;
      this.rawQuery = rawQuery;
    } else {
      const q = target.indexOf('?');
      this.path = q < 0 ? target : target.slice(0, q);
      this.rawQuery = q < 0 ? '' : target.slice(q + 1);
    }
    this.headers = new HeaderBag(rawHeaders, namesLowerCase);
    this.lifecycle = lifecycle;
  }

  get query(): URLSearchParams {
    return (this.#query ??= new URLSearchParams(this.rawQuery));
  }

  get signal(): AbortSignal {
    return this.lifecycle.signal;
  }

  header(name: string): string | undefined {
    return this.headers.get(name);
  }

  headerValues(name: string): string[] {
    return this.headers.values(name);
  }

  headerNames(): string[] {
    return this.headers.names();
  }

  /** Why the request's framing cannot be trusted, if it cannot (stacks that do not check it themselves ask). */
  framingError(): StatusError | undefined {
    return conflictingLengths(this.headers);
  }

  abstract body(limitBytes: number): Promise<Uint8Array>;
}
