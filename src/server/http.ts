/**
 * The one request and response shape every front end (node:http2, uWS)
 * produces, and every filter and handler consumes. Front ends copy what they
 * need out of their native request before any await (uWS requests die with
 * their callback), and stream responses with backpressure.
 */

/**
 * The request's audit ID, sent back on every response that went through the
 * handler chain, as the original does (and taken from a client that sends a
 * sane one): a value new in each response.
 */
export const AUDIT_ID_HEADER = 'audit-id';

export interface ApiRequest {
  /** Upper-case HTTP method. */
  readonly method: string;
  /** The path as sent, percent-decoding left to the router (no query). */
  readonly path: string;
  /** The raw query string without `?`. */
  readonly rawQuery: string;
  readonly query: URLSearchParams;
  /** A header's value, several values joined with ', ' (names are case-insensitive). */
  header(name: string): string | undefined;
  /** Every value of a repeatable header (e.g. Impersonate-Group), in order. */
  headerValues(name: string): string[];
  /** All header names, lower-case. */
  headerNames(): string[];
  readonly remoteAddress: string;
  /** 'h2' or 'http/1.1'. */
  readonly protocol: 'h2' | 'http/1.1';
  /** Which front end took the request. */
  readonly frontend: 'node' | 'uws';
  /**
   * The client certificate chain (DER, leaf first) when the TLS handshake
   * carried one; undefined otherwise. Only the node front end can see it.
   * Verification against the client CA is the authenticator's job.
   */
  readonly peerCertificates: readonly Uint8Array[] | undefined;
  /** Reads the whole body, failing with a 413 Status past `limitBytes`. */
  body(limitBytes: number): Promise<Uint8Array>;
  /** Aborted when the client goes away. */
  readonly signal: AbortSignal;
}

export interface ApiResponse {
  /** True once the client has gone away or the response has ended. */
  readonly closed: boolean;
  /** Sets status and headers; must come before the first write or end. */
  writeHead(status: number, headers: Readonly<Record<string, string | string[]>>): void;
  /**
   * Writes a chunk of a streamed body. Returns false when the client is not
   * keeping up: wait for `onDrain` before writing more.
   */
  write(chunk: Uint8Array): boolean;
  /**
   * Sends the status and headers now, before any body (a watch that has
   * nothing to say yet must still show the client it is established).
   * Returns false when the stack cannot send a head alone (uWS writes the
   * end of the head with the first body chunk).
   */
  flushHead(): boolean;
  /** Called once when the buffered output has drained after `write` returned false. */
  onDrain(cb: () => void): void;
  /**
   * Called once when the client goes away or the response is over: every
   * byte handed to the transport, nothing of the body's chunks held by
   * reference any more (an end() whose bytes still wait for a slow client
   * is not over). Registered after that, called on a later microtask.
   */
  onClose(cb: () => void): void;
  /**
   * Drops the response at once, discarding buffered output (the connection
   * or HTTP/2 stream is reset): for a client too slow to keep, whose
   * buffered bytes must not wait for it.
   */
  destroy(): void;
  /** Ends the response, optionally with a last chunk. */
  end(chunk?: Uint8Array | string): void;
  /**
   * Ends the response with a body made of `parts`, sent in order, with
   * Content-Length = their total byte length. The parts are not copied into one
   * buffer, and the front end holds no more than about a socket's worth of them
   * beyond what the caller already holds: a large body is streamed as the client
   * reads it. The caller must not modify the parts afterwards. Empty parts are allowed.
   */
  endParts(parts: readonly Uint8Array[]): void;
  /** Bytes buffered and not yet sent (for bounded watch buffers). */
  readonly bufferedBytes: number;
}

/**
 * What the pipeline exposes to front ends: undefined when the request was
 * answered without waiting, else the promise of the handler's end.
 */
export type RequestHandler = (req: ApiRequest, res: ApiResponse) => Promise<void> | undefined;
