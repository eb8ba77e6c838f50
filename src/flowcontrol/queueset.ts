/**
 * QueueSet: one Limited priority level's seats and queues, after the
 * original's fairqueuing/queueset (v1.25), with every request one seat wide.
 *
 * - Reject levels (no queuing): a request runs if a seat is free, otherwise
 *   it is rejected ("concurrency-limit").
 * - Queue levels: a request goes to the shortest queue of its flow's hand
 *   (shuffle-sharding.ts). If every seat is taken and that queue holds
 *   queueLengthLimit requests it is rejected ("queue-full"). Free seats go to
 *   the head of the queue whose next request would finish first in virtual
 *   time, round robin among equals: fair queueing. Virtual time R advances
 *   at min(seats requested, limit) / active queues seat-seconds per second;
 *   each dispatch charges its queue G = 3 seat-seconds, corrected by the
 *   real service time when the request ends. A request waiting longer than
 *   its wait limit leaves its queue and is rejected ("time-out").
 *
 * Not thread-safe and need not be: each serving thread owns its sets.
 */
import { Dealer } from './shuffle-sharding.ts';
import type { QueuingConfig } from './types.ts';

/** The original's estimatedServiceDuration: what a dispatch charges its queue before the real time is known. */
const ESTIMATED_SERVICE_SECONDS = 3;

export type RejectReason = 'queue-full' | 'concurrency-limit' | 'time-out' | 'cancelled';

export interface QueueSetConfig {
  /** Seats of the level (at least 1). */
  readonly concurrencyLimit: number;
  /** Null: LimitResponse Reject. */
  readonly queuing: QueuingConfig | null;
}

class Queue {
  /** Waiting requests, oldest first. */
  readonly waiting: Ticket[] = [];
  /** Virtual time at which this queue's next request starts. */
  nextDispatchR = 0;
  executing = 0;
}

/** One request's place in a QueueSet, from its arrival to its end. */
export class Ticket {
  /** 'waiting' in a queue, 'executing' on a seat, then 'rejected' (from a queue) or 'done'. */
  state: 'waiting' | 'executing' | 'rejected' | 'done' = 'waiting';
  /** Why a waiting ticket was rejected. */
  reason: RejectReason | undefined;
  queue: Queue | null;
  arrivalR = 0;
  /** Clock (ms) of arrival and of dispatch. */
  readonly arrivedAt: number;
  startedAt = 0;
  #settle: ((executing: boolean) => void) | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(queue: Queue | null, now: number) {
    this.queue = queue;
    this.arrivedAt = now;
  }

  /** Seconds spent waiting before dispatch (or rejection). */
  get waitSeconds(): number {
    return ((this.state === 'waiting' ? this.arrivedAt : this.startedAt || this.arrivedAt) - this.arrivedAt) / 1000;
  }

  /** @internal */
  _settle(executing: boolean): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const s = this.#settle;
    this.#settle = undefined;
    s?.(executing);
  }

  /** @internal */
  _wait(set: QueueSet, waitMs: number, signal: AbortSignal | undefined): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      let onAbort: (() => void) | undefined;
      this.#settle = (executing) => {
        if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
        resolve(executing);
      };
      this.#timer = setTimeout(() => set._giveUp(this, 'time-out'), Math.max(0, waitMs));
      if (signal !== undefined) {
        onAbort = () => set._giveUp(this, 'cancelled');
        if (signal.aborted) onAbort();
        else signal.addEventListener('abort', onAbort, { once: true });
      }
    });
  }
}

export class QueueSet {
  #limit = 1;
  #queuing: QueuingConfig | null = null;
  #queues: Queue[] = [];
  #dealer: Dealer | null = null;
  readonly #clock: () => number;

  #seatsInUse = 0;
  /** Seats held by requests of a queue (not those of a Reject level). */
  #queuedSeatsInUse = 0;
  #waiting = 0;
  #activeQueues = 0;
  #currentR = 0;
  #lastRealSeconds: number;
  #robin = -1;

  constructor(config: QueueSetConfig, clock: () => number = performance.now.bind(performance)) {
    this.#clock = clock;
    this.#lastRealSeconds = clock() / 1000;
    this.configure(config);
  }

  get concurrencyLimit(): number {
    return this.#limit;
  }
  get executing(): number {
    return this.#seatsInUse;
  }
  get waiting(): number {
    return this.#waiting;
  }
  get queuing(): QueuingConfig | null {
    return this.#queuing;
  }
  /** Virtual time (seat-seconds), for the current_r gauge. */
  get currentR(): number {
    this.#syncTime();
    return this.#currentR;
  }
  /** Requests waiting in each queue (tests, diagnostics). */
  queueLengths(): number[] {
    return this.#queues.map((q) => q.waiting.length);
  }

  /**
   * New limit or queue shape. Queues beyond a smaller count hand their
   * waiting requests to the remaining ones; freed seats dispatch at once.
   */
  configure(config: QueueSetConfig): void {
    this.#syncTime();
    this.#limit = Math.max(1, Math.floor(config.concurrencyLimit));
    const q = config.queuing;
    const old = this.#queuing;
    this.#queuing = q;
    if (q !== null && (old === null || old.queues !== q.queues || old.handSize !== q.handSize)) {
      const kept = this.#queues.slice(0, q.queues);
      while (kept.length < q.queues) kept.push(new Queue());
      for (let i = q.queues; i < this.#queues.length; i++) {
        const from = this.#queues[i]!;
        if (from.waiting.length === 0 && from.executing === 0) continue;
        const to = kept[i % q.queues]!;
        if (from.waiting.length > 0 && to.waiting.length === 0 && to.executing === 0) this.#activeQueues++;
        for (const t of from.waiting) {
          t.queue = to;
          to.waiting.push(t);
        }
        from.waiting.length = 0;
        if (from.executing === 0) this.#activeQueues--;
      }
      this.#queues = kept;
      this.#robin = -1;
      this.#dealer = new Dealer(q.queues, q.handSize);
    }
    this.#dispatchAsMuchAsPossible();
  }

  /**
   * A request of the flow `hash` arrives. Returns a ticket already
   * executing, a ticket waiting in a queue (then call wait()), or why it is
   * rejected at once.
   */
  start(hash: number): Ticket | RejectReason {
    const now = this.#clock();
    this.#syncTime(now);
    const queuing = this.#queuing;
    if (queuing === null || this.#dealer === null) {
      if (this.#seatsInUse >= this.#limit) return 'concurrency-limit';
      const t = new Ticket(null, now);
      this.#seatsInUse++;
      t.state = 'executing';
      t.startedAt = now;
      return t;
    }
    // The shortest queue of the flow's hand (the first of equals).
    const hand = this.#dealer.dealShared(hash);
    let queue = this.#queues[hand[0]!]!;
    for (let i = 1; i < hand.length; i++) {
      const q = this.#queues[hand[i]!]!;
      if (q.waiting.length < queue.waiting.length) queue = q;
    }
    if (this.#seatsInUse >= this.#limit && queue.waiting.length >= queuing.queueLengthLimit) return 'queue-full';
    const t = new Ticket(queue, now);
    if (queue.waiting.length === 0 && queue.executing === 0) {
      // An idle queue starts at the present, not in the past it missed.
      queue.nextDispatchR = this.#currentR;
      this.#activeQueues++;
    }
    t.arrivalR = this.#currentR;
    if (this.#waiting === 0 && this.#seatsInUse < this.#limit) {
      // Nobody else waits: this queue is the one to serve; skip the search.
      this.#dispatch(queue, t, now);
      return t;
    }
    queue.waiting.push(t);
    this.#waiting++;
    this.#dispatchAsMuchAsPossible();
    return t;
  }

  /**
   * Waits for a queued ticket's seat: true once executing, false when it
   * waited `waitMs` or `signal` aborted (ticket.reason says which).
   */
  wait(t: Ticket, waitMs: number, signal?: AbortSignal): Promise<boolean> | boolean {
    if (t.state !== 'waiting') return t.state === 'executing';
    return t._wait(this, waitMs, signal);
  }

  /** A ticket that executed ends: its seat goes to the next request. */
  finish(t: Ticket): void {
    if (t.state !== 'executing') return;
    const now = this.#clock();
    this.#syncTime(now);
    t.state = 'done';
    this.#seatsInUse--;
    const queue = t.queue;
    if (queue !== null) {
      this.#queuedSeatsInUse--;
      queue.executing--;
      // Charge the queue what the request really took instead of the estimate.
      queue.nextDispatchR -= ESTIMATED_SERVICE_SECONDS - (now - t.startedAt) / 1000;
      this.#boundNextDispatch(queue);
      if (queue.executing === 0 && queue.waiting.length === 0) this.#activeQueues--;
    }
    this.#dispatchAsMuchAsPossible();
  }

  /** @internal A waiting ticket leaves its queue (its wait limit passed, or the client went away). */
  _giveUp(t: Ticket, reason: RejectReason): void {
    if (t.state !== 'waiting') return;
    this.#syncTime();
    const queue = t.queue!;
    const at = queue.waiting.indexOf(t);
    if (at >= 0) {
      queue.waiting.splice(at, 1);
      this.#waiting--;
      if (queue.executing === 0 && queue.waiting.length === 0) this.#activeQueues--;
    }
    t.state = 'rejected';
    t.reason = reason;
    t._settle(false);
  }

  #dispatch(queue: Queue, t: Ticket, now: number): void {
    t.state = 'executing';
    t.startedAt = now;
    this.#seatsInUse++;
    this.#queuedSeatsInUse++;
    queue.executing++;
    queue.nextDispatchR += ESTIMATED_SERVICE_SECONDS;
  }

  #dispatchAsMuchAsPossible(): void {
    if (this.#waiting === 0) return;
    const now = this.#clock();
    while (this.#waiting > 0 && this.#seatsInUse < this.#limit) {
      const queue = this.#findDispatchQueue();
      if (queue === undefined) return;
      const t = queue.waiting.shift()!;
      this.#waiting--;
      this.#dispatch(queue, t, now);
      this.#boundNextDispatch(queue);
      t._settle(true);
    }
  }

  /** The non-empty queue whose head would finish first in virtual time; round robin among equals. */
  #findDispatchQueue(): Queue | undefined {
    const n = this.#queues.length;
    let best: Queue | undefined;
    let bestAt = -1;
    let bestFinish = Infinity;
    for (let k = 0; k < n; k++) {
      const i = (this.#robin + 1 + k) % n;
      const q = this.#queues[i]!;
      if (q.waiting.length === 0) continue;
      const finish = q.nextDispatchR + ESTIMATED_SERVICE_SECONDS;
      if (finish < bestFinish) {
        bestFinish = finish;
        best = q;
        bestAt = i;
      }
    }
    if (best !== undefined) this.#robin = bestAt;
    return best;
  }

  /** A queue's next start is never before its oldest waiting request arrived (the original's boundNextDispatchLocked). */
  #boundNextDispatch(queue: Queue): void {
    const head = queue.waiting[0];
    if (head !== undefined && queue.nextDispatchR < head.arrivalR) queue.nextDispatchR = head.arrivalR;
  }

  #syncTime(nowMs: number = this.#clock()): void {
    const now = nowMs / 1000;
    const dt = now - this.#lastRealSeconds;
    this.#lastRealSeconds = now;
    if (dt <= 0 || this.#activeQueues === 0) return;
    const requested = this.#queuedSeatsInUse + this.#waiting;
    this.#currentR += (dt * Math.min(requested, this.#limit)) / this.#activeQueues;
  }
}
