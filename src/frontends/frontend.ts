/** What starting a front end gives back, whichever HTTP stack it runs on. */
export interface Frontend {
  /** The port actually bound (the one asked for, or the free one picked for 0). */
  readonly port: number;
  /**
   * Stops listening and ends open connections, after waiting up to `graceMs`
   * (default 0) for the requests on them to finish. Requests still open then
   * are aborted (their signal fires). Draining long-running requests first
   * is the caller's job: only it knows which ones are.
   */
  close(graceMs?: number): Promise<void>;
  /**
   * Stops taking new connections and keeps the open ones serving (a
   * graceful shutdown's first step); HTTP/2 sessions get a GOAWAY, so their
   * clients open new streams elsewhere while the ones under way finish.
   */
  stopListening(): void;
}
