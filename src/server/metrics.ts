/**
 * The server's Prometheus metrics, in a registry of our own (not prom-client's
 * global one, so tests and several servers in one process stay apart).
 * Names, labels and buckets follow the original's so existing dashboards and
 * SLO queries work: pkg/endpoints/metrics/metrics.go, the storage and watch
 * cache metrics, and spec 6.4 for admission webhooks.
 *
 * Code elsewhere records through the small methods here rather than touching
 * prom-client objects, so label order lives in one file.
 */
import { Counter, Gauge, Histogram, collectDefaultMetrics } from 'prom-client';
import { PolicyRegistry, type MetricsPolicy } from './metric-stability.ts';
import { VERSION_INFO } from '../endpoints/discovery.ts';
import type { RequestContext } from './context.ts';
import type { InflightSnapshot } from './filters/with-max-inflight.ts';
import { RequestSeries, SeriesCounter, SeriesHistogram } from './request-series.ts';
import { AuditMetricSet } from './audit-metrics.ts';

/** The original's request latency buckets (seconds), tuned for its SLOs. */
export const REQUEST_DURATION_BUCKETS: readonly number[] = [
  0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60,
];

/** Labels shared by the request counter, histogram and long-running gauge. */
export interface RequestLabels {
  readonly verb: string;
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly subresource: string;
  readonly scope: string;
  readonly component: string;
}

const REQUEST_LABELS = ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const;

export type WebhookOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
export type WebhookType = 'admit' | 'validating';
export type WebhookErrorType = 'calling_webhook_error' | 'no_error' | 'apiserver_internal_error';

export interface WebhookRejection {
  readonly name: string;
  readonly operation: WebhookOperation;
  readonly type: WebhookType;
  readonly errorType: WebhookErrorType;
  /** HTTP status from the webhook's response; above 600 is recorded as 600. */
  readonly rejectionCode: number;
}

export interface DeprecatedApi {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly subresource: string;
  readonly removedRelease: string;
}

export interface MetricsOptions {
  /** Process metrics (CPU, memory, event loop lag, ...); on by default. */
  readonly defaultMetrics?: boolean;
  /** `--disabled-metrics`, `--show-hidden-metrics-for-version` (metric-stability.ts); none disabled or shown by default. */
  readonly policy?: MetricsPolicy;
}

/** The server's release, as /version reports it: what hides deprecated metrics. */
export const CURRENT_RELEASE = { major: Number(VERSION_INFO.major), minor: Number(VERSION_INFO.minor) };

/**
 * Holds the registry, made from the options before the metric fields of
 * ApiserverMetrics initialise (they register in it as they are created).
 */
class PolicyHolder {
  readonly registry: PolicyRegistry;
  constructor(options: MetricsOptions) {
    this.registry = new PolicyRegistry(options.policy ?? { disabled: new Set(), showHidden: false, current: CURRENT_RELEASE });
  }
}

function requestLabelValues(l: RequestLabels): string[] {
  return [l.verb, l.group, l.version, l.resource, l.subresource, l.scope, l.component];
}

export class ApiserverMetrics extends PolicyHolder {

  /**
   * What requestTotal and requestDuration report, recorded without prom-client's per-call label work.
   * Record through observeRequest(): those two (and the storage histograms below) print only what their
   * RequestSeries holds, so their own inc()/observe() would go unreported.
   */
  readonly #requests = new RequestSeries(REQUEST_LABELS, REQUEST_DURATION_BUCKETS);

  readonly requestTotal = new SeriesCounter({
    name: 'apiserver_request_total',
    help: 'Counter of apiserver requests broken out for each verb, group, version, resource, scope, component, and HTTP response code.',
    labelNames: [...REQUEST_LABELS, 'code'],
    registers: [this.registry],
  }).bind(this.#requests);

  readonly requestDuration = new SeriesHistogram({
    name: 'apiserver_request_duration_seconds',
    help: 'Response latency distribution in seconds for each verb, group, version, resource, subresource, scope and component.',
    labelNames: REQUEST_LABELS,
    buckets: [...REQUEST_DURATION_BUCKETS],
    registers: [this.registry],
  }).bind(this.#requests);

  /**
   * Requests failed by an error of the server's own (not the client's): a
   * 500 answer, or an open watch ended with an ERROR event because an event
   * could not be encoded or sent. Each also has one error log line with its
   * audit ID. The original counts only the 500s (apiserver_request_total);
   * a watch already answered 200 needs a counter of its own.
   */
  readonly internalErrors = new Counter({
    name: 'apiserver_internal_errors_total',
    help: 'Counter of requests failed by an internal error (a 500 answer, or a watch ended with an ERROR event), broken out for each verb, group, version, resource, scope and component.',
    labelNames: REQUEST_LABELS,
    registers: [this.registry],
  });

  #inflightSource: (() => InflightSnapshot) | undefined;

  readonly currentInflightRequests: Gauge<'request_kind'>;

  readonly longRunningRequests = new Gauge({
    name: 'apiserver_longrunning_requests',
    help: 'Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component.',
    labelNames: REQUEST_LABELS,
    registers: [this.registry],
  });

  readonly registeredWatchers = new Gauge({
    name: 'apiserver_registered_watchers',
    help: 'Number of currently registered watchers for a given resources',
    labelNames: ['group', 'kind'],
    registers: [this.registry],
  });

  /** What storageRequestDuration and etcdRequestDuration report (one store a round trip, read by both). */
  readonly #storage = new RequestSeries(['operation', 'type'], REQUEST_DURATION_BUCKETS);

  readonly storageRequestDuration = new SeriesHistogram({
    name: 'apiserver_storage_request_duration_seconds',
    help: 'Storage request latency in seconds for each operation and object type.',
    labelNames: ['operation', 'type'],
    buckets: [...REQUEST_DURATION_BUCKETS],
    registers: [this.registry],
  }).bind(this.#storage);

  /** The same observations under the name older dashboards query. */
  readonly etcdRequestDuration = new SeriesHistogram({
    name: 'etcd_request_duration_seconds',
    help: 'Etcd request latency in seconds for each operation and object type.',
    labelNames: ['operation', 'type'],
    buckets: [...REQUEST_DURATION_BUCKETS],
    registers: [this.registry],
  }).bind(this.#storage);

  readonly shardQueueDepth = new Gauge({
    name: 'apiserver_shard_queue_depth',
    help: 'Number of requests waiting for a shard thread, per shard.',
    labelNames: ['shard'],
    registers: [this.registry],
  });

  readonly admissionWebhookRejections = new Counter({
    name: 'apiserver_admission_webhook_rejection_count',
    help: 'Admission webhook rejection count, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify an error type (calling_webhook_error or apiserver_internal_error if an error occurred; no_error otherwise) and optionally a non-zero rejection code if the webhook rejects the request with an HTTP status code (honored by the apiserver when the code is greater or equal to 400). Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.',
    labelNames: ['name', 'operation', 'type', 'error_type', 'rejection_code'],
    registers: [this.registry],
  });

  readonly requestedDeprecatedApis = new Gauge({
    name: 'apiserver_requested_deprecated_apis',
    help: 'Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.',
    labelNames: ['group', 'version', 'resource', 'subresource', 'removed_release'],
    registers: [this.registry],
    // Each serving thread sets its own; the process's answer is 1 if any thread saw the request.
    aggregator: 'max',
  });

  /** The audit filter's and backends' counts (audit-metrics.ts); registered whether or not auditing is on, as the original's. */
  readonly audit = new AuditMetricSet(this.registry);

  constructor(options: MetricsOptions = {}) {
    super(options);
    const getSource = (): (() => InflightSnapshot) | undefined => this.#inflightSource;
    this.currentInflightRequests = new Gauge({
      name: 'apiserver_current_inflight_requests',
      help: 'Maximal number of currently used inflight request limit of this apiserver per request kind in last second.',
      labelNames: ['request_kind'],
      registers: [this.registry],
      // Read at scrape time: the limiter keeps the numbers, the gauge only reports them.
      collect() {
        const snapshot = getSource()?.() ?? { readOnly: 0, mutating: 0 };
        this.set({ request_kind: 'readOnly' }, snapshot.readOnly);
        this.set({ request_kind: 'mutating' }, snapshot.mutating);
      },
    });
    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }

  /** One finished request: counter by code, latency histogram. */
  observeRequest(labels: RequestLabels, code: number, seconds: number): void {
    this.#requests.observe(requestLabelValues(labels), code, seconds);
  }

  /** One request failed by an internal error (see internalErrors). */
  recordInternalError(labels: RequestLabels): void {
    this.internalErrors.labels(...requestLabelValues(labels)).inc();
  }

  /** A long-running request began; call the returned function when it ends. */
  longRunningStarted(labels: RequestLabels): () => void {
    const child = this.longRunningRequests.labels(...requestLabelValues(labels));
    child.inc();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      child.dec();
    };
  }

  /** Where the in-flight gauge reads its numbers (the max-in-flight filter's counter). */
  setInflightSource(source: () => InflightSnapshot): void {
    this.#inflightSource = source;
  }

  /** The watch code reports how many watchers it holds per group and kind. */
  setRegisteredWatchers(group: string, kind: string, count: number): void {
    this.registeredWatchers.set({ group, kind }, count);
  }

  /** One storage round trip (`operation`: get, list, create, ...; `type`: the object type). */
  observeStorageRequest(operation: string, type: string, seconds: number): void {
    this.#storage.observe([operation, type], undefined, seconds);
  }

  setShardQueueDepth(shard: string | number, depth: number): void {
    this.shardQueueDepth.set({ shard: String(shard) }, depth);
  }

  recordWebhookRejection(r: WebhookRejection): void {
    this.admissionWebhookRejections.inc({
      name: r.name,
      operation: r.operation,
      type: r.type,
      error_type: r.errorType,
      rejection_code: String(Math.min(r.rejectionCode, 600)),
    });
  }

  markDeprecatedApiRequested(api: DeprecatedApi): void {
    this.requestedDeprecatedApis.set(
      { group: api.group, version: api.version, resource: api.resource, subresource: api.subresource, removed_release: api.removedRelease },
      1,
    );
  }

  /** Serves GET /metrics in the Prometheus text format. */
  readonly metricsHandler = async (ctx: RequestContext): Promise<void> => {
    const text = await this.registry.metrics();
    if (ctx.res.closed) return;
    ctx.res.writeHead(200, { 'content-type': this.registry.contentType });
    ctx.res.end(text);
  };
}

export function createMetrics(options: MetricsOptions = {}): ApiserverMetrics {
  return new ApiserverMetrics(options);
}
