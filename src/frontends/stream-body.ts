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

export function readStreamBody(
  source: Readable,
  limitBytes: number,
  declared: number | undefined,
  progress: BodyProgress,
): Promise<Uint8Array> {
  if (declared !== undefined && declared > limitBytes) {
    // Refuse before reading a byte: the client said how much is coming.
    return Promise.reject(bodyTooLarge(limitBytes));
  }
  if (progress.complete || source.readableEnded) {
    progress.complete = true;
    return Promise.resolve(EMPTY_BODY);
  }
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
