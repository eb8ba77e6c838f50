/**
 * Writes failures as `Status` objects. Every error a client sees from the
 * chain goes through here, so the shape (JSON Status, its extra headers such
 * as Retry-After) is decided in one place.
 */
import type { ApiResponse } from '../http.ts';
import { StatusError, statusBody } from '../../api/status.ts';

/**
 * The message for failures we did not anticipate. Deliberately fixed: an
 * arbitrary Error's message can carry internals (paths, keys, SQL-like
 * storage details) that a client must not see; the log has the details.
 */
export const PANIC_MESSAGE = 'This request caused apiserver to panic. Look in the logs for details.';

/** A generic error as the client sees it: 500 InternalError, nothing from the error itself. */
export function internalServerError(): StatusError {
  return new StatusError(500, 'InternalError', PANIC_MESSAGE);
}

/** StatusErrors pass through; anything else becomes a generic 500. */
export function toStatusError(err: unknown): StatusError {
  return err instanceof StatusError ? err : internalServerError();
}

/** The headers of a Status response: JSON, never sniffed, plus the error's own (Retry-After, ...). */
export function statusHeaders(err: StatusError): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-content-type-options': 'nosniff',
    ...err.headers,
  };
}

/** Writes `err` (a StatusError, or any error as a generic 500) unless the client is gone. */
export function writeStatus(res: ApiResponse, err: unknown): void {
  if (res.closed) return;
  const status = toStatusError(err);
  res.writeHead(status.code, statusHeaders(status));
  res.end(statusBody(status));
}
