/**
 * Graceful shutdown, after the original's lifecycle signals
 * (genericapiserver.go, preparedGenericAPIServer.Run):
 *
 *   serving ──SIGTERM──► shutdown initiated (/readyz fails; requests still served)
 *           ──--shutdown-delay-duration──► not accepting new requests
 *             (--shutdown-send-retry-after: new requests get 429 + Retry-After and
 *              Connection: close while the listeners stay open; else the listeners
 *              close and requests still arriving on open connections get 503)
 *           ──in-flight requests drained (bounded by --request-timeout)──►
 *             long-running requests (watches) ended cleanly, front ends closed,
 *             the store flushed, exit 0.
 *
 * ShutdownSignals is the phase, in a SharedArrayBuffer: every serving thread
 * reads the same cell (one Atomics.load per request), so all of them switch
 * at the same moment without a message. RequestDrain is one thread's own: the
 * ordinary requests it has in flight (the original's HandlerChainWaitGroup)
 * and the long-running ones it can end.
 */

/** Bytes of the shared cells: the phase, and how many serving threads have not finished draining. */
export const SHUTDOWN_SIGNALS_BYTES = 8;

/** How often a drained thread looks whether the others are done too. */
const DRAINED_POLL_MS = 10;

export const PHASE_SERVING = 0;
export const PHASE_SHUTDOWN_INITIATED = 1;
export const PHASE_NOT_ACCEPTING = 2;

export class ShutdownSignals {
  readonly #cell: Int32Array;
  readonly #draining: Int32Array;

  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(SHUTDOWN_SIGNALS_BYTES)) {
    this.#cell = new Int32Array(buffer, 0, 1);
    this.#draining = new Int32Array(buffer, 4, 1);
  }

  get phase(): number {
    return Atomics.load(this.#cell, 0);
  }

  /** SIGTERM came: /readyz fails from now on. */
  get shutdownInitiated(): boolean {
    return this.phase >= PHASE_SHUTDOWN_INITIATED;
  }

  /** The shutdown delay is over: new requests are turned away. */
  get notAcceptingNewRequests(): boolean {
    return this.phase >= PHASE_NOT_ACCEPTING;
  }

  initiateShutdown(): void {
    this.#raise(PHASE_SHUTDOWN_INITIATED);
  }

  stopAcceptingNewRequests(): void {
    this.#raise(PHASE_NOT_ACCEPTING);
  }

  /**
   * The process's serving threads about to drain (the main thread sets it before the delay ends). With
   * --shutdown-send-retry-after every listener answers 429 until all of them are drained, as the original's one
   * listener does until its one wait group is: a thread done early must not close its listeners while a port it
   * shares, or one only it serves, still has to answer.
   */
  beginDrain(threads: number): void {
    Atomics.store(this.#draining, 0, threads);
  }

  /** This thread's ordinary requests are done (or its wait ran out). */
  threadDrained(): void {
    Atomics.sub(this.#draining, 0, 1);
  }

  /** Resolves true once every thread counted by beginDrain is drained (at once when none was), false after `timeoutMs`. */
  async allThreadsDrained(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (Atomics.load(this.#draining, 0) > 0) {
      if (Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, DRAINED_POLL_MS));
    }
    return true;
  }

  #raise(phase: number): void {
    // Phases only move forward, whichever thread raises them.
    for (;;) {
      const now = Atomics.load(this.#cell, 0);
      if (now >= phase || Atomics.compareExchange(this.#cell, 0, now, phase) === now) return;
    }
  }
}

/**
 * One serving thread's requests, for draining: ordinary requests counted
 * while they run (a wait group that refuses new members once waited on), and
 * the long-running ones registered with a callback that ends them cleanly.
 */
export class RequestDrain {
  #inflight = 0;
  #waiting = false;
  #idle: (() => void)[] = [];
  readonly #longRunning = new Set<() => void>();

  /** Ordinary requests running now. */
  get inflight(): number {
    return this.#inflight;
  }

  /** Long-running requests open now. */
  get longRunning(): number {
    return this.#longRunning.size;
  }

  /** Counts a request in; false once draining began (the request must be turned away). */
  add(): boolean {
    if (this.#waiting) return false;
    this.#inflight++;
    return true;
  }

  done(): void {
    this.#inflight--;
    if (this.#inflight === 0 && this.#idle.length > 0) {
      const idle = this.#idle;
      this.#idle = [];
      for (const cb of idle) cb();
    }
  }

  /**
   * Registers a long-running request with the function that ends it (after
   * its last whole frame); returns the function that unregisters it.
   */
  registerLongRunning(end: () => void): () => void {
    this.#longRunning.add(end);
    return () => this.#longRunning.delete(end);
  }

  /**
   * Refuses new requests from now on and resolves once those in flight are
   * done, or after `timeoutMs` (each is bounded by the request timeout
   * anyway): true when drained, false when the time ran out.
   */
  async drain(timeoutMs: number): Promise<boolean> {
    this.#waiting = true;
    if (this.#inflight === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const drained = await new Promise<boolean>((resolve) => {
      this.#idle.push(() => resolve(true));
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    clearTimeout(timer);
    return drained;
  }

  /** Ends every long-running request cleanly; returns how many there were. */
  endLongRunning(): number {
    const ends = [...this.#longRunning];
    this.#longRunning.clear();
    for (const end of ends) {
      try {
        end();
      } catch {
        // one watch failing to end must not keep the others open; its response is closed with the front end
      }
    }
    return ends.length;
  }
}
