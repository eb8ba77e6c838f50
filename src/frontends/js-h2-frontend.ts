/**
 * The secure port on this project's own HTTP/2 engine (`http2Engine: 'js'`):
 * one TLS listener; a connection that chose h2 by ALPN is served by an
 * H2Connection (h2/connection.ts), one that chose HTTP/1.1 (or nothing) is
 * handed to node's HTTP/1.1 server, exactly as under node:http2 with
 * allowHTTP1. Same certificates, cipher order, limits and timeouts as the
 * node:http2 listener (node-http2.ts).
 */
import http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import tls from 'node:tls';
import type { TLSSocket } from 'node:tls';
import type { RequestHandler } from '../server/http.ts';
import { enforceH1Timeouts, type ConnectionTimeouts } from './connection-timeouts.ts';
import type { Frontend } from './frontend.ts';
import { H2Connection } from './h2/connection.ts';
import { answerH1ClientError } from './h1-client-error.ts';
import { serveJsH2Stream } from './js-h2-exchange.ts';
import { serveH1Request } from './node-h1-exchange.ts';
import type { ResetBudget } from './rapid-reset-guard.ts';
import type { ErrorReporter } from './run-handler.ts';
import { listenOn } from './shared-port.ts';
import { securePortTlsOptions } from './tls-preferences.ts';
import type { WatchBudget } from './watch-budget.ts';

export interface JsH2FrontendOptions {
  host: string;
  port: number;
  tls: { cert: string | Buffer; key: string | Buffer; clientCa?: string | Buffer };
  handler: RequestHandler;
  report: ErrorReporter;
  budget: WatchBudget;
  maxStreams: number;
  maxHeaderBytes: number;
  maxHeaderListSize: number;
  maxFrameBytes: number;
  timeouts: ConnectionTimeouts;
  resetBudget: ResetBudget;
  sharePort?: 'first' | 'join';
}

/** What a stream may send before we read it: the original's MaxUploadBufferPerStream (256 KiB). */
const STREAM_WINDOW = 256 * 1024;
/** The connection's: the original's MaxUploadBufferPerConnection (32 streams' worth). */
const CONNECTION_WINDOW = 32 * STREAM_WINDOW;

export async function startJsH2Frontend(opts: JsH2FrontendOptions): Promise<Frontend> {
  const { handler, report, budget, timeouts } = opts;
  const server = tls.createServer({
    ...securePortTlsOptions(opts.tls),
    ALPNProtocols: ['h2', 'http/1.1'],
    handshakeTimeout: timeouts.headerReadMs,
    noDelay: true,
  });
  // node's HTTP/1.1 server, never listening itself: it gets the connections that did not choose h2.
  const h1 = http.createServer({ maxHeaderSize: opts.maxHeaderBytes, noDelay: true });
  h1.on('request', (req: IncomingMessage, res: ServerResponse) => serveH1Request(req, res, handler, report, budget));
  h1.on('clientError', answerH1ClientError);
  enforceH1Timeouts(h1, server, timeouts);

  const sockets = new Set<Socket>();
  const connections = new Set<H2Connection>();
  let allClosed: (() => void) | undefined;
  server.on('secureConnection', (socket: TLSSocket) => {
    sockets.add(socket);
    socket.once('close', () => {
      sockets.delete(socket);
      if (sockets.size === 0) allClosed?.();
    });
    if (socket.alpnProtocol !== 'h2') {
      h1.emit('connection', socket);
      return;
    }
    const connection = new H2Connection(socket, {
      maxConcurrentStreams: opts.maxStreams,
      maxHeaderListSize: opts.maxHeaderListSize,
      maxFrameSize: opts.maxFrameBytes,
      streamWindow: STREAM_WINDOW,
      connectionWindow: CONNECTION_WINDOW,
      resetBudget: opts.resetBudget,
      idleMs: timeouts.idleMs,
      settingsMs: timeouts.headerReadMs,
      onStream: (stream, conn) => serveJsH2Stream(stream, conn, handler, report, budget),
    });
    connections.add(connection);
    connection.onClose(() => connections.delete(connection));
  });
  // A failed handshake or a reset before it: that connection only.
  server.on('tlsClientError', (_err: Error, socket: TLSSocket) => socket.destroy());

  await listenOn(server, opts.host, opts.port, opts.sharePort);
  // node starts its HTTP/1.1 head-timeout checks when its server starts listening; this one never
  // listens itself, so it is told (the checks stop at its close()).
  h1.emit('listening');
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : opts.port;

  const goawayAll = (): void => {
    for (const connection of connections) connection.close();
  };
  let closing: Promise<void> | undefined;
  let stopped: Promise<void> | undefined;
  const stopListening = (): Promise<void> =>
    (stopped ??= new Promise<void>((resolve) => {
      h1.close();
      server.close(() => resolve());
    }));
  return {
    port,
    close(graceMs = 0): Promise<void> {
      closing ??= (async () => {
        const listenerClosed = stopListening();
        goawayAll();
        if (graceMs > 0 && sockets.size > 0) {
          let timer: NodeJS.Timeout | undefined;
          await new Promise<void>((resolve) => {
            allClosed = resolve;
            timer = setTimeout(resolve, graceMs);
          });
          clearTimeout(timer);
          allClosed = undefined;
        }
        for (const socket of sockets) socket.destroy();
        await listenerClosed;
      })();
      return closing;
    },
    stopListening(): void {
      void stopListening();
      goawayAll();
    },
  };
}
