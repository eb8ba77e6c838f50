/**
 * The uWS front end: HTTP/1.1 over TLS on uWebSockets.js, for bearer-token
 * and anonymous clients (it speaks no HTTP/2 and cannot show the client
 * certificate). Requests become the same ApiRequest/ApiResponse the node
 * front end produces.
 */
import type { TemplatedApp, us_listen_socket } from '@trufflesuite/uws-js-unofficial';
import type { RequestHandler } from '../server/http.ts';
import type { ExchangeLifecycle } from './lifecycle.ts';
import type { Frontend } from './frontend.ts';
import type { ErrorReporter } from './run-handler.ts';
import { reportToConsole } from './run-handler.ts';
import type { UwsModule } from './uws-loader.ts';
import { loadUws } from './uws-loader.ts';
import { serveUws } from './uws-exchange.ts';
import { WatchBudget } from './watch-budget.ts';

export interface UwsFrontendOptions {
  host: string;
  /** 0 picks any free port. */
  port: number;
  /** uWS reads the certificate and key from files. */
  tls: { certFile: string; keyFile: string };
  handler: RequestHandler;
  /** Where errors that escape the handler go; console by default. */
  onError?: ErrorReporter;
  /** The loaded module; loadUws() by default. */
  uws?: UwsModule;
  /** Bounds what slow streamed responses hold, shared with the other front ends; unbounded by default. */
  watchBudget?: WatchBudget;
}

/**
 * Starts the uWS listener. Check `loadUws() !== null` first: without the
 * native binary this rejects (and the loader has already said why).
 */
export async function startUwsFrontend(opts: UwsFrontendOptions): Promise<Frontend> {
  const uws = opts.uws ?? loadUws();
  if (uws === null) throw new Error('uWS unavailable: the native binary did not load');
  const { handler } = opts;
  const report = opts.onError ?? reportToConsole;
  const budget = opts.watchBudget ?? new WatchBudget({ maxBytes: Infinity });

  let app: TemplatedApp;
  try {
    app = uws.SSLApp({ cert_file_name: opts.tls.certFile, key_file_name: opts.tls.keyFile });
  } catch (err) {
    // uWS says only "App construction failed" for unreadable or mismatched files.
    throw new Error(`uWS could not load TLS certificate ${opts.tls.certFile} / key ${opts.tls.keyFile}`, { cause: err });
  }

  const open = new Set<ExchangeLifecycle>();
  let allDone: (() => void) | undefined;
  const track = (lifecycle: ExchangeLifecycle): void => {
    open.add(lifecycle);
    lifecycle.onClose(() => {
      open.delete(lifecycle);
      if (open.size === 0) allDone?.();
    });
  };
  app.any('/*', (res, req) => serveUws(res, req, handler, report, track, budget));

  const listenSocket = await new Promise<us_listen_socket>((resolve, reject) => {
    app.listen(opts.host, opts.port, (socket) => {
      if (socket) resolve(socket);
      else reject(new Error(`uWS could not listen on ${opts.host}:${opts.port}`));
    });
  });
  const port = uws.us_socket_local_port(listenSocket);

  let closing: Promise<void> | undefined;
  let listening = true;
  const stopListening = (): void => {
    if (!listening) return;
    listening = false;
    uws.us_listen_socket_close(listenSocket);
  };
  return {
    port,
    stopListening,
    close(graceMs = 0): Promise<void> {
      closing ??= (async () => {
        stopListening();
        if (graceMs > 0 && open.size > 0) {
          let timer: NodeJS.Timeout | undefined;
          await new Promise<void>((resolve) => {
            allDone = resolve;
            timer = setTimeout(resolve, graceMs);
          });
          clearTimeout(timer);
        }
        // Closes every socket, idle keep-alive ones included (uWS would keep
        // them for its 10 s idle timeout); requests still open are aborted.
        (app as { close?: () => void }).close?.();
      })();
      return closing;
    },
  };
}

export type { Frontend } from './frontend.ts';
