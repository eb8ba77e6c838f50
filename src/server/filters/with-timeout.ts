/**
 * Request deadlines, after the original's WithRequestDeadline and
 * WithTimeoutForNonLongRunningRequests.
 *
 * Ordinary requests get `--request-timeout` (or a shorter `?timeout=`) from
 * the time the request arrived. At the deadline the filter answers 504
 * Timeout if nothing was written yet, takes the response away from the
 * handler (its later writes are dropped), and aborts ctx.abort so the
 * handler's storage calls can stop. The handler keeps running in the
 * background until it notices; its eventual failure is logged, not thrown.
 *
 * Long-running requests get no deadline. Watches still end: after
 * `timeoutSeconds`, or a random time between one and two times
 * `--min-request-timeout` so clients do not all reconnect at once; then the
 * stream is ended cleanly, as the original's watch server does.
 */
import type { Filter, RequestContext } from '../context.ts';
import type { Logger } from '../logging.ts';
import { errors } from '../../api/status.ts';
import { DurationError, parseGoDuration } from './go-duration.ts';
import { trackedResponse } from './tracked-response.ts';
import { writeStatus } from './write-status.ts';
import { MAX_TIMER_MS, setLongTimeout, type LongTimer } from '../long-timer.ts';

export interface TimeoutOptions {
  /** `--request-timeout` in ms (default 60 s). */
  readonly requestTimeoutMs: number;
  /** `--min-request-timeout` in seconds (default 1800). */
  readonly minRequestTimeoutSeconds: number;
  readonly logger: Logger;
  /** For tests: the random source of the watch timeout. */
  readonly random?: () => number;
}

const INVALID_TIMEOUT = 'invalid timeout specified in the request URL';

/**
 * The timeout of a watch in ms, as the original's ListResource decides:
 * `timeoutSeconds` when given and non-zero (negative: end at once), else
 * min-request-timeout times a random factor in [1, 2); undefined when
 * neither applies (no limit). It may exceed what setTimeout can hold: arm it
 * with setLongTimeout.
 */
export function watchTimeoutMs(query: URLSearchParams, minRequestTimeoutSeconds: number, random: () => number = Math.random): number | undefined {
  // A malformed value is the watch handler's 400 to give; here it counts as unset.
  const raw = query.get('timeoutSeconds');
  const seconds = raw !== null && /^[+-]?\d+$/.test(raw) ? Number(raw) : 0;
  if (seconds !== 0) return Math.max(0, seconds * 1000);
  if (minRequestTimeoutSeconds > 0) return minRequestTimeoutSeconds * (random() + 1) * 1000;
  return undefined;
}

/** The deadline of an ordinary request in ms: `?timeout=` when shorter than the server's, else the server's. */
function requestTimeoutMs(query: URLSearchParams, serverTimeoutMs: number): number {
  const value = query.get('timeout');
  if (value === null || value === '') return serverTimeoutMs;
  let userMs: number;
  try {
    userMs = parseGoDuration(value);
  } catch (err) {
    if (err instanceof DurationError) throw errors.badRequest(`${INVALID_TIMEOUT} - ${err.message}`);
    throw err;
  }
  // 0 means "no timeout of my own"; anything above the server's is capped.
  return userMs > 0 && userMs < serverTimeoutMs ? userMs : serverTimeoutMs;
}

function timeoutReason(): DOMException {
  return new DOMException('request did not complete within the allotted timeout', 'TimeoutError');
}

/** Ends a response the handler no longer owns: a Status if nothing went out yet, else a clean end. */
/**
 * Takes the response from the handler at its deadline: a 504 if nothing went out yet. Once a head went out, a
 * watch's stream ends (its expiry is a normal end); any other answer was cut short, so its connection or stream
 * is reset, as the original aborts the handler: a chunked body ended cleanly would pass for a whole one.
 */
function finishFor(ctx: RequestContext, begun: 'end' | 'reset'): void {
  const res = trackedResponse(ctx);
  if (res.finished || res.sealed) return;
  const headWritten = res.headWritten;
  const out = res.takeOver();
  if (!headWritten) writeStatus(out, errors.requestTimeout());
  else if (begun === 'end') out.end();
  else out.destroy();
}

function cancel(timer: NodeJS.Timeout | LongTimer): void {
  if ('cancel' in timer) timer.cancel();
  else clearTimeout(timer);
}

function armWatchExpiry(ctx: RequestContext, ms: number): void {
  const res = trackedResponse(ctx);
  // The delay comes from the client (timeoutSeconds) or --min-request-timeout:
  // either may exceed what setTimeout holds, which would end the watch at once.
  const timer = setLongTimeout(() => {
    ctx.abort.abort(timeoutReason());
    finishFor(ctx, 'end');
  }, ms);
  res.onFinished(() => timer.cancel());
}

export function withTimeout(options: TimeoutOptions): Filter {
  const { requestTimeoutMs: serverTimeoutMs, minRequestTimeoutSeconds, logger } = options;
  const random = options.random ?? Math.random;
  /** At the deadline: the response is taken from the handler, which runs on in the background until it notices. */
  const expire = (ctx: RequestContext, work: Promise<void>): void => {
    finishFor(ctx, 'reset');
    ctx.abort.abort(timeoutReason());
    const timedOutAt = performance.now();
    // Whatever the handler does now goes nowhere; an error from it is only
    // worth a log line (the original's post-timeout log).
    work.then(
      () => logger.debug({ method: ctx.req.method, path: ctx.req.path, afterMs: performance.now() - timedOutAt }, 'post-timeout activity finished'),
      (err: unknown) => logger.warn({ err, method: ctx.req.method, path: ctx.req.path }, 'post-timeout activity failed'),
    );
  };

  return (ctx, next) => {
    if (ctx.longRunning) {
      if (ctx.info?.verb === 'watch') {
        const ms = watchTimeoutMs(ctx.req.query, minRequestTimeoutSeconds, random);
        if (ms !== undefined) armWatchExpiry(ctx, ms);
      }
      return next(ctx);
    }

    const timeoutMs = requestTimeoutMs(ctx.req.query, serverTimeoutMs);
    const elapsed = performance.now() - ctx.startedAt;
    const remaining = Math.max(0, timeoutMs - elapsed);
    ctx.deadline = Date.now() + remaining;

    const work = next(ctx);
    // Finished without waiting: nothing to time.
    if (work === undefined) return undefined;
    // One promise settled by whichever comes first, the work or the deadline
    // (Promise.race over two more promises cost a microsecond a request). The
    // chain outside goes on at the deadline; the work may run on.
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const onDeadline = (): void => {
        if (settled) return;
        settled = true;
        expire(ctx, work);
        resolve();
      };
      // --request-timeout may exceed setTimeout's 2^31-1 ms: only then the long timer (and its closures).
      const timer = remaining <= MAX_TIMER_MS ? setTimeout(onDeadline, remaining) : setLongTimeout(onDeadline, remaining);
      work.then(
        () => {
          if (settled) return;
          settled = true;
          cancel(timer);
          resolve();
        },
        (err: unknown) => {
          if (settled) return;
          settled = true;
          cancel(timer);
          reject(err);
        },
      );
    });
  };
}
