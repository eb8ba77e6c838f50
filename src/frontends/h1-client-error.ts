/**
 * What the secure port answers when node's HTTP/1.1 parser refuses a request
 * (a head past the 1 MiB limit, a malformed request line, a bad chunk size):
 * node's own answers (431, 413, 408, else 400), sent the way Go's server
 * sends them. Node's default writes the answer and destroys the socket at
 * once; with request bytes still unread (the rest of an oversized head) the
 * kernel then resets the connection, and a client on a loaded machine can
 * lose the answer to the reset before it reads it (the connections test saw
 * an empty reply instead of the 431). Like Go's closeWriteAndWait, this
 * half-closes after the answer and reads and discards what the client still
 * sends for a moment, so the close is a FIN the client reads after the answer.
 */
import type { Duplex } from 'node:stream';

const ANSWERS: Readonly<Record<string, string>> = {
  HPE_HEADER_OVERFLOW: '431 Request Header Fields Too Large',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: '413 Payload Too Large',
  ERR_HTTP_REQUEST_TIMEOUT: '408 Request Timeout',
};

/** Refused connections being drained: answered once, closed when their linger ends. */
const lingering = new WeakSet<Duplex>();

/** How long a refused connection is drained before it is closed for good. */
export const CLIENT_ERROR_LINGER_MS = 500;

/** The server's 'clientError' listener: answer once if nothing was written yet, then linger and close. */
export function answerH1ClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  // The parser stays on the socket while it drains and refuses every further chunk with another clientError;
  // destroying the socket then (it is no longer writable) would reset it and lose the answer after all.
  if (lingering.has(socket)) return;
  const s = socket as Duplex & { bytesWritten?: number };
  s.on('error', () => {});
  if (!s.writable || (s.bytesWritten ?? 0) > 0 || err.code === 'ECONNRESET') {
    s.destroy();
    return;
  }
  const status = ANSWERS[err.code ?? ''] ?? '400 Bad Request';
  lingering.add(s);
  s.end(`HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`);
  s.resume();
  setTimeout(() => s.destroy(), CLIENT_ERROR_LINGER_MS).unref();
}
