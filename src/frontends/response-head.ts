/**
 * Response-head helpers both front ends use. The head is held back until the
 * first write or end, so a one-shot `end(body)` can carry Content-Length
 * instead of falling back to chunked encoding.
 */
export type ResponseHeaders = Readonly<Record<string, string | string[]>>;

export interface PendingHead {
  status: number;
  headers: ResponseHeaders;
}

export const DEFAULT_HEAD: PendingHead = { status: 200, headers: {} };

/** Case-insensitive lookup of a response header the handler set. */
export function findHeader(headers: ResponseHeaders, lowerName: string): string | string[] | undefined {
  for (const key in headers) {
    if (key.length === lowerName.length && key.toLowerCase() === lowerName) return headers[key];
  }
  return undefined;
}

export function byteLength(chunk: Uint8Array | string): number {
  return typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
}

/** Statuses and methods whose responses never carry a body (RFC 9110 6.4.1). */
export function isBodyless(method: string, status: number): boolean {
  return method === 'HEAD' || status === 204 || status === 205 || status === 304 || (status >= 100 && status < 200);
}

/** Statuses whose response is given a Content-Length from the body's size when the handler set none (not 1xx, 204, 304). */
export function takesContentLength(status: number): boolean {
  return status >= 200 && status !== 204 && status !== 304;
}

/**
 * Hop-by-hop headers: meaningless (HTTP/2 forbids them outright, RFC 9113
 * 8.2.2) or owned by the transport, which frames the body itself.
 */
const CONNECTION_SPECIFIC = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade']);

export function isConnectionSpecific(lowerName: string): boolean {
  return CONNECTION_SPECIFIC.has(lowerName);
}

/** True when the handler asked for the connection to close after this response. */
export function wantsClose(headers: ResponseHeaders): boolean {
  const value = findHeader(headers, 'connection');
  const text = Array.isArray(value) ? value.join(',') : value;
  return text !== undefined && /(?:^|,)\s*close\s*(?:,|$)/i.test(text);
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Header names already checked: a response's few names repeat on every response; bounded, as a handler may make names. */
const validNames = new Set<string>();
const MAX_VALID_NAMES = 1024;

/**
 * node's HTTP/1.1 stack rejects CR/LF in header names and values; its HTTP/2
 * layer and uWS pass them on as they are, which would let a value built from
 * request data split the response (or confuse an HTTP/1.1 hop behind a
 * proxy). Same rule, same failure, on every path.
 */
export function checkHeader(name: string, value: string): void {
  if (!validNames.has(name)) {
    if (!TOKEN.test(name)) throw new TypeError(`invalid response header name ${JSON.stringify(name)}`);
    if (validNames.size < MAX_VALID_NAMES) validNames.add(name);
  }
  if (hasLineBreakOrNul(value)) throw new TypeError(`invalid characters in response header ${name}`);
}

/** Whether `value` holds a CR, LF or NUL (three indexOf scans cost less than a regular expression or a loop). */
function hasLineBreakOrNul(value: string): boolean {
  return value.indexOf('\r') >= 0 || value.indexOf('\n') >= 0 || value.indexOf('\0') >= 0;
}
