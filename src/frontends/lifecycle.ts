/**
 * The end of one exchange, shared by its request and response objects: the
 * client going away aborts the request's signal, and either that or the
 * response ending runs the close callbacks, once.
 *
 * The AbortController is created only when someone asks for the signal: most
 * requests never look at it, and at tens of thousands of requests a second
 * the allocation shows.
 */
export class ExchangeLifecycle {
  closed = false;
  aborted = false;
  #controller: AbortController | undefined;
  #closeCallbacks: (() => void)[] | undefined;

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.aborted) this.#controller.abort();
    }
    return this.#controller.signal;
  }

  onClose(cb: () => void): void {
    if (this.closed) {
      // Registered too late to see it happen: still tell, but never re-entrantly.
      queueMicrotask(cb);
      return;
    }
    (this.#closeCallbacks ??= []).push(cb);
  }

  /** The exchange is over: `aborted` when the client went away before the response was complete. */
  finish(aborted: boolean): void {
    if (this.closed) return;
    this.closed = true;
    this.aborted = aborted;
    if (aborted) this.#controller?.abort();
    const callbacks = this.#closeCallbacks;
    this.#closeCallbacks = undefined;
    if (callbacks !== undefined) runAll(callbacks);
  }
}

/**
 * Runs callbacks from a native event (socket close, uWS onAborted/onWritable).
 * One throwing must not stop the others or unwind into the HTTP stack; it is
 * re-thrown on its own turn, where it is as loud as a throwing event listener.
 */
export function runAll(callbacks: readonly (() => void)[]): void {
  for (const cb of callbacks) {
    try {
      cb();
    } catch (err) {
      queueMicrotask(() => {
        throw err;
      });
    }
  }
}
