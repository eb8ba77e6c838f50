/**
 * HealthChecks: the named checks behind /healthz, /livez and /readyz, as the
 * original's GenericAPIServer keeps them (AddHealthChecks, AddLivezChecks,
 * AddReadyzChecks).
 *
 * - kind `healthz`: shown on all three endpoints (ping, log, storage, ...);
 * - kind `livez`: /livez only (is the process alive; failing means restart);
 * - kind `readyz`: /readyz only (can it take traffic: informer-sync, shards,
 *   poststarthook/...).
 *
 * `ping` is always there. /readyz always ends with `shutdown`, which fails as
 * soon as markShuttingDown() is called, so load balancers stop sending
 * traffic while /livez keeps passing during the graceful shutdown delay.
 */

export type HealthCheckKind = 'healthz' | 'livez' | 'readyz';
export type HealthEndpoint = 'healthz' | 'livez' | 'readyz';
/** Resolves (or returns) when healthy; throws with the reason otherwise. */
export type HealthCheck = () => Promise<void> | void;

export interface NamedHealthCheck {
  readonly name: string;
  readonly check: HealthCheck;
}

const KIND_ENDPOINTS: Readonly<Record<HealthCheckKind, readonly HealthEndpoint[]>> = {
  healthz: ['healthz', 'livez', 'readyz'],
  livez: ['livez'],
  readyz: ['readyz'],
};

export interface HealthChecksOptions {
  /** The process's shutdown phase (lifecycle.ts), shared by every serving thread. */
  readonly shuttingDown?: () => boolean;
  /** `--livez-grace-period`: how long /livez counts boot-sequence checks as ok after they are added. */
  readonly livezGracePeriodMs?: number;
  readonly now?: () => number;
}

export class HealthChecks {
  readonly #byEndpoint: Record<HealthEndpoint, NamedHealthCheck[]> = { healthz: [], livez: [], readyz: [] };
  #shuttingDown = false;
  readonly #opts: HealthChecksOptions;
  readonly #shutdownCheck: NamedHealthCheck = {
    name: 'shutdown',
    check: () => {
      if (this.shuttingDown) throw new Error('process is shutting down');
    },
  };

  constructor(opts: HealthChecksOptions = {}) {
    this.#opts = opts;
    this.add('healthz', 'ping', () => {});
  }

  /**
   * A check of the start-up sequence (the original's AddBootSequenceHealthChecks,
   * post-start hooks): on all three endpoints, but /livez counts it as ok
   * for `--livez-grace-period` after it is added, so a long start is not
   * taken for a dead process; /readyz fails until it passes.
   */
  addBootSequence(name: string, check: HealthCheck): void {
    const now = this.#opts.now ?? Date.now;
    const liveFrom = now() + (this.#opts.livezGracePeriodMs ?? 0);
    this.add('readyz', name, check);
    this.#byEndpoint.healthz.push({ name, check });
    this.#byEndpoint.livez.push({ name, check: () => (now() >= liveFrom ? check() : undefined) });
  }

  /** Registers a check; a name may appear once per endpoint (it is also the check's URL). */
  add(kind: HealthCheckKind, name: string, check: HealthCheck): void {
    if (name === '' || name === this.#shutdownCheck.name) throw new Error(`health check name ${JSON.stringify(name)} is reserved or empty`);
    for (const endpoint of KIND_ENDPOINTS[kind]) {
      if (this.#byEndpoint[endpoint].some((c) => c.name === name)) {
        throw new Error(`health check ${JSON.stringify(name)} is already registered for /${endpoint}`);
      }
    }
    for (const endpoint of KIND_ENDPOINTS[kind]) this.#byEndpoint[endpoint].push({ name, check });
  }

  /** From now on /readyz fails; /livez and /healthz are unaffected. */
  markShuttingDown(): void {
    this.#shuttingDown = true;
  }

  get shuttingDown(): boolean {
    return this.#shuttingDown || (this.#opts.shuttingDown?.() ?? false);
  }

  /** The checks of an endpoint in registration order (readyz: `shutdown` last). */
  checksFor(endpoint: HealthEndpoint): readonly NamedHealthCheck[] {
    const checks = this.#byEndpoint[endpoint];
    return endpoint === 'readyz' ? [...checks, this.#shutdownCheck] : checks;
  }
}
