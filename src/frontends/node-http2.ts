/**
 * The node front end: one TLS listener speaking HTTP/2 and HTTP/1.1 (chosen
 * by ALPN), turning both into the pipeline's ApiRequest/ApiResponse. It is
 * the only front end that can see client certificates.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { IncomingHttpHeaders, ServerHttp2Stream } from 'node:http2';
import http2 from 'node:http2';
import type { RequestHandler } from '../server/http.ts';
import { ConnectionTracker } from './connection-tracker.ts';
import type { Frontend } from './frontend.ts';
import { serveH1Request } from './node-h1-exchange.ts';
import { serveH2Stream } from './node-h2-exchange.ts';
import type { ErrorReporter } from './run-handler.ts';
import { reportToConsole } from './run-handler.ts';
import { WatchBudget } from './watch-budget.ts';

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
  /** HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS; 0 or unset keeps node's default. */
  maxStreamsPerConnection?: number;
  /** Where errors that escape the handler go; console by default. */
  onError?: ErrorReporter;
  /** Bounds what slow streamed responses hold, shared with the other front ends; unbounded by default. */
  watchBudget?: WatchBudget;
}

export async function startNodeFrontend(opts: NodeFrontendOptions): Promise<Frontend> {
  const { handler } = opts;
  const report = opts.onError ?? reportToConsole;
  const maxStreams = opts.maxStreamsPerConnection ?? 0;
  const budget = opts.watchBudget ?? new WatchBudget({ maxBytes: Infinity });
  const server = http2.createSecureServer({
    cert: opts.tls.cert,
    key: opts.tls.key,
    ...(opts.tls.clientCa !== undefined ? { ca: opts.tls.clientCa } : {}),
    // Ask for a client certificate but let the handshake through without
    // one, or with one we would not trust: bearer-token and anonymous
    // clients use this port too, and the authenticator decides.
    requestCert: true,
    rejectUnauthorized: false,
    allowHTTP1: true,
    // node's http.Server turns Nagle off by default; the TLS server under
    // http2 does not, which cost HTTP/1.1 a quarter of its throughput here.
    noDelay: true,
    ...(maxStreams > 0 ? { settings: { maxConcurrentStreams: maxStreams } } : {}),
  });
  const tracker = new ConnectionTracker(server);

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
  // Adding a 'request' listener makes node attach its compatibility layer to
  // 'stream' as well, building an Http2ServerRequest/Response pair for every
  // HTTP/2 stream that onStream already serves: half the throughput, for
  // objects nobody reads. Keep only our own 'stream' listener.
  for (const listener of server.listeners('stream')) {
    if (listener !== onStream) server.removeListener('stream', listener as (...args: unknown[]) => void);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : opts.port;

  let closing: Promise<void> | undefined;
  return {
    port,
    close(graceMs = 0): Promise<void> {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        await tracker.closeAll(graceMs);
        await stopped;
      })();
      return closing;
    },
  };
}

export type { Frontend } from './frontend.ts';
