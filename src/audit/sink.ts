/**
 * Where the audit filter sends events, and the modes of the original's
 * backends (`--audit-{log,webhook}-mode`):
 *
 * - batch: events queue in a bounded buffer (`-batch-buffer-size`, 10000)
 *   and go out in batches (`-batch-max-size`, `-batch-max-wait`), at most
 *   `-batch-throttle-qps` batches a second (burst `-batch-throttle-burst`);
 *   a full buffer drops the event (counted and logged), never blocks a request;
 * - blocking: the request waits until its event is written; a failure is
 *   logged only;
 * - blocking-strict: as blocking, and a failure at RequestReceived fails the
 *   request (the filter answers 500).
 */
import { AuditWriteError, TruncatingBackend, type TruncateOptions } from './truncate-backend.ts';
import { jsonEntry, type AuditEntry } from './entry.ts';
import { decodeLines, type EncodedLines } from './lines.ts';
import type { AuditMetrics } from './types.ts';

export type AuditMode = 'batch' | 'blocking' | 'blocking-strict';
export const AUDIT_MODES: readonly AuditMode[] = ['batch', 'blocking', 'blocking-strict'];

/** A place events are written to (the log file, the webhook). */
export interface AuditBackend {
  readonly name: string;
  /**
   * True when batch boundaries mean nothing to the backend and calls are
   * applied in order even if not awaited (a log file: lines are lines). Then
   * every full batch queued is handed over at once, not one per turn.
   */
  readonly pipelined?: boolean;
  /** Writes events in order; rejects when they could not be written. */
  write(events: readonly AuditEntry[]): Promise<void>;
  /** True when the backend takes events as encoded JSON lines (writeLines): the log in JSON format. */
  readonly acceptsLines?: boolean;
  /** Writes encoded JSON lines, in order with write(); only when acceptsLines. */
  writeLines?(lines: EncodedLines): Promise<void>;
  /** Flushes what is buffered and releases the file or connection. */
  close(): Promise<void>;
}

export interface BatchOptions {
  bufferSize: number;
  maxSize: number;
  maxWaitMs: number;
  throttleEnable: boolean;
  throttleQps: number;
  throttleBurst: number;
}

/**
 * What process() answers when nothing waits for the event (batch mode): one
 * settled promise shared by every call, so the filter can tell it needs no
 * handler (a `.catch` per event cost a promise and a microtask per stage).
 */
export const EVENT_QUEUED: Promise<void> = Promise.resolve();

/** What the filter talks to: one or more backends behind their modes (or a channel to the thread that has them). */
export interface AuditSink {
  /** Whether requests must wait for their events (some backend is blocking). */
  readonly blocking: boolean;
  /**
   * Takes an event. Resolves once blocking backends wrote it; rejects only
   * when a blocking-strict backend failed (the caller decides what that means
   * for the request).
   */
  process(event: AuditEntry): Promise<void>;
  /**
   * True when every backend is in batch mode and takes encoded lines (the
   * log alone, JSON, no truncate plugin, no throttle): then the filter hands
   * over a turn's events with processLines, never waited for.
   */
  readonly acceptsLines: boolean;
  /**
   * Takes a turn's events as encoded JSON lines (only when acceptsLines).
   * `release` is called once the lines are written or dropped: their buffers
   * may then be used again (a sink that sends them elsewhere never calls it).
   */
  processLines(lines: EncodedLines, release?: () => void): void;
  close(): Promise<void>;
}

type Report = (err: unknown, what: string) => void;
/** Counts events a plugin lost (apiserver_audit_error_total{plugin}). */
type Lost = (plugin: string, events: number) => void;

/** How many of a failed write's events were lost (a split write may have written some). */
function lostCount(err: unknown, events: number): number {
  return err instanceof AuditWriteError ? err.lostEvents : events;
}

/**
 * Whether every event is handed to the backend as soon as it is queued: no
 * throttle, and a batch is sent when one event is in it or without waiting
 * (the log's defaults, `-batch-max-size=1`). Only then can events skip the
 * queue (addLines) without changing when they are written.
 */
export function batchesGoAtOnce(b: BatchOptions): boolean {
  return !b.throttleEnable && (b.maxSize <= 1 || b.maxWaitMs === 0);
}

function noop(): void {}

/** The batch mode: a bounded queue drained by one loop. */
export class BatchingBackend {
  readonly #queue: AuditEntry[] = [];
  #timer: NodeJS.Timeout | undefined;
  #sending: Promise<void> | undefined;
  #tokens: number;
  #lastRefill = performance.now();
  #closed = false;
  /** Events handed to the backend as lines and not yet written: they count against the buffer's size. */
  #linesInFlight = 0;
  dropped = 0;

  constructor(
    readonly backend: AuditBackend,
    readonly opts: BatchOptions,
    readonly report: Report,
    readonly lost: Lost = () => undefined,
  ) {
    this.#tokens = opts.throttleBurst;
  }

  add(event: AuditEntry): void {
    if (this.#closed) return;
    if (this.#queue.length + this.#linesInFlight >= this.opts.bufferSize) {
      this.#drop(1);
      return;
    }
    this.#queue.push(event);
    this.#schedule();
  }

  /** Whether addLines may be used: the backend takes lines, and batches go at once (batchesGoAtOnce). */
  get acceptsLines(): boolean {
    return this.backend.acceptsLines === true && this.backend.writeLines !== undefined && batchesGoAtOnce(this.opts);
  }

  /**
   * A turn's events as encoded lines, straight to the backend (which joins
   * whatever arrives before its next write). Bounded like the queue: lines
   * not yet written count against the buffer's size, and a set that does
   * not fit is dropped whole.
   */
  addLines(lines: EncodedLines, done: () => void = noop): void {
    if (this.#closed || lines.count === 0) {
      done();
      return;
    }
    if (this.#queue.length + this.#linesInFlight + lines.count > this.opts.bufferSize) {
      this.#drop(lines.count);
      done();
      return;
    }
    this.#linesInFlight += lines.count;
    this.backend.writeLines!(lines).then(
      () => {
        this.#linesInFlight -= lines.count;
        done();
      },
      (err: unknown) => {
        this.#linesInFlight -= lines.count;
        this.#failed(err, lines.count);
        done();
      },
    );
  }

  #drop(events: number): void {
    // The original drops too (and counts apiserver_audit_error_total): a stuck backend must not hold requests.
    const before = this.dropped;
    this.dropped += events;
    this.lost('buffered', events);
    if (before === 0 || Math.floor(before / 1000) !== Math.floor(this.dropped / 1000)) this.report(new Error(`audit buffer full: ${this.dropped} events dropped`), `audit backend ${this.backend.name}`);
  }

  #schedule(): void {
    if (this.#sending !== undefined) return;
    if (this.#queue.length >= this.opts.maxSize) {
      this.#clearTimer();
      this.#sending = this.#send().finally(() => {
        this.#sending = undefined;
        if (this.#queue.length > 0) this.#schedule();
      });
    } else if (this.#timer === undefined) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        if (this.#sending === undefined && this.#queue.length > 0) {
          this.#sending = this.#send().finally(() => {
            this.#sending = undefined;
            if (this.#queue.length > 0) this.#schedule();
          });
        }
      }, this.opts.maxWaitMs);
      this.#timer.unref();
    }
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  async #throttle(): Promise<void> {
    if (!this.opts.throttleEnable || this.opts.throttleQps <= 0) return;
    for (;;) {
      const now = performance.now();
      this.#tokens = Math.min(this.opts.throttleBurst, this.#tokens + ((now - this.#lastRefill) / 1000) * this.opts.throttleQps);
      this.#lastRefill = now;
      if (this.#tokens >= 1 || this.#closed) break;
      await new Promise((r) => setTimeout(r, Math.ceil(((1 - this.#tokens) / this.opts.throttleQps) * 1000)));
    }
    this.#tokens -= 1;
  }

  async #send(): Promise<void> {
    await this.#throttle();
    if (this.backend.pipelined === true && !this.opts.throttleEnable) {
      // Every full batch queued at once, in one call: the backend would join them anyway.
      const events = this.#queue.splice(0, this.#queue.length);
      await this.backend.write(events).catch((err: unknown) => this.#failed(err, events.length));
      return;
    }
    const batch = this.#queue.splice(0, this.opts.maxSize);
    if (batch.length === 0) return;
    try {
      await this.backend.write(batch);
    } catch (err) {
      this.#failed(err, batch.length);
    }
  }

  #failed(err: unknown, events: number): void {
    const n = lostCount(err, events);
    this.lost(this.backend.name, n);
    this.report(err, `audit backend ${this.backend.name}: ${n} events lost`);
  }

  async close(): Promise<void> {
    this.#clearTimer();
    while (this.#sending !== undefined) await this.#sending;
    this.#closed = true;
    while (this.#queue.length > 0) await this.#send();
    await this.backend.close();
  }
}

export interface ModedBackend {
  readonly backend: AuditBackend;
  readonly mode: AuditMode;
  readonly batch: BatchOptions;
  /** The truncate plugin's limits, when enabled for this backend. */
  readonly truncate?: TruncateOptions | undefined;
}

/** The sink of the thread that owns the backends. */
export class LocalAuditSink implements AuditSink {
  readonly blocking: boolean;
  readonly #batched: BatchingBackend[] = [];
  readonly #direct: { backend: AuditBackend; strict: boolean }[] = [];
  /** Where lost events are counted; set once the server's metrics exist. */
  metrics: AuditMetrics | undefined;

  constructor(
    backends: readonly ModedBackend[],
    readonly report: Report,
  ) {
    const lost: Lost = (plugin, events) => this.metrics?.error(plugin, events);
    for (const b of backends) {
      const backend =
        b.truncate?.enabled === true
          ? new TruncatingBackend(b.backend, b.truncate, (plugin, events, err) => {
              lost(plugin, events);
              report(err, `audit backend ${b.backend.name}: ${events} events dropped by the truncate plugin`);
            })
          : b.backend;
      if (b.mode === 'batch') this.#batched.push(new BatchingBackend(backend, b.batch, report, lost));
      else this.#direct.push({ backend, strict: b.mode === 'blocking-strict' });
    }
    this.blocking = this.#direct.length > 0;
    this.acceptsLines = this.#direct.length === 0 && this.#batched.length > 0 && this.#batched.every((b) => b.acceptsLines);
  }

  readonly acceptsLines: boolean;

  processLines(lines: EncodedLines, release: () => void = noop): void {
    if (this.acceptsLines) {
      // Released once every backend is done with the bytes.
      let left = this.#batched.length;
      const done = (): void => {
        if (--left === 0) release();
      };
      for (const b of this.#batched) b.addLines(lines, done);
      return;
    }
    // A sender that thought otherwise (a worker reads the options, this sink its backends): events one by one.
    const events = decodeLines(lines);
    release();
    for (const json of events) void this.process(jsonEntry(json)).catch(() => undefined);
  }

  process(event: AuditEntry): Promise<void> {
    for (const b of this.#batched) b.add(event);
    if (this.#direct.length === 0) return EVENT_QUEUED;
    return this.#writeDirect([event]);
  }

  /** Many events at once (from another thread's batch). */
  processMany(events: readonly AuditEntry[]): Promise<void> {
    // An empty message is a worker's last one (remote-sink.ts): an answer, not a write.
    if (events.length === 0) return Promise.resolve();
    for (const b of this.#batched) for (const e of events) b.add(e);
    if (this.#direct.length === 0) return Promise.resolve();
    return this.#writeDirect(events);
  }

  async #writeDirect(events: readonly AuditEntry[]): Promise<void> {
    let strictFailure: unknown;
    await Promise.all(
      this.#direct.map(async ({ backend, strict }) => {
        try {
          await backend.write(events);
        } catch (err) {
          this.metrics?.error(backend.name, lostCount(err, events.length));
          this.report(err, `audit backend ${backend.name}: write failed`);
          if (strict) strictFailure ??= err;
        }
      }),
    );
    if (strictFailure !== undefined) throw strictFailure;
  }

  get dropped(): number {
    return this.#batched.reduce((n, b) => n + b.dropped, 0);
  }

  async close(): Promise<void> {
    await Promise.all([...this.#batched.map((b) => b.close()), ...this.#direct.map((d) => d.backend.close())]);
  }
}
