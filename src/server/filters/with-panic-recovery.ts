/**
 * Panic recovery: no exception leaves the chain. An error becomes a Status
 * response (a StatusError as itself, anything else as a generic 500), is
 * logged once when it was not a StatusError, and the process carries on with
 * the next request, as the original's WithPanicRecovery does.
 *
 * Two places use it: outermost, for errors thrown by filters (a broken
 * authenticator, say), and around the API handler (handleErrors), so a
 * handler's StatusError is written inside the logging and metrics filters
 * and they see its code.
 */
import type { Filter, RequestContext } from '../context.ts';
import type { Logger } from '../logging.ts';
import { StatusError } from '../../endpoints/status.ts';
import { trackedResponse } from './tracked-response.ts';
import { writeStatus } from './write-status.ts';

/** Answers `err` on the request's response, or ends it if the answer had already begun. */
export function respondWithError(ctx: RequestContext, err: unknown, logger: Logger): void {
  const res = trackedResponse(ctx);
  // Query left out of these logs: it can carry tokens (see with-logging.ts).
  if (ctx.signal.aborted && (res.sealed || res.finished)) {
    // The request timed out or the client left, and the handler failed on its
    // way out (typically an AbortError): expected, and nobody to answer.
    logger.debug({ err, method: ctx.req.method, path: ctx.req.path }, 'handler failed after the request was aborted');
    return;
  }
  if (!(err instanceof StatusError)) {
    logger.error({ err, method: ctx.req.method, path: ctx.req.path }, "apiserver panic'd");
  }
  if (res.finished) return;
  if (res.headWritten || res.sealed) {
    // A status line already went out: the best we can do is end the stream
    // (the original aborts the connection) rather than leave the client hanging.
    if (!res.sealed) res.takeOver().end();
    return;
  }
  writeStatus(res, err);
}

/** The outermost filter: catches whatever the rest of the chain throws. */
export function withPanicRecovery(logger: Logger): Filter {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      respondWithError(ctx, err, logger);
    }
  };
}

/**
 * Wraps the API handler: errors become responses, and a handler that returns
 * without answering gets a 500 instead of leaving the client waiting forever.
 * A handler that wrote headers and keeps streaming after returning is left
 * alone (its response ends when it ends it).
 */
export function handleErrors(handler: (ctx: RequestContext) => Promise<void>, logger: Logger): (ctx: RequestContext) => Promise<void> {
  return async (ctx) => {
    try {
      await handler(ctx);
    } catch (err) {
      respondWithError(ctx, err, logger);
      return;
    }
    const res = trackedResponse(ctx);
    if (!res.headWritten && !res.finished) {
      respondWithError(ctx, new Error('handler returned without writing a response'), logger);
    }
  };
}
