/**
 * apiserver_request_total and apiserver_request_duration_seconds (and the
 * storage latency histograms, the same way), recorded on every request: a Map lookup and a few additions per observation, where
 * prom-client's labels()/observe()/inc() build label objects, validate them
 * and hash them, twice a request (~3-5 µs of a ~60 µs get in the profile).
 * The numbers are turned into prom-client's shape only when scraped, by the
 * two metric classes below (prom-client Counter and Histogram whose values
 * come from here), so /metrics prints exactly what prom-client printed.
 */
import { Counter, Histogram, type Aggregator, type HistogramConfiguration } from 'prom-client';

type Values = Awaited<ReturnType<Counter<string>['get']>>['values'];

interface Series {
  readonly labels: Readonly<Record<string, string>>;
  /** Observations per bucket (not cumulative), in bound order; above the last bound only in `count`. */
  readonly buckets: Float64Array;
  sum: number;
  count: number;
  /** Requests per HTTP status code. */
  readonly codes: Map<number, number>;
}

/** A level of the series tree: the next label's values, to the next level or, at the last label, to the series. */
type SeriesLevel = Map<string, SeriesLevel | Series>;

interface SeriesState {
  readonly root: SeriesLevel;
  /** Every series, in the order first observed (the order /metrics prints them in). */
  readonly all: Series[];
}

function newState(): SeriesState {
  return { root: new Map(), all: [] };
}

export class RequestSeries {
  readonly #labelNames: readonly string[];
  readonly #bounds: readonly number[];
  /**
   * Series by their label values, one Map level per label: the values are
   * looked up one by one (most are literals whose hashes V8 keeps), where a
   * joined key was a new string to build and hash on every request
   * (~1,800 instructions a request under callgrind, against ~700).
   */
  #state: SeriesState = newState();

  constructor(labelNames: readonly string[], bounds: readonly number[]) {
    this.#labelNames = labelNames;
    this.#bounds = [...bounds].sort((a, b) => a - b);
  }

  /** One finished request: label values in labelNames order, its status code (none for a histogram alone), its latency. */
  observe(values: readonly string[], code: number | undefined, seconds: number): void {
    const s = this.#seriesOf(values);
    if (code !== undefined) s.codes.set(code, (s.codes.get(code) ?? 0) + 1);
    this.#record(s, seconds);
  }

  /**
   * The series of fixed label values, for a caller that observes into it
   * often (priority and fairness, per flow schema and level): no key is
   * built per observation. A reset() detaches handles made before it.
   */
  bound(values: readonly string[]): { observe(seconds: number): void } {
    let s = this.#seriesOf(values);
    let state = this.#state;
    return {
      observe: (seconds) => {
        if (state !== this.#state) {
          s = this.#seriesOf(values);
          state = this.#state;
        }
        this.#record(s, seconds);
      },
    };
  }

  #seriesOf(values: readonly string[]): Series {
    const state = this.#state;
    const names = this.#labelNames;
    let level: SeriesLevel = state.root;
    // One level per label name; a missing value counts as '' (as the label is then printed).
    for (let i = 0; i < names.length - 1; i++) {
      const value = values[i] ?? '';
      let next = level.get(value) as SeriesLevel | undefined;
      if (next === undefined) {
        next = new Map();
        level.set(value, next);
      }
      level = next;
    }
    const last = values[names.length - 1] ?? '';
    let s = level.get(last) as Series | undefined;
    if (s === undefined) {
      const labels: Record<string, string> = {};
      names.forEach((name, i) => (labels[name] = values[i] ?? ''));
      s = { labels, buckets: new Float64Array(this.#bounds.length), sum: 0, count: 0, codes: new Map() };
      level.set(last, s);
      state.all.push(s);
    }
    return s;
  }

  #record(s: Series, seconds: number): void {
    // prom-client refuses a non-finite latency; a clock oddity must not fail a request.
    if (!Number.isFinite(seconds)) return;
    const bounds = this.#bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (seconds <= bounds[i]!) {
        s.buckets[i]!++;
        break;
      }
    }
    s.sum += seconds;
    s.count++;
  }

  reset(): void {
    this.#state = newState();
  }

  /** The counter's values as prom-client's Counter.get() gives them (labels, then code). */
  counterValues(): Values {
    const out: Values = [];
    for (const s of this.#state.all) {
      for (const [code, n] of s.codes) out.push({ labels: { ...s.labels, code: String(code) }, value: n });
    }
    return out;
  }

  /**
   * The histogram's values in the form prom-client's Histogram builds for the
   * text format (getForPromString): `le` in labels, the series' labels
   * shared; buckets cumulative, then +Inf, sum and count.
   */
  histogramValues(name: string): PromStringValue[] {
    const out: PromStringValue[] = [];
    const bucket = `${name}_bucket`;
    for (const s of this.#state.all) {
      if (s.count === 0) continue;
      let acc = 0;
      this.#bounds.forEach((le, i) => {
        acc += s.buckets[i]!;
        out.push({ labels: { le }, sharedLabels: s.labels, value: acc, metricName: bucket, exemplar: null });
      });
      out.push({ labels: { le: '+Inf' }, sharedLabels: s.labels, value: s.count, metricName: bucket, exemplar: null });
      out.push({ labels: {}, sharedLabels: s.labels, value: s.sum, metricName: `${name}_sum` });
      out.push({ labels: {}, sharedLabels: s.labels, value: s.count, metricName: `${name}_count` });
    }
    return out;
  }
}

/** One value as prom-client's histogram hands it to the registry's text formatter. */
export interface PromStringValue {
  readonly labels: Record<string, string | number>;
  readonly sharedLabels: Readonly<Record<string, string>>;
  readonly value: number;
  readonly metricName: string;
  /** prom-client's buckets carry one (null without exemplars); sum and count none. */
  readonly exemplar?: null;
}

/** A prom-client Counter (registered, typed, scraped as one) whose values are a RequestSeries' codes. */
export class SeriesCounter<T extends string> extends Counter<T> {
  #source: RequestSeries | undefined;

  bind(source: RequestSeries): this {
    this.#source = source;
    return this;
  }

  override async get(): ReturnType<Counter<T>['get']> {
    const base = await super.get();
    return { ...base, values: (this.#source?.counterValues() ?? base.values) as typeof base.values };
  }

  override reset(): void {
    super.reset();
    // prom-client's constructor resets before this class's fields exist.
    if (#source in this) this.#source?.reset();
  }
}

/**
 * A prom-client Histogram whose values are a RequestSeries' latencies. The
 * registry reads getForPromString() when present, and prom-client's get()
 * builds its JSON form from it too: answering that one method serves both.
 */
export class SeriesHistogram<T extends string> extends Histogram<T> {
  #source: RequestSeries | undefined;
  readonly #name: string;
  readonly #help: string;
  readonly #aggregator: Aggregator;

  constructor(config: HistogramConfiguration<T>) {
    super(config);
    this.#name = config.name;
    this.#help = config.help;
    this.#aggregator = config.aggregator ?? 'sum';
  }

  bind(source: RequestSeries): this {
    this.#source = source;
    return this;
  }

  async getForPromString(): Promise<{ name: string; help: string; type: 'histogram'; values: PromStringValue[]; aggregator: Aggregator }> {
    return { name: this.#name, help: this.#help, type: 'histogram', values: this.#source?.histogramValues(this.#name) ?? [], aggregator: this.#aggregator };
  }

  override reset(): void {
    super.reset();
    // prom-client's constructor resets before this class's fields exist.
    if (#source in this) this.#source?.reset();
  }
}
