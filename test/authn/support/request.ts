/**
 * A fake ApiRequest carrying only what authenticators read: headers and the
 * peer certificate chain. Everything else fails loudly if touched.
 */
import type { ApiRequest } from '../../../src/server/http.ts';

export interface FakeRequestOptions {
  readonly headers?: Readonly<Record<string, string>>;
  readonly peerCertificates?: readonly Uint8Array[];
}

export function fakeRequest(options: FakeRequestOptions = {}): ApiRequest {
  const headers = new Map(Object.entries(options.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  const unused = (what: string) => (): never => {
    throw new Error(`authenticators must not read ${what}`);
  };
  return {
    method: 'GET',
    path: '/api/v1/pods',
    rawQuery: '',
    query: new URLSearchParams(),
    header: (name: string) => headers.get(name.toLowerCase()),
    headerValues: (name: string) => {
      const v = headers.get(name.toLowerCase());
      return v === undefined ? [] : [v];
    },
    headerNames: () => [...headers.keys()],
    remoteAddress: '127.0.0.1',
    protocol: 'h2',
    frontend: 'node',
    peerCertificates: options.peerCertificates,
    body: unused('the body'),
    signal: new AbortController().signal,
  };
}
