/**
 * `--max-connection-bytes-per-sec` for long-running responses: a token
 * bucket holding at most one second's worth of bytes. A chunk larger than
 * the bucket waits for a full bucket and then leaves it in debt, so every
 * chunk goes out whole (a watch event is never split) and the average rate
 * still holds.
 */
export class ByteRate {
  #tokens: number;
  #last: number;

  constructor(
    readonly bytesPerSec: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.#tokens = bytesPerSec;
    this.#last = now();
  }

  /** 0 when `bytes` may go now (and they are taken), else the ms to wait before asking again. */
  take(bytes: number): number {
    const t = this.now();
    this.#tokens = Math.min(this.bytesPerSec, this.#tokens + ((t - this.#last) * this.bytesPerSec) / 1000);
    this.#last = t;
    const need = Math.min(bytes, this.bytesPerSec);
    if (this.#tokens >= need) {
      this.#tokens -= bytes;
      return 0;
    }
    return Math.max(1, Math.ceil(((need - this.#tokens) * 1000) / this.bytesPerSec));
  }
}
