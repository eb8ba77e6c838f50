/**
 * Reads a node request body (HTTP/1.1 IncomingMessage or HTTP/2 stream) under
 * a size limit. Nothing is read until a handler asks: until then node's own
 * flow control (TCP window, HTTP/2 stream window) holds the client back, so
 * an unread upload costs no memory here.
 */
import type { Readable } from 'node:stream';
import { bodyIncomplete, bodyTooLarge, concatChunks, EMPTY_BODY } from './body-limit.ts';

export interface BodyProgress {
  /** Bytes read so far. */
  received: number;
  /** True once the whole body was read. */
  complete: boolean;
}

/**
 * `keepOpen`: the body is complete once the declared length arrived (HTTP/2, where nghttp2 resets a
 * stream whose DATA exceed its content-length, or end short of it), and the source's readable side is
 * not ended by reading it: `keepOpen` runs as the last byte is taken, before anything else can end it
 * (readDeclaredLength).
 */
export function readStreamBody(
  source: Readable,
  limitBytes: number,
  declared: number | undefined,
  progress: BodyProgress,
  keepOpen?: () => void,
): Promise<Uint8Array> {
  if (declared !== undefined && declared > limitBytes) {
    // Refuse before reading a byte: the client said how much is coming.
    return Promise.reject(bodyTooLarge(limitBytes));
  }
  if (progress.complete || source.readableEnded) {
    progress.complete = true;
    return Promise.resolve(EMPTY_BODY);
  }
  if (keepOpen !== undefined && declared !== undefined) return readDeclaredLength(source, declared, progress, keepOpen);
  return new Promise<Uint8Array>((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    const cleanup = (): void => {
      source.off('data', onData);
      source.off('end', onEnd);
      source.off('close', onClose);
    };
    const onData = (chunk: Buffer): void => {
      progress.received += chunk.byteLength;
      if (progress.received > limitBytes) {
        cleanup();
        // Stop pulling; the response decides whether the rest is drained or
        // the connection closed (see closeRatherThanDrain).
        source.pause();
        reject(bodyTooLarge(limitBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      progress.complete = true;
      resolve(concatChunks(chunks, progress.received));
    };
    const onClose = (): void => {
      cleanup();
      reject(bodyIncomplete());
    };
    source.on('data', onData);
    source.on('end', onEnd);
    source.on('close', onClose);
  });
}

/**
 * Reads exactly `declared` bytes without ending the source's readable side: `read(n)` with n the
 * buffered length takes all of it, where `read()` or flowing mode would also end the stream once the
 * client's end is buffered behind the bytes; `keepOpen` then runs in the same turn. The declared length
 * is all a conforming peer may send, and the protocol layer refuses the rest (node:http2: nghttp2
 * resets the stream).
 */
function readDeclaredLength(source: Readable, declared: number, progress: BodyProgress, keepOpen: () => void): Promise<Uint8Array> {
  if (declared === 0) {
    progress.complete = true;
    return Promise.resolve(EMPTY_BODY);
  }
  return new Promise<Uint8Array>((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    const cleanup = (): void => {
      source.off('readable', onReadable);
      source.off('end', onShort);
      source.off('close', onShort);
    };
    const onReadable = (): void => {
      for (let n = source.readableLength; n > 0; n = source.readableLength) {
        const chunk = source.read(n) as Buffer | null;
        if (chunk === null) break;
        progress.received += chunk.byteLength;
        chunks.push(chunk);
      }
      if (progress.received < declared) return;
      cleanup();
      if (progress.received > declared) {
        reject(bodyIncomplete());
        return;
      }
      progress.complete = true;
      keepOpen();
      resolve(concatChunks(chunks, progress.received));
    };
    // Ended or closed short of the declared length.
    const onShort = (): void => {
      cleanup();
      reject(bodyIncomplete());
    };
    source.on('readable', onReadable);
    source.on('end', onShort);
    source.on('close', onShort);
  });
}
