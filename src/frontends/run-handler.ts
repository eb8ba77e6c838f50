/**
 * Hands one exchange to the pipeline. The pipeline's panic recovery answers
 * every error itself; this is the net under it, so that an error escaping
 * anyway (or a bare handler, as in tests) still gets the client an answer
 * instead of a hung request, and never becomes an unhandled rejection.
 */
import type { ApiRequest, ApiResponse, RequestHandler } from '../server/http.ts';
import { StatusError, statusBody } from '../api/status.ts';

/** What the front ends' responses add to ApiResponse for this purpose. */
export interface FrontendResponse extends ApiResponse {
  /** True once the status line went out. */
  readonly headSent: boolean;
}

export type ErrorReporter = (err: unknown, req: ApiRequest) => void;

export const reportToConsole: ErrorReporter = (err, req) => {
  console.error(`orch-apiserver: ${req.method} ${req.path}: an error escaped the request handler:`, err);
};

export function runHandler(
  handler: RequestHandler,
  req: ApiRequest,
  res: FrontendResponse,
  report: ErrorReporter,
): void {
  let done: Promise<void> | undefined;
  try {
    done = handler(req, res);
  } catch (err) {
    answerEscapedError(err, req, res, report);
    return;
  }
  done?.then(undefined, (err: unknown) => answerEscapedError(err, req, res, report));
}

function answerEscapedError(err: unknown, req: ApiRequest, res: FrontendResponse, report: ErrorReporter): void {
  const status = err instanceof StatusError ? err : undefined;
  if (status === undefined) report(err, req);
  if (res.closed) return;
  try {
    if (res.headSent) {
      // Too late for a status: end what was started rather than hang.
      res.end();
      return;
    }
    const answer = status ?? new StatusError(500, 'InternalError', 'an internal error occurred');
    res.writeHead(answer.code, { 'content-type': 'application/json', ...answer.headers });
    res.end(statusBody(answer));
  } catch (secondErr) {
    report(secondErr, req);
  }
}
