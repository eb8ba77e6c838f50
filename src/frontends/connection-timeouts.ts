/**
 * How long the node front end keeps a connection that does nothing, as the
 * original's secure server does (k8s.io/apiserver pkg/server/secure_serving.go:
 * `IdleTimeout: 90s`, `ReadHeaderTimeout: 32s`, and the same idle timeout for
 * HTTP/2). Without these, idle and never-speaking connections stay open for
 * good, and enough of them use up the process's file descriptors.
 *
 * - TLS handshake: must finish within the header read timeout (Go derives
 *   its handshake deadline from ReadHeaderTimeout the same way).
 * - HTTP/1.1: the first request's head must arrive within the header read
 *   timeout of the connection opening; later heads are node's
 *   `headersTimeout`; between requests the connection is idle-closed after
 *   the idle timeout (node's `keepAliveTimeout`).
 * - HTTP/2: the client's SETTINGS must arrive within the header read timeout;
 *   a session with no open stream gets a GOAWAY after the idle timeout.
 *   Pings do not count as activity, as in Go: only streams keep a session.
 */
import type { Http2SecureServer, ServerHttp2Session, ServerHttp2Stream } from 'node:http2';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { EventEmitter } from 'node:events';

export interface ConnectionTimeouts {
  /** A connection (HTTP/1.1 between requests, HTTP/2 with no stream open) is closed after this long. */
  idleMs: number;
  /** The TLS handshake, the first request head (HTTP/1.1) or the client's SETTINGS (HTTP/2) must come within this. */
  headerReadMs: number;
}

/** The original's figures. */
export const DEFAULT_CONNECTION_TIMEOUTS: ConnectionTimeouts = { idleMs: 90_000, headerReadMs: 32_000 };

const NODE_REQUEST_TIMEOUT_MS = 300_000;
const REQUEST_TIMEOUT_RESPONSE = 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n';

/** How often node looks for HTTP/1.1 heads that take too long: its 30 s default, or finer for short timeouts. */
function checkingIntervalMs(headerReadMs: number): number {
  return Math.max(50, Math.min(30_000, Math.floor(headerReadMs / 4)));
}

/**
 * Sets the HTTP/1.1 server timeouts on `server` and watches its connections
 * and sessions. Call before `listen`: node starts its head-timeout checker
 * when the server starts listening.
 */
export function enforceConnectionTimeouts(server: Http2SecureServer, timeouts: ConnectionTimeouts): void {
  // allowHTTP1 gives the server node's HTTP/1.1 connection handling and its fields.
  enforceH1Timeouts(server, server, timeouts);
  server.on('session', (session: ServerHttp2Session) => watchSession(session, timeouts));
}

/**
 * The HTTP/1.1 part: `h1Server` is node's HTTP/1.1 server (its timeout fields, its 'request'
 * events), `tlsServer` the listener whose 'secureConnection' events bring the connections (the
 * same server under node:http2 with allowHTTP1; two under the js engine).
 */
export function enforceH1Timeouts(h1Server: EventEmitter, tlsServer: EventEmitter, timeouts: ConnectionTimeouts): void {
  const { idleMs, headerReadMs } = timeouts;
  const h1 = h1Server as unknown as { headersTimeout: number; requestTimeout: number; keepAliveTimeout: number; connectionsCheckingInterval: number };
  h1.headersTimeout = headerReadMs;
  // node's own bound on receiving a whole request (its 300 s default), kept:
  // a body that stops coming (a chunk announced and never sent) gets a 408
  // and a close. The original has none; --request-timeout answers first for
  // all but long-running requests. node requires it >= headersTimeout.
  h1.requestTimeout = Math.max(NODE_REQUEST_TIMEOUT_MS, headerReadMs);
  h1.keepAliveTimeout = idleMs;
  h1.connectionsCheckingInterval = checkingIntervalMs(headerReadMs);

  const h1Waiting = new WeakMap<TLSSocket, NodeJS.Timeout>();
  tlsServer.on('secureConnection', (socket: TLSSocket) => {
    if (socket.alpnProtocol === 'h2') return; // the session handles its own
    // node's headersTimeout covers a head once it has begun; a connection
    // that sends nothing at all would stay open for good.
    const timer = setTimeout(() => {
      // As node answers a head that took too long.
      if (socket.writable) socket.end(REQUEST_TIMEOUT_RESPONSE);
      socket.destroySoon();
    }, headerReadMs);
    timer.unref();
    h1Waiting.set(socket, timer);
    socket.once('close', () => clearTimeout(timer));
  });
  h1Server.on('request', (req: unknown) => {
    const socket = (req as IncomingMessage).socket as TLSSocket | undefined;
    if (socket === undefined) return;
    const timer = h1Waiting.get(socket);
    if (timer !== undefined) {
      clearTimeout(timer);
      h1Waiting.delete(socket);
    }
  });
}

/** One HTTP/2 session's timer: first the wait for the client's SETTINGS, then idleness. */
function watchSession(session: ServerHttp2Session, { idleMs, headerReadMs }: ConnectionTimeouts): void {
  let open = 0;
  let timer: NodeJS.Timeout | undefined;
  const arm = (ms: number, onFire: () => void): void => {
    clearTimeout(timer);
    timer = setTimeout(onFire, ms);
    timer.unref();
  };
  const idleClose = (): void => {
    // GOAWAY(NO_ERROR); node closes the socket as no stream is open.
    if (open === 0 && !session.closed && !session.destroyed) session.close();
  };
  arm(headerReadMs, () => session.destroy());
  session.once('remoteSettings', () => {
    if (open === 0) arm(idleMs, idleClose);
    else clearTimeout(timer);
  });
  session.on('stream', (stream: ServerHttp2Stream) => {
    open++;
    clearTimeout(timer);
    stream.once('close', () => {
      open--;
      if (open === 0) arm(idleMs, idleClose);
    });
  });
  session.once('close', () => clearTimeout(timer));
}
