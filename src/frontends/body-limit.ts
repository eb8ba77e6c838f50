/**
 * Request body rules both front ends share: the 413 a client gets past the
 * limit, and when an unread body makes us close the connection after the
 * response instead of reading the rest away.
 */
import type { StatusError } from '../api/status.ts';
import { errors } from '../api/status.ts';
import type { HeaderBag } from './header-bag.ts';

export const EMPTY_BODY: Uint8Array = new Uint8Array(0);

/**
 * How much unread body we are willing to read and throw away to keep a
 * keep-alive connection (the figure Go's net/http uses). Past it, or when the
 * length is unknown, closing is cheaper than draining an upload nobody wants.
 */
export const DISCARDABLE_BODY_BYTES = 256 * 1024;

/** The 413 Status, worded as the original words it. */
export function bodyTooLarge(limitBytes: number): StatusError {
  return errors.tooLarge(`Request entity too large: limit is ${limitBytes}`);
}

/** The client went away (or reset the stream) before sending the whole body. */
export function bodyIncomplete(): StatusError {
  return errors.badRequest('the request body was not completely received');
}

/**
 * Content-Length headers that disagree make the body's end ambiguous: uWS
 * frames it by the first and would read the rest as a next request. Refused
 * as Go's net/http refuses them (identical repeats are harmless there too).
 */
export function conflictingLengths(headers: HeaderBag): StatusError | undefined {
  // Repeats come back joined with ', ': the common single header costs no copy.
  const joined = headers.get('content-length');
  if (joined === undefined || !joined.includes(',')) return undefined;
  const lengths = headers.values('content-length');
  if (lengths.length < 2 || lengths.every((v) => v === lengths[0])) return undefined;
  return errors.badRequest(`message cannot contain multiple Content-Length headers; got [${lengths.map((v) => JSON.stringify(v)).join(' ')}]`);
}

/** Content-Length as a number; undefined when absent or not a plain decimal. */
export function declaredLength(headers: HeaderBag): number | undefined {
  const value = headers.get('content-length');
  if (value === undefined || !/^\d{1,15}$/.test(value)) return undefined;
  return Number(value);
}

/** Whether a request with these headers can carry a body at all (HTTP/1.1 framing). */
export function mayHaveBody(headers: HeaderBag): boolean {
  const length = headers.get('content-length');
  if (length !== undefined) return length !== '0';
  return headers.get('transfer-encoding') !== undefined;
}

/** True when the unread rest of a body is too big, or of unknown size, to drain. */
export function closeRatherThanDrain(declared: number | undefined, received: number): boolean {
  return declared === undefined || declared - received > DISCARDABLE_BODY_BYTES;
}

export function concatChunks(chunks: readonly Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 0) return EMPTY_BODY;
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}
