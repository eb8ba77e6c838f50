/**
 * The original's audit metrics (staging/src/k8s.io/apiserver/pkg/audit/metrics.go):
 * - apiserver_audit_event_total: events generated and handed to the backends;
 * - apiserver_audit_level_total{level}: the policy's level, one per request
 *   (None included), when auditing is on;
 * - apiserver_audit_error_total{plugin}: events lost (plugin `buffered` for a
 *   full buffer, `log` / `webhook` for a failed write, `truncate` for one too
 *   big to send);
 * - apiserver_audit_requests_rejected_total: requests failed because their
 *   RequestReceived event could not be stored (blocking-strict).
 *
 * Counted in plain numbers (a request pays an increment, not prom-client's
 * label hashing) and copied into the counters at scrape time. Each serving
 * thread counts its own requests' events and levels; the main thread, which
 * owns the backends, counts the errors; the process's /metrics sums them.
 */
import { Counter, type Registry } from 'prom-client';
import { LEVELS, type AuditMetrics, type Level } from '../audit/types.ts';

export class AuditMetricSet implements AuditMetrics {
  #events = 0;
  #rejected = 0;
  readonly #levels: Record<Level, number> = { None: 0, Metadata: 0, Request: 0, RequestResponse: 0 };
  readonly #errors = new Map<string, number>();

  constructor(registry: Registry) {
    const read = {
      events: (): number => this.#events,
      rejected: (): number => this.#rejected,
      levels: (): Record<Level, number> => this.#levels,
      errors: (): ReadonlyMap<string, number> => this.#errors,
    };
    new Counter({
      name: 'apiserver_audit_event_total',
      help: 'Counter of audit events generated and sent to the audit backend.',
      registers: [registry],
      collect() {
        this.reset();
        this.inc(read.events());
      },
    });
    new Counter({
      name: 'apiserver_audit_error_total',
      help: 'Counter of audit events that failed to be audited properly. Plugin identifies the plugin affected by the error.',
      labelNames: ['plugin'],
      registers: [registry],
      collect() {
        this.reset();
        for (const [plugin, n] of read.errors()) this.inc({ plugin }, n);
      },
    });
    new Counter({
      name: 'apiserver_audit_level_total',
      help: 'Counter of policy levels for audit events (1 per request).',
      labelNames: ['level'],
      registers: [registry],
      collect() {
        this.reset();
        const levels = read.levels();
        for (const level of LEVELS) if (levels[level] > 0) this.inc({ level }, levels[level]);
      },
    });
    new Counter({
      name: 'apiserver_audit_requests_rejected_total',
      help: 'Counter of apiserver requests rejected due to an error in audit logging backend.',
      registers: [registry],
      collect() {
        this.reset();
        this.inc(read.rejected());
      },
    });
  }

  event(): void {
    this.#events++;
  }

  level(level: Level): void {
    this.#levels[level]++;
  }

  error(plugin: string, events: number): void {
    this.#errors.set(plugin, (this.#errors.get(plugin) ?? 0) + events);
  }

  rejected(): void {
    this.#rejected++;
  }
}
