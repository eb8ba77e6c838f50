/**
 * The original's priority-and-fairness metrics (k8s.io/apiserver
 * pkg/util/flowcontrol/metrics, v1.25): names, labels and buckets as there,
 * so its dashboards and alerts work. Each serving thread has its own seats
 * (see docs/architecture.md); the process's numbers are the threads' sums.
 *
 * Per (flow schema, priority level) the label children are made once and
 * kept on the classified schema, so recording costs no label lookup.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { RejectReason } from './queueset.ts';

const DURATION_BUCKETS = [0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30];
const QUEUE_LENGTH_BUCKETS = [0, 10, 25, 50, 100, 250, 500, 1000];

/** The children of one (flow schema, priority level) pair. */
export interface FlowSeries {
  readonly dispatched: Counter.Internal;
  readonly inQueue: Gauge.Internal<string>;
  readonly executing: Gauge.Internal<string>;
  readonly waitExecuted: Histogram.Internal<string>;
  readonly waitRejected: Histogram.Internal<string>;
  readonly execution: Histogram.Internal<string>;
  readonly queueLengthAfterEnqueue: Histogram.Internal<string>;
  readonly rejected: Readonly<Record<RejectReason, Counter.Internal>>;
}

export class FlowcontrolMetrics {
  readonly #rejected: Counter<string>;
  readonly #dispatched: Counter<string>;
  readonly #inQueue: Gauge<string>;
  readonly #executing: Gauge<string>;
  readonly #wait: Histogram<string>;
  readonly #execution: Histogram<string>;
  readonly #queueLength: Histogram<string>;
  readonly #concurrencyLimit: Gauge<string>;
  readonly #nominalLimit: Gauge<string>;
  readonly #series = new Map<string, FlowSeries>();

  constructor(registry: Registry) {
    const registers = [registry];
    this.#rejected = new Counter({ name: 'apiserver_flowcontrol_rejected_requests_total', help: 'Number of requests rejected by API Priority and Fairness subsystem', labelNames: ['flow_schema', 'priority_level', 'reason'], registers });
    this.#dispatched = new Counter({ name: 'apiserver_flowcontrol_dispatched_requests_total', help: 'Number of requests executed by API Priority and Fairness subsystem', labelNames: ['flow_schema', 'priority_level'], registers });
    this.#inQueue = new Gauge({ name: 'apiserver_flowcontrol_current_inqueue_requests', help: 'Number of requests currently pending in queues of the API Priority and Fairness subsystem', labelNames: ['flow_schema', 'priority_level'], registers });
    this.#executing = new Gauge({ name: 'apiserver_flowcontrol_current_executing_requests', help: 'Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution stage in the API Priority and Fairness subsystem', labelNames: ['flow_schema', 'priority_level'], registers });
    this.#wait = new Histogram({ name: 'apiserver_flowcontrol_request_wait_duration_seconds', help: 'Length of time a request spent waiting in its queue', labelNames: ['execute', 'flow_schema', 'priority_level'], buckets: DURATION_BUCKETS, registers });
    this.#execution = new Histogram({ name: 'apiserver_flowcontrol_request_execution_seconds', help: 'Duration of initial stage (for a WATCH) or any (for a non-WATCH) stage of request execution in the API Priority and Fairness subsystem', labelNames: ['flow_schema', 'priority_level'], buckets: DURATION_BUCKETS, registers });
    this.#queueLength = new Histogram({ name: 'apiserver_flowcontrol_request_queue_length_after_enqueue', help: 'Length of queue in the API Priority and Fairness subsystem, as seen by each request after it is enqueued', labelNames: ['flow_schema', 'priority_level'], buckets: QUEUE_LENGTH_BUCKETS, registers });
    this.#concurrencyLimit = new Gauge({ name: 'apiserver_flowcontrol_request_concurrency_limit', help: 'Shared concurrency limit in the API Priority and Fairness subsystem', labelNames: ['priority_level'], registers });
    this.#nominalLimit = new Gauge({ name: 'apiserver_flowcontrol_nominal_limit_seats', help: 'Nominal number of execution seats configured for each priority level', labelNames: ['priority_level'], registers });
  }

  /** The children for one pair, made on first use and kept. */
  series(flowSchema: string, priorityLevel: string): FlowSeries {
    const key = `${flowSchema}\0${priorityLevel}`;
    let s = this.#series.get(key);
    if (s === undefined) {
      const fp = [flowSchema, priorityLevel];
      const rejected = (reason: RejectReason): Counter.Internal => this.#rejected.labels(flowSchema, priorityLevel, reason);
      s = {
        dispatched: this.#dispatched.labels(...fp),
        inQueue: this.#inQueue.labels(...fp),
        executing: this.#executing.labels(...fp),
        waitExecuted: this.#wait.labels('true', ...fp),
        waitRejected: this.#wait.labels('false', ...fp),
        execution: this.#execution.labels(...fp),
        queueLengthAfterEnqueue: this.#queueLength.labels(...fp),
        rejected: { 'queue-full': rejected('queue-full'), 'concurrency-limit': rejected('concurrency-limit'), 'time-out': rejected('time-out'), cancelled: rejected('cancelled') },
      };
      this.#series.set(key, s);
    }
    return s;
  }

  /** A level's seats in this thread (0 for exempt levels, which have no limit). */
  setLimit(priorityLevel: string, seats: number): void {
    this.#concurrencyLimit.set({ priority_level: priorityLevel }, seats);
    this.#nominalLimit.set({ priority_level: priorityLevel }, seats);
  }

  /** A level that no longer exists. */
  removeLevel(priorityLevel: string): void {
    this.#concurrencyLimit.remove(priorityLevel);
    this.#nominalLimit.remove(priorityLevel);
  }
}
