/** Messages between the benchmark (server side) and its load-generator process. */

export interface ClientConfig {
  protocol: 'http/1.1' | 'h2';
  port: number;
  path: string;
  /** TLS connections to open. */
  connections: number;
  /** Requests in flight per connection (1 for HTTP/1.1: no pipelining). */
  streamsPerConnection: number;
  warmupMs: number;
  measureMs: number;
  /** PEM the client trusts for the server. */
  ca: string;
}

export interface ClientResult {
  requests: number;
  errors: number;
  seconds: number;
  p50Micros: number;
  p99Micros: number;
}

export type ClientMessage =
  | { type: 'measure-start' }
  | { type: 'measure-end'; result: ClientResult }
  | { type: 'failed'; error: string };
