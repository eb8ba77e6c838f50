/**
 * The node front end: one TLS listener speaking HTTP/2 and HTTP/1.1 (chosen
 * by ALPN), turning both into the pipeline's ApiRequest/ApiResponse. It is
 * the only front end that can see client certificates.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { IncomingHttpHeaders, ServerHttp2Session, ServerHttp2Stream } from 'node:http2';
import http2 from 'node:http2';
import type { RequestHandler } from '../server/http.ts';
import { ConnectionTracker } from './connection-tracker.ts';
import type { ConnectionTimeouts } from './connection-timeouts.ts';
import { DEFAULT_CONNECTION_TIMEOUTS, enforceConnectionTimeouts } from './connection-timeouts.ts';
import type { Frontend } from './frontend.ts';
import { serveH1Request } from './node-h1-exchange.ts';
import { serveH2Stream } from './node-h2-exchange.ts';
import type { ResetBudget } from './rapid-reset-guard.ts';
import { guardAgainstRapidReset, resetBudgetFor } from './rapid-reset-guard.ts';
import type { ErrorReporter } from './run-handler.ts';
import { reportToConsole } from './run-handler.ts';
import { WatchBudget } from './watch-budget.ts';
import { answerH1ClientError } from './h1-client-error.ts';
import { securePortTlsOptions } from './tls-preferences.ts';
import { listenOn } from './shared-port.ts';
import { startJsH2Frontend } from './js-h2-frontend.ts';

export interface NodeFrontendOptions {
  host: string;
  /** 0 picks any free port. */
  port: number;
  tls: {
    cert: string | Buffer;
    key: string | Buffer;
    /** When set, clients are asked for certificates issued by these CAs. */
    clientCa?: string | Buffer;
  };
  handler: RequestHandler;
  /** HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS; 0 or unset means the original's 250. */
  maxStreamsPerConnection?: number;
  /** Idle and header-read timeouts; the original's 90 s and 32 s by default. */
  timeouts?: ConnectionTimeouts;
  /** Streams an HTTP/2 client may abandon before its session is ended; resetBudgetFor(maxStreams) by default. */
  resetBudget?: ResetBudget;
  /** Where errors that escape the handler go; console by default. */
  onError?: ErrorReporter;
  /** Bounds what slow streamed responses hold, shared with the other front ends; unbounded by default. */
  watchBudget?: WatchBudget;
  /**
   * Share the port with servers in other threads (SO_REUSEPORT: node's own
   * `reusePort` where it has it, else the orch-reuseport addon; shared-port.ts).
   * `first`: this server opens the port, and refuses one someone else listens on.
   */
  sharePort?: 'first' | 'join';
  /**
   * Which HTTP/2 implementation serves h2 connections: node's (nghttp2, the default) or this
   * project's own (src/frontends/h2/), which costs a request about half the CPU. HTTP/1.1 is
   * node's http server either way.
   */
  http2Engine?: Http2Engine;
}

/** The HTTP/2 implementations the secure port can run on. */
export type Http2Engine = 'nghttp2' | 'js';

/** The original's HTTP/2 stream limit when --http2-max-streams-per-connection is 0 (secure_serving.go). */
export const DEFAULT_MAX_STREAMS = 250;

/** Request head size the original accepts (secure_serving.go: MaxHeaderBytes 1 << 20). */
export const MAX_HEADER_BYTES = 1 << 20;
/** What Go's HTTP/2 server adds to it for SETTINGS_MAX_HEADER_LIST_SIZE: 32 bytes for each of ten typical fields. */
const H2_HEADER_OVERHEAD = 320;
/** The original's HTTP/2 MaxReadFrameSize: 256 KiB, "big enough for most API POST requests in a single frame". */
const MAX_FRAME_BYTES = 256 * 1024;

export async function startNodeFrontend(opts: NodeFrontendOptions): Promise<Frontend> {
  const { handler } = opts;
  const report = opts.onError ?? reportToConsole;
  const maxStreams = opts.maxStreamsPerConnection || DEFAULT_MAX_STREAMS;
  const timeouts = opts.timeouts ?? DEFAULT_CONNECTION_TIMEOUTS;
  const resetBudget = opts.resetBudget ?? resetBudgetFor(maxStreams);
  const budget = opts.watchBudget ?? new WatchBudget({ maxBytes: Infinity });
  if (opts.http2Engine === 'js') {
    return startJsH2Frontend({
      host: opts.host,
      port: opts.port,
      tls: opts.tls,
      handler,
      report,
      budget,
      maxStreams,
      maxHeaderBytes: MAX_HEADER_BYTES,
      maxHeaderListSize: MAX_HEADER_BYTES + H2_HEADER_OVERHEAD,
      maxFrameBytes: MAX_FRAME_BYTES,
      timeouts,
      resetBudget,
      ...(opts.sharePort !== undefined ? { sharePort: opts.sharePort } : {}),
    });
  }
  const server = http2.createSecureServer({
    ...securePortTlsOptions(opts.tls),
    allowHTTP1: true,
    // node's http.Server turns Nagle off by default; the TLS server under
    // http2 does not, which cost HTTP/1.1 a quarter of its throughput here.
    noDelay: true,
    settings: {
      maxConcurrentStreams: maxStreams,
      maxHeaderListSize: MAX_HEADER_BYTES + H2_HEADER_OVERHEAD,
      // The original's MaxReadFrameSize. It also decides how large a head
      // can be: nghttp2 refuses one spread over more than 8 CONTINUATION
      // frames. Go clients cut heads to the announced size (up to 2.25 MiB
      // here); nghttp2 clients, node's among them, always use 16 KiB frames
      // (about 144 KiB).
      maxFrameSize: MAX_FRAME_BYTES,
    },
    handshakeTimeout: timeouts.headerReadMs,
    // Streams nghttp2 refuses (past a GOAWAY's last stream) cost it next to
    // nothing; with node's default of 100 a client still flushing its burst
    // got the connection destroyed before the rapid-reset guard's GOAWAY grace
    // ran out, so it was reset without ever reading why.
    maxSessionRejectedStreams: 10_000,
  });
  const tracker = new ConnectionTracker(server);
  server.on('session', (session: ServerHttp2Session) => guardAgainstRapidReset(session, resetBudget));

  const onStream = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, _flags: number, rawHeaders: readonly string[]): void => {
    serveH2Stream(stream, headers, rawHeaders, handler, report, budget);
  };
  server.on('stream', onStream);
  // HTTP/1.1 requests only arrive as 'request' events. With allowHTTP1 their
  // objects are plain http.IncomingMessage/ServerResponse, whatever the
  // listener's declared types say.
  server.on('request', (req: unknown, res: unknown) => {
    const msg = req as IncomingMessage;
    if (msg.httpVersionMajor >= 2) return; // served by onStream
    serveH1Request(msg, res as ServerResponse, handler, report, budget);
  });
  enforceConnectionTimeouts(server, timeouts);
  // Refused HTTP/1.1 requests: node's answers, then a lingering close instead of a reset (h1-client-error.ts).
  (server as unknown as NodeJS.EventEmitter).on('clientError', answerH1ClientError);
  // HTTP/1.1 heads up to the original's size, not node's 16 KiB (the field allowHTTP1 reads).
  (server as unknown as { maxHeaderSize: number }).maxHeaderSize = MAX_HEADER_BYTES;
  // Adding a 'request' listener makes node attach its compatibility layer to
  // 'stream' as well, building an Http2ServerRequest/Response pair for every
  // HTTP/2 stream that onStream already serves: half the throughput, for
  // objects nobody reads. Keep only our own 'stream' listener.
  for (const listener of server.listeners('stream')) {
    if (listener !== onStream) server.removeListener('stream', listener as (...args: unknown[]) => void);
  }

  await listenOn(server, opts.host, opts.port, opts.sharePort);
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : opts.port;

  let closing: Promise<void> | undefined;
  let stopped: Promise<void> | undefined;
  const stopListening = (): Promise<void> => (stopped ??= new Promise<void>((resolve) => server.close(() => resolve())));
  return {
    port,
    close(graceMs = 0): Promise<void> {
      closing ??= (async () => {
        const listenerClosed = stopListening();
        await tracker.closeAll(graceMs);
        await listenerClosed;
      })();
      return closing;
    },
    stopListening(): void {
      void stopListening();
      tracker.goawayAll();
    },
  };
}

export type { Frontend } from './frontend.ts';
