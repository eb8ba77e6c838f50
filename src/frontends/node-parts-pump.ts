/**
 * Writes a body made of parts to a node stream (an HTTP/1.1 ServerResponse
 * or an HTTP/2 stream) as the client reads it, then ends the stream.
 *
 * Large parts go out in slices, the next only after 'drain': node's TLS
 * socket encrypts everything it is handed at once into its own memory (a
 * 48 MiB write to a client that does not read grows the process by 48 MiB
 * of ciphertext). Small parts are written under cork, so node hands them to
 * the socket together rather than one TLS record each.
 */
import { asBuffer, PartsCursor } from './body-parts.ts';

/** The most written to node at once. */
export const SLICE_BYTES = 256 * 1024;

/** What the pump needs of ServerResponse and ServerHttp2Stream. */
export interface PartsSink {
  write(chunk: Uint8Array): boolean;
  end(): void;
  cork(): void;
  uncork(): void;
  once(event: 'drain' | 'close', listener: () => void): unknown;
  off(event: 'drain' | 'close', listener: () => void): unknown;
  readonly destroyed: boolean;
}

export class PartsPump {
  readonly #sink: PartsSink;
  readonly #cursor: PartsCursor;

  constructor(sink: PartsSink, parts: readonly Uint8Array[], total: number) {
    this.#sink = sink;
    this.#cursor = new PartsCursor(parts, total);
  }

  /** Bytes not yet handed to node (0 once done or abandoned). */
  get remaining(): number {
    return this.#cursor.remaining;
  }

  start(): void {
    this.#sink.once('close', this.#stop);
    this.#flow();
  }

  readonly #flow = (): void => {
    const sink = this.#sink;
    const cursor = this.#cursor;
    if (sink.destroyed) {
      this.#stop();
      return;
    }
    let ok = true;
    sink.cork();
    while (ok && cursor.remaining > 0) {
      const slice = cursor.view(SLICE_BYTES);
      cursor.advance(slice.byteLength);
      ok = sink.write(asBuffer(slice));
    }
    sink.uncork();
    if (cursor.remaining > 0) {
      sink.once('drain', this.#flow);
      return;
    }
    sink.off('close', this.#stop);
    sink.end();
  };

  /** The stream closed under us (client gone, stream reset): let go of the parts. */
  readonly #stop = (): void => {
    this.#sink.off('drain', this.#flow);
    this.#sink.off('close', this.#stop);
    this.#cursor.release();
  };
}
