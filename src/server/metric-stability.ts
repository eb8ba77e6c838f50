/**
 * Metric stability as the original's component-base metrics have it (spec 9.2
 * rule 8): every metric of the server is registered with a stability class,
 * shown first in its help (`[STABLE] ...`, `[ALPHA] ...`); a deprecated one
 * says `(Deprecated since 1.x.0)` after it and is hidden (not registered) from
 * the release after its deprecation on, unless `--show-hidden-metrics-for-version`
 * names the previous minor release; `--disabled-metrics` leaves single
 * metrics unregistered. Process and runtime metrics (prom-client's default
 * collectors, as the original's Prometheus collectors) carry no class.
 *
 * Done in the registry, at registration: whatever registers a metric (this
 * server's metrics, the watch budget's, the thread counter) gets the policy.
 */
import { Registry, type Metric } from 'prom-client';

export type StabilityLevel = 'ALPHA' | 'BETA' | 'STABLE';

export interface MetricStability {
  readonly level: StabilityLevel;
  /** `1.29`: the release it was deprecated in. */
  readonly deprecatedVersion?: string;
}

/** The original's classes for the metrics this server shares with it; any other metric of ours is ALPHA. */
export const METRIC_STABILITY: Readonly<Record<string, MetricStability>> = {
  apiserver_request_total: { level: 'STABLE' },
  apiserver_request_duration_seconds: { level: 'STABLE' },
  apiserver_current_inflight_requests: { level: 'STABLE' },
  apiserver_longrunning_requests: { level: 'STABLE' },
  apiserver_requested_deprecated_apis: { level: 'STABLE' },
  apiserver_admission_webhook_rejection_count: { level: 'ALPHA' },
  apiserver_registered_watchers: { level: 'ALPHA' },
  etcd_request_duration_seconds: { level: 'ALPHA' },
};

/** Names of the default process/runtime collectors: no stability class, as the original's Prometheus collectors. */
const UNCLASSED = /^(process_|nodejs_)/;

export interface MetricsPolicy {
  /** `--disabled-metrics`. */
  readonly disabled: ReadonlySet<string>;
  /** `--show-hidden-metrics-for-version` was given (and valid). */
  readonly showHidden: boolean;
  /** The server's release: `{ major: 1, minor: 32 }`. */
  readonly current: { readonly major: number; readonly minor: number };
}

export class MetricsPolicyError extends Error {}

/** The original's check: only the previous minor release may be named. */
export function checkShowHiddenVersion(current: { major: number; minor: number }, value: string): void {
  if (value === '') return;
  const valid = `${current.major}.${current.minor - 1}`;
  if (value !== valid) throw new MetricsPolicyError(`--show-hidden-metrics-for-version must be omitted or have the value '${valid}'. Only the previous minor version is allowed`);
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

/** `--disabled-metrics` names must be fully qualified metric names. */
export function checkDisabledMetrics(names: readonly string[]): void {
  for (const n of names) if (!METRIC_NAME.test(n)) throw new MetricsPolicyError(`--disabled-metrics: '${n}' is not a valid metric name`);
}

/** Hidden from the release after the one it was deprecated in (component-base shouldHide). */
export function isHidden(current: { major: number; minor: number }, deprecatedVersion: string): boolean {
  const [major = 0, minor = 0] = deprecatedVersion.split('.').map(Number);
  return current.major > major || (current.major === major && current.minor >= minor + 1);
}

/** The help text as the original writes it. */
export function annotatedHelp(help: string, s: MetricStability): string {
  const deprecated = s.deprecatedVersion === undefined ? help : `(Deprecated since ${s.deprecatedVersion}.0) ${help}`;
  return `[${s.level}] ${deprecated}`;
}

/** A registry that applies the policy to every metric registered in it. */
export class PolicyRegistry extends Registry {
  readonly #policy: MetricsPolicy;
  readonly #table: Readonly<Record<string, MetricStability>>;
  /** Metrics left out by the policy, with why (`disabled`, `hidden`): for logs and tests. */
  readonly skipped = new Map<string, 'disabled' | 'hidden'>();

  constructor(policy: MetricsPolicy, table: Readonly<Record<string, MetricStability>> = METRIC_STABILITY) {
    super();
    this.#policy = policy;
    this.#table = table;
  }

  override registerMetric(metric: Metric): void {
    const m = metric as Metric & { name: string; help: string };
    if (this.#policy.disabled.has(m.name)) {
      this.skipped.set(m.name, 'disabled');
      return;
    }
    if (UNCLASSED.test(m.name)) return super.registerMetric(metric);
    const s = this.#table[m.name] ?? { level: 'ALPHA' };
    if (s.deprecatedVersion !== undefined && isHidden(this.#policy.current, s.deprecatedVersion) && !this.#policy.showHidden) {
      this.skipped.set(m.name, 'hidden');
      return;
    }
    // A metric object registered in two registries is annotated once.
    if (!m.help.startsWith(`[${s.level}] `)) m.help = annotatedHelp(m.help, s);
    super.registerMetric(metric);
  }
}
