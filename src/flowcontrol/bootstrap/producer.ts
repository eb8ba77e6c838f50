/**
 * ConfigProducer runs the bootstrap ensurer (ensure.ts) as the original's
 * `priority-and-fairness-config-producer` post-start hook does: a first pass
 * at start, retried every second while it fails (bounded: after
 * {@link ProducerTimings.initialRetryWindowMs} it falls back to the resync
 * interval, logging each failure), then a pass every
 * {@link ProducerTimings.resyncMs} for as long as the server runs, so a
 * deleted mandatory object comes back and a suggested one marked for
 * auto-update is reset without a restart. Passes never overlap.
 */
import { ensureBootstrapConfiguration, type EnsureReport, type FlowcontrolTypes } from './ensure.ts';
import type { GenericStore } from '../../registry/generic-store.ts';

export interface ProducerLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface ProducerTimings {
  /** Between failed passes at start (the original polls every second). */
  retryMs: number;
  /** How long the start keeps retrying every retryMs (the original's hook waits 5 minutes). */
  initialRetryWindowMs: number;
  /** Between passes once one succeeded (the original re-ensures every minute). */
  resyncMs: number;
}

export const DEFAULT_PRODUCER_TIMINGS: ProducerTimings = { retryMs: 1000, initialRetryWindowMs: 5 * 60_000, resyncMs: 60_000 };

export class ConfigProducer {
  readonly #store: GenericStore;
  readonly #types: FlowcontrolTypes;
  readonly #log: ProducerLogger;
  readonly #timings: ProducerTimings;
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<EnsureReport> | null = null;
  #succeeded = false;
  #startedAt = 0;
  #stopped = false;

  constructor(store: GenericStore, types: FlowcontrolTypes, log: ProducerLogger, timings: Partial<ProducerTimings> = {}) {
    this.#store = store;
    this.#types = types;
    this.#log = log;
    this.#timings = { ...DEFAULT_PRODUCER_TIMINGS, ...timings };
  }

  /** True once a pass has gone through: the post-start hook's readiness. */
  get succeeded(): boolean {
    return this.#succeeded;
  }

  /** Makes the first pass (resolves whether or not it worked) and schedules the next ones. */
  async start(): Promise<void> {
    this.#startedAt = Date.now();
    await this.#tick();
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }

  /** One pass now (after the running one, if any); throws what the pass threw. */
  async ensureNow(): Promise<EnsureReport> {
    while (this.#running !== null) await this.#running.catch(() => undefined);
    const pass = ensureBootstrapConfiguration(this.#store, this.#types);
    this.#running = pass;
    try {
      const report = await pass;
      this.#succeeded = true;
      return report;
    } finally {
      this.#running = null;
    }
  }

  async #tick(): Promise<void> {
    if (this.#stopped) return;
    let ok = false;
    try {
      const report = await this.ensureNow();
      ok = true;
      if (report.created.length + report.updated.length + report.deleted.length > 0) {
        this.#log.info({ created: report.created.length, updated: report.updated, deleted: report.deleted }, 'APF bootstrap configuration ensured');
      }
    } catch (err) {
      this.#log.warn({ err: err instanceof Error ? err.message : String(err) }, 'APF bootstrap ensurer ran into an error, will retry later');
    }
    if (this.#stopped) return;
    const retrying = !this.#succeeded && !ok && Date.now() - this.#startedAt < this.#timings.initialRetryWindowMs;
    this.#timer = setTimeout(() => void this.#tick(), retrying ? this.#timings.retryMs : this.#timings.resyncMs);
    this.#timer.unref();
  }
}
