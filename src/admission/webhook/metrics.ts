/**
 * What webhook calls report (spec 6.4): the rejection counter (registered
 * by the server's metrics) and the original's per-webhook latency histogram
 * `apiserver_admission_webhook_admission_duration_seconds`, registered here
 * on the thread's registry the first time it is needed.
 */
import { Histogram } from 'prom-client';
import type { ApiserverMetrics, WebhookErrorType, WebhookType } from '../../server/metrics.ts';
import type { Operation } from '../types.ts';

const histograms = new WeakMap<ApiserverMetrics, Histogram<'name' | 'type' | 'operation' | 'rejected'>>();

export interface WebhookMetrics {
  observe(name: string, type: WebhookType, op: Operation, seconds: number, rejected: boolean): void;
  reject(name: string, type: WebhookType, op: Operation, errorType: WebhookErrorType, code: number): void;
}

export function webhookMetrics(get: () => ApiserverMetrics | undefined): WebhookMetrics {
  const histogram = (): Histogram<'name' | 'type' | 'operation' | 'rejected'> | undefined => {
    const m = get();
    if (m === undefined) return undefined;
    let h = histograms.get(m);
    if (h === undefined) {
      const existing = m.registry.getSingleMetric('apiserver_admission_webhook_admission_duration_seconds');
      h =
        (existing as Histogram<'name' | 'type' | 'operation' | 'rejected'> | undefined) ??
        new Histogram({
          name: 'apiserver_admission_webhook_admission_duration_seconds',
          help: 'Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).',
          labelNames: ['name', 'type', 'operation', 'rejected'],
          buckets: [0.005, 0.025, 0.1, 0.5, 1, 2.5, 10, 25],
          registers: [m.registry],
        });
      histograms.set(m, h);
    }
    return h;
  };
  return {
    observe(name, type, op, seconds, rejected) {
      histogram()?.observe({ name, type, operation: op, rejected: String(rejected) }, seconds);
    },
    reject(name, type, op, errorType, code) {
      get()?.recordWebhookRejection({ name, operation: op, type, errorType, rejectionCode: code });
    },
  };
}
