/**
 * The original's priority-and-fairness metrics (k8s.io/apiserver
 * pkg/util/flowcontrol/metrics, v1.25): names, labels and buckets as there,
 * so its dashboards and alerts work. Each serving thread has its own seats
 * (see docs/architecture.md); the process's numbers are the threads' sums.
 *
 * Recorded on every request, so recorded cheaply: a FlowSeries per (flow
 * schema, priority level) holds plain numbers and bound histogram series
 * (request-series.ts), kept on the classified schema; prom-client sees them
 * only when scraped (collect), never builds or hashes labels per request.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import { RequestSeries, SeriesHistogram } from '../server/request-series.ts';
import type { RejectReason } from './queueset.ts';

const DURATION_BUCKETS = [0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30];
const QUEUE_LENGTH_BUCKETS = [0, 10, 25, 50, 100, 250, 500, 1000];
const REASONS: readonly RejectReason[] = ['queue-full', 'concurrency-limit', 'time-out', 'cancelled'];

type Observer = { observe(seconds: number): void };

/** The numbers of one (flow schema, priority level) pair; the filter changes them directly. */
export class FlowSeries {
  dispatched = 0;
  inQueue = 0;
  executing = 0;
  readonly rejected: Record<RejectReason, number> = { 'queue-full': 0, 'concurrency-limit': 0, 'time-out': 0, cancelled: 0 };

  constructor(
    readonly flowSchema: string,
    readonly priorityLevel: string,
    readonly waitExecuted: Observer,
    readonly waitRejected: Observer,
    readonly execution: Observer,
    readonly queueLengthAfterEnqueue: Observer,
  ) {}
}

export class FlowcontrolMetrics {
  readonly #series = new Map<string, FlowSeries>();
  readonly #limits = new Map<string, number>();
  readonly #wait = new RequestSeries(['execute', 'flow_schema', 'priority_level'], DURATION_BUCKETS);
  readonly #execution = new RequestSeries(['flow_schema', 'priority_level'], DURATION_BUCKETS);
  readonly #queueLength = new RequestSeries(['flow_schema', 'priority_level'], QUEUE_LENGTH_BUCKETS);

  constructor(registry: Registry) {
    const registers = [registry];
    const all = (): IterableIterator<FlowSeries> => this.#series.values();
    const limits = (): ReadonlyMap<string, number> => this.#limits;
    const fp = (s: FlowSeries): { flow_schema: string; priority_level: string } => ({ flow_schema: s.flowSchema, priority_level: s.priorityLevel });
    new Counter({
      name: 'apiserver_flowcontrol_rejected_requests_total',
      help: 'Number of requests rejected by API Priority and Fairness subsystem',
      labelNames: ['flow_schema', 'priority_level', 'reason'],
      registers,
      collect() {
        this.reset();
        for (const s of all()) for (const reason of REASONS) if (s.rejected[reason] > 0) this.inc({ ...fp(s), reason }, s.rejected[reason]);
      },
    });
    new Counter({
      name: 'apiserver_flowcontrol_dispatched_requests_total',
      help: 'Number of requests executed by API Priority and Fairness subsystem',
      labelNames: ['flow_schema', 'priority_level'],
      registers,
      collect() {
        this.reset();
        for (const s of all()) this.inc(fp(s), s.dispatched);
      },
    });
    new Gauge({
      name: 'apiserver_flowcontrol_current_inqueue_requests',
      help: 'Number of requests currently pending in queues of the API Priority and Fairness subsystem',
      labelNames: ['flow_schema', 'priority_level'],
      registers,
      collect() {
        for (const s of all()) this.set(fp(s), s.inQueue);
      },
    });
    new Gauge({
      name: 'apiserver_flowcontrol_current_executing_requests',
      help: 'Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution stage in the API Priority and Fairness subsystem',
      labelNames: ['flow_schema', 'priority_level'],
      registers,
      collect() {
        for (const s of all()) this.set(fp(s), s.executing);
      },
    });
    for (const [name, help] of [
      ['apiserver_flowcontrol_request_concurrency_limit', 'Shared concurrency limit in the API Priority and Fairness subsystem'],
      ['apiserver_flowcontrol_nominal_limit_seats', 'Nominal number of execution seats configured for each priority level'],
    ] as const) {
      new Gauge({
        name,
        help,
        labelNames: ['priority_level'],
        registers,
        collect() {
          this.reset();
          for (const [level, seats] of limits()) this.set({ priority_level: level }, seats);
        },
      });
    }
    new SeriesHistogram({ name: 'apiserver_flowcontrol_request_wait_duration_seconds', help: 'Length of time a request spent waiting in its queue', labelNames: ['execute', 'flow_schema', 'priority_level'], buckets: DURATION_BUCKETS, registers }).bind(this.#wait);
    new SeriesHistogram({ name: 'apiserver_flowcontrol_request_execution_seconds', help: 'Duration of initial stage (for a WATCH) or any (for a non-WATCH) stage of request execution in the API Priority and Fairness subsystem', labelNames: ['flow_schema', 'priority_level'], buckets: DURATION_BUCKETS, registers }).bind(this.#execution);
    new SeriesHistogram({ name: 'apiserver_flowcontrol_request_queue_length_after_enqueue', help: 'Length of queue in the API Priority and Fairness subsystem, as seen by each request after it is enqueued', labelNames: ['flow_schema', 'priority_level'], buckets: QUEUE_LENGTH_BUCKETS, registers }).bind(this.#queueLength);
  }

  /** The numbers of one pair, made on first use and kept (a level or schema that comes back continues its counts). */
  series(flowSchema: string, priorityLevel: string): FlowSeries {
    const key = `${flowSchema}\0${priorityLevel}`;
    let s = this.#series.get(key);
    if (s === undefined) {
      s = new FlowSeries(
        flowSchema,
        priorityLevel,
        this.#wait.bound(['true', flowSchema, priorityLevel]),
        this.#wait.bound(['false', flowSchema, priorityLevel]),
        this.#execution.bound([flowSchema, priorityLevel]),
        this.#queueLength.bound([flowSchema, priorityLevel]),
      );
      this.#series.set(key, s);
    }
    return s;
  }

  /** A level's seats in this thread (0 for exempt levels, which have no limit). */
  setLimit(priorityLevel: string, seats: number): void {
    this.#limits.set(priorityLevel, seats);
  }

  /** A level that no longer exists. */
  removeLevel(priorityLevel: string): void {
    this.#limits.delete(priorityLevel);
  }
}
