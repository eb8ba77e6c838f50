/**
 * Panic recovery: no exception leaves the chain. An error becomes a Status
 * response (a StatusError as itself, anything else as a generic 500), and
 * the process carries on with the next request, as the original's
 * WithPanicRecovery does. An internal failure (anything not a StatusError,
 * or a StatusError of 500) is logged once, with the request's audit ID, and
 * counted in apiserver_internal_errors_total.
 *
 * Two places use it: outermost, for errors thrown by filters (a broken
 * authenticator, say), and around the API handler (handleErrors), so a
 * handler's StatusError is written inside the logging and metrics filters
 * and they see its code. A handler whose answer was already under way (a
 * watch that ended itself with an ERROR event) throws afterwards only to be
 * logged and counted here; its response is left as it is.
 */
import type { Filter, Next, RequestContext, Step } from '../context.ts';
import type { Logger } from '../logging.ts';
import type { ApiserverMetrics } from '../metrics.ts';
import { StatusError } from '../../api/status.ts';
import { requestLabels } from './request-labels.ts';
import { trackedResponse } from './tracked-response.ts';
import { writeStatus } from './write-status.ts';

/** True for errors of the server's own making: they are logged and counted. */
function isInternal(err: unknown): boolean {
  return !(err instanceof StatusError) || err.code === 500;
}

/** Answers `err` on the request's response, or ends it if the answer had already begun. */
export function respondWithError(ctx: RequestContext, err: unknown, logger: Logger, metrics?: ApiserverMetrics): void {
  const res = trackedResponse(ctx);
  // Query left out of these logs: it can carry tokens (see with-logging.ts).
  if (ctx.signal.aborted && (res.sealed || res.finished)) {
    // The request timed out or the client left, and the handler failed on its
    // way out (typically an AbortError): expected, and nobody to answer.
    logger.debug({ err, auditID: ctx.auditID, method: ctx.req.method, path: ctx.req.path }, 'handler failed after the request was aborted');
    return;
  }
  const internal = isInternal(err);
  if (!(err instanceof StatusError)) ctx.panicked = true;
  if (internal) {
    logger.error({ err, auditID: ctx.auditID, method: ctx.req.method, path: ctx.req.path }, "apiserver panic'd");
    metrics?.recordInternalError(requestLabels(ctx));
  }
  if (res.finished) return;
  if (res.headWritten || res.sealed) {
    // A status line already went out: the best we can do is end the stream
    // (the original aborts the connection) rather than leave the client hanging.
    if (!res.sealed) res.takeOver().end();
    return;
  }
  // Internal failures too: the Audit-Id header every response carries names the log line above.
  writeStatus(res, err);
}

/** The outermost filter: catches whatever the rest of the chain throws. */
export function withPanicRecovery(logger: Logger, metrics?: ApiserverMetrics): Filter {
  return (ctx, next) => {
    let step: Step;
    try {
      step = next(ctx);
    } catch (err) {
      respondWithError(ctx, err, logger, metrics);
      return undefined;
    }
    return step?.then(undefined, (err: unknown) => respondWithError(ctx, err, logger, metrics));
  };
}

/**
 * Wraps the API handler: errors become responses, and a handler that returns
 * without answering gets a 500 instead of leaving the client waiting forever.
 * A handler that wrote headers and keeps streaming after returning is left
 * alone (its response ends when it ends it).
 */
export function handleErrors(handler: Next, logger: Logger, metrics?: ApiserverMetrics): Next {
  const answered = (ctx: RequestContext): void => {
    const res = trackedResponse(ctx);
    if (!res.headWritten && !res.finished) {
      respondWithError(ctx, new Error('handler returned without writing a response'), logger, metrics);
    }
  };
  return (ctx) => {
    let step: Step;
    try {
      step = handler(ctx);
    } catch (err) {
      respondWithError(ctx, err, logger, metrics);
      return undefined;
    }
    if (step === undefined) {
      answered(ctx);
      return undefined;
    }
    return step.then(
      () => answered(ctx),
      (err: unknown) => respondWithError(ctx, err, logger, metrics),
    );
  };
}
