/**
 * Requests during a graceful shutdown (src/server/lifecycle.ts), after the
 * original's WithRetryAfter and WithWaitGroup filters:
 *
 * - ordinary requests are counted in this thread's RequestDrain while they
 *   run, so the shutdown can wait for them; long-running ones are not (they
 *   are ended by the shutdown instead);
 * - once the shutdown delay is over, a new request gets, with
 *   `--shutdown-send-retry-after`, 429 `Retry-After: 5` and
 *   `Connection: close` (HTTP/2: a GOAWAY after the answer), the original's
 *   text; without it (the listeners are closed, this request came on a
 *   connection still open) 503 ServiceUnavailable with `Retry-After: 1`,
 *   and the connection closes after it.
 *
 * Health probes and metrics scrapes are never turned away, nor the server's
 * own loopback client (its user agent), as in the original.
 */
import { stepFinally, type Filter, type RequestContext } from '../context.ts';
import { StatusError } from '../../api/status.ts';
import { names } from '../../naming/index.ts';
import type { RequestDrain, ShutdownSignals } from '../lifecycle.ts';
import { trackedResponse } from './tracked-response.ts';
import { writeStatus } from './write-status.ts';

/** The original's answer after the shutdown delay (http.Error: plain text). */
export const SHUTDOWN_RETRY_AFTER_MESSAGE = 'The apiserver is shutting down, please try again later.';
/** Seconds the 429 asks clients to wait: by then they reach another server. */
export const SHUTDOWN_RETRY_AFTER_SECONDS = 5;

const EXEMPT_PATH_PREFIXES = ['/readyz', '/livez', '/healthz', '/metrics'];
const LOOPBACK_USER_AGENT_PREFIX = `${names.apiServerFieldManager}/`;

/** Requests a shutdown never turns away (the original's isRequestExemptFromRetryAfter). */
export function isExemptFromRetryAfter(ctx: RequestContext): boolean {
  const path = ctx.req.path;
  for (const prefix of EXEMPT_PATH_PREFIXES) if (path.startsWith(prefix)) return true;
  return ctx.req.header('user-agent')?.startsWith(LOOPBACK_USER_AGENT_PREFIX) === true;
}

export interface ShutdownFilterOptions {
  readonly signals: ShutdownSignals;
  readonly drain: RequestDrain;
  /** `--shutdown-send-retry-after`. */
  readonly sendRetryAfter: boolean;
}

export function withShutdown(opts: ShutdownFilterOptions): Filter {
  const { signals, drain, sendRetryAfter } = opts;
  const unavailable = new StatusError(503, 'ServiceUnavailable', 'apiserver is shutting down', {}, { 'Retry-After': '1' });
  const retryAfterBody = `${SHUTDOWN_RETRY_AFTER_MESSAGE}\n`;

  const done = (): void => drain.done();
  return (ctx, next) => {
    if (signals.notAcceptingNewRequests && !isExemptFromRetryAfter(ctx)) {
      const tracked = trackedResponse(ctx);
      tracked.closeConnection = true;
      if (sendRetryAfter) {
        if (tracked.closed) return undefined;
        tracked.writeHead(429, {
          'content-type': 'text/plain; charset=utf-8',
          'x-content-type-options': 'nosniff',
          'retry-after': String(SHUTDOWN_RETRY_AFTER_SECONDS),
        });
        tracked.end(retryAfterBody);
        return undefined;
      }
      // Ordinary requests arriving once the drain began; long-running ones after the delay too (they would be ended at once).
      if (ctx.longRunning || !drain.add()) {
        writeStatus(tracked, unavailable);
        return undefined;
      }
    } else if (ctx.longRunning || !drain.add()) {
      // Long-running requests are not waited for; an exempt request after the drain began is served uncounted.
      return next(ctx);
    }
    return stepFinally(ctx, next, done);
  };
}
