/**
 * A request body that the HTTP stack pushes at us whether or not anyone asked
 * (uWS: `onData` must be attached inside the request callback, or the bytes
 * are dropped). Chunks are kept until the handler calls `read(limit)`; if
 * more than `prereadBytes` arrive before that, the socket is paused so an
 * upload nobody has asked for yet cannot fill memory.
 */
import { bodyIncomplete, bodyTooLarge, concatChunks, EMPTY_BODY } from './body-limit.ts';

export interface FlowControl {
  pause(): void;
  resume(): void;
}

export class PushedBody {
  received = 0;
  complete = false;
  readonly #declared: number | undefined;
  readonly #flow: FlowControl;
  readonly #prereadBytes: number;
  #chunks: Uint8Array[] = [];
  /** -1 until a handler asks for the body. */
  #limit = -1;
  #paused = false;
  #result: Promise<Uint8Array> | undefined;
  #resolve: ((body: Uint8Array) => void) | undefined;
  #reject: ((err: unknown) => void) | undefined;
  #failed = false;

  constructor(declared: number | undefined, flow: FlowControl, prereadBytes = 64 * 1024) {
    this.#declared = declared;
    this.#flow = flow;
    this.#prereadBytes = prereadBytes;
  }

  get paused(): boolean {
    return this.#paused;
  }

  /** A chunk from the stack; `chunk` must already be a copy the stack will not reuse. */
  push(chunk: Uint8Array, last: boolean): void {
    if (this.#failed) return; // refused or aborted: the rest is read away and dropped
    this.received += chunk.byteLength;
    if (this.#limit >= 0 && this.received > this.#limit) {
      this.#fail(bodyTooLarge(this.#limit));
      return;
    }
    if (chunk.byteLength > 0) this.#chunks.push(chunk);
    if (last) {
      this.complete = true;
      if (this.#resolve !== undefined) this.#settle();
    } else if (this.#limit < 0 && !this.#paused && this.received >= this.#prereadBytes) {
      this.#paused = true;
      this.#flow.pause();
    }
  }

  read(limitBytes: number): Promise<Uint8Array> {
    if (this.#result !== undefined) return this.#result;
    this.#limit = limitBytes;
    this.#result = new Promise<Uint8Array>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    if (this.#failed) {
      this.#reject!(bodyIncomplete());
    } else if ((this.#declared !== undefined && this.#declared > limitBytes) || this.received > limitBytes) {
      this.#fail(bodyTooLarge(limitBytes));
    } else if (this.complete) {
      this.#settle();
    } else if (this.#paused) {
      this.#paused = false;
      this.#flow.resume();
    }
    return this.#result;
  }

  /**
   * The response is going out and nobody asked for the body: drop what
   * still comes, and stop holding the socket paused (a paused uWS socket
   * gets no writable events either, so a large response would stall).
   */
  discard(): void {
    if (this.#result !== undefined || this.complete || this.#failed) return;
    this.#failed = true;
    this.#chunks = [];
    if (this.#paused) {
      this.#paused = false;
      this.#flow.resume();
    }
  }

  /** The client went away mid-body: the socket is gone, so no resume either. */
  abort(): void {
    this.#paused = false;
    if (!this.complete) this.#fail(bodyIncomplete());
  }

  #settle(): void {
    const body = this.received === 0 ? EMPTY_BODY : concatChunks(this.#chunks, this.received);
    this.#chunks = [];
    this.#resolve!(body);
  }

  #fail(err: unknown): void {
    this.#failed = true;
    this.#chunks = [];
    // Let the stack read the rest away (or notice the close the response
    // asks for); a paused socket would just sit there.
    if (this.#paused) {
      this.#paused = false;
      this.#flow.resume();
    }
    this.#reject?.(err);
  }
}
