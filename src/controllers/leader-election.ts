/**
 * Leader election on a Lease (coordination.<suffix>/v1), the algorithm of
 * client-go's tools/leaderelection with its LeaseLock:
 *
 * - a candidate reads the Lease; an absent one is created with itself as
 *   holder; a held one whose record has not changed for the record's
 *   leaseDurationSeconds, measured on the candidate's OWN clock from when it
 *   last saw the record change (so clock skew between servers does not
 *   matter), or one with no holder (released), is taken over with a
 *   compare-and-swap update on its resourceVersion (transitions + 1);
 * - the leader renews every retry period; if no renewal succeeds within the
 *   renew deadline it stops leading (onStoppedLeading) and competes again
 *   (the original's controller manager exits instead; a server keeps serving);
 * - stop() releases a held lease (holder "", duration 1 s), so another
 *   server takes over at once rather than after the lease duration.
 *
 * Writes go through the generic store like any client's, as the given user.
 * Defaults are the controller manager's: 15 s lease, 10 s renew deadline,
 * 2 s retry period.
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { GenericStore } from '../registry/generic-store.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { ResourceType } from '../registry/resource-type.ts';
import type { KObject } from '../registry/object.ts';
import type { UserInfo } from '../server/context.ts';
import { StatusError } from '../api/status.ts';
import { apiGroup } from '../naming/index.ts';

export interface ElectionLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/**
 * The lease the in-server controllers are elected on: the controller
 * manager's, whose name the default RBAC policy grants to its user.
 */
export const CONTROLLER_MANAGER_LEASE = 'kube-controller-manager';

export interface LeaderElectionTimings {
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

/** The controller manager's defaults (--leader-elect-lease-duration, -renew-deadline, -retry-period). */
export const DEFAULT_LEADER_ELECTION: LeaderElectionTimings = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

export interface LeaderElectionConfig extends LeaderElectionTimings {
  store: GenericStore;
  registry: ResourceRegistry;
  namespace: string;
  name: string;
  /** Unique per candidate; default `<hostname>_<uuid>` as the original's. */
  identity?: string;
  user: UserInfo;
  log: ElectionLogger;
  onStartedLeading(): void | Promise<void>;
  onStoppedLeading(): void | Promise<void>;
  /** Clock, for tests. */
  now?: () => number;
}

interface LeaseRecord {
  holderIdentity: string;
  leaseDurationSeconds: number;
  acquireTime: string;
  renewTime: string;
  leaseTransitions: number;
}

/** metav1.MicroTime as it is serialized: RFC 3339 with microseconds. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

function recordOf(lease: KObject): LeaseRecord {
  const spec = (lease['spec'] ?? {}) as Record<string, unknown>;
  return {
    holderIdentity: typeof spec['holderIdentity'] === 'string' ? spec['holderIdentity'] : '',
    leaseDurationSeconds: typeof spec['leaseDurationSeconds'] === 'number' ? spec['leaseDurationSeconds'] : 0,
    acquireTime: typeof spec['acquireTime'] === 'string' ? spec['acquireTime'] : '',
    renewTime: typeof spec['renewTime'] === 'string' ? spec['renewTime'] : '',
    leaseTransitions: typeof spec['leaseTransitions'] === 'number' ? spec['leaseTransitions'] : 0,
  };
}

export class LeaderElector {
  readonly identity: string;
  readonly #cfg: LeaderElectionConfig;
  readonly #leases: ResourceType;
  readonly #now: () => number;
  #observedRecord = '';
  #observedTime = 0;
  #leading = false;
  #stopped = true;
  #timer: NodeJS.Timeout | undefined;
  #lastRenew = 0;
  /** The loop step in progress, awaited by stop(). */
  #step: Promise<void> = Promise.resolve();

  constructor(cfg: LeaderElectionConfig) {
    if (!(cfg.leaseDurationMs > cfg.renewDeadlineMs && cfg.renewDeadlineMs > cfg.retryPeriodMs && cfg.retryPeriodMs > 0)) {
      throw new Error('leader election: leaseDuration must be greater than renewDeadline, and renewDeadline greater than retryPeriod (> 0)');
    }
    const leases = cfg.registry.lookup(apiGroup('coordination'), 'v1', 'leases');
    if (leases === undefined) throw new Error('leases are not served: leader election needs coordination/v1');
    this.#cfg = cfg;
    this.#leases = leases;
    this.#now = cfg.now ?? Date.now;
    this.identity = cfg.identity ?? `${hostname()}_${randomUUID()}`;
  }

  get isLeader(): boolean {
    return this.#leading;
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#schedule(0);
  }

  /** Stops competing; a leader stops leading (onStoppedLeading) and releases the lease. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#step;
    if (this.#leading) {
      this.#leading = false;
      await this.#safely(() => this.#cfg.onStoppedLeading(), 'onStoppedLeading failed');
      await this.#release();
    }
  }

  #schedule(delayMs: number): void {
    if (this.#stopped) return;
    // client-go jitters the acquire retry by up to 1.2x so candidates do not move in lockstep.
    const jittered = this.#leading || delayMs === 0 ? delayMs : delayMs * (1 + Math.random() * 0.2);
    this.#timer = setTimeout(() => {
      this.#step = this.#tick();
    }, jittered);
    this.#timer.unref();
  }

  async #tick(): Promise<void> {
    const ok = await this.#tryAcquireOrRenew().catch((err: unknown) => {
      this.#cfg.log.warn({ lease: this.#leaseName(), err: err instanceof Error ? err.message : String(err) }, 'error retrieving or updating the leader election lease');
      return false;
    });
    if (this.#stopped) return;
    const now = this.#now();
    if (ok) {
      this.#lastRenew = now;
      if (!this.#leading) {
        this.#leading = true;
        this.#cfg.log.info({ lease: this.#leaseName(), identity: this.identity }, 'successfully acquired lease');
        await this.#safely(() => this.#cfg.onStartedLeading(), 'onStartedLeading failed');
      }
    } else if (this.#leading && now - this.#lastRenew > this.#cfg.renewDeadlineMs) {
      this.#leading = false;
      this.#cfg.log.warn({ lease: this.#leaseName(), identity: this.identity }, 'leader election lost: the lease was not renewed within the renew deadline');
      await this.#safely(() => this.#cfg.onStoppedLeading(), 'onStoppedLeading failed');
    }
    this.#schedule(this.#cfg.retryPeriodMs);
  }

  async #safely(fn: () => void | Promise<void>, what: string): Promise<void> {
    try {
      await fn();
    } catch (err) {
      this.#cfg.log.warn({ lease: this.#leaseName(), err: err instanceof Error ? err.message : String(err) }, what);
    }
  }

  #leaseName(): string {
    return `${this.#cfg.namespace}/${this.#cfg.name}`;
  }

  #opts() {
    return { user: this.#cfg.user, dryRun: false, fieldManager: 'leader-election' };
  }

  #lease(record: LeaseRecord, resourceVersion?: string): KObject {
    const metadata: KObject['metadata'] = { name: this.#cfg.name, namespace: this.#cfg.namespace };
    if (resourceVersion !== undefined) metadata.resourceVersion = resourceVersion;
    return { apiVersion: `${apiGroup('coordination')}/v1`, kind: 'Lease', metadata, spec: { ...record } };
  }

  /** One round of client-go's tryAcquireOrRenew; true when this candidate holds the lease afterwards. */
  async #tryAcquireOrRenew(): Promise<boolean> {
    const now = this.#now();
    const durationSeconds = Math.max(1, Math.round(this.#cfg.leaseDurationMs / 1000));
    const mine: LeaseRecord = { holderIdentity: this.identity, leaseDurationSeconds: durationSeconds, acquireTime: microTime(now), renewTime: microTime(now), leaseTransitions: 0 };
    const { store, namespace, name } = this.#cfg;
    const cur = await store.getObject(this.#leases, namespace, name, { kind: 'latest' });
    if (cur === null) {
      try {
        await store.create(this.#leases, namespace, this.#lease(mine), this.#opts());
      } catch (err) {
        if (err instanceof StatusError && err.code === 409) return false;
        throw err;
      }
      this.#observe(mine, now);
      return true;
    }
    const old = recordOf(cur.obj);
    const oldText = JSON.stringify(old);
    if (oldText !== this.#observedRecord) this.#observe(old, now);
    const heldByOther = old.holderIdentity !== '' && old.holderIdentity !== this.identity;
    if (heldByOther && this.#observedTime + old.leaseDurationSeconds * 1000 > now) return false;
    if (old.holderIdentity === this.identity) {
      mine.acquireTime = old.acquireTime;
      mine.leaseTransitions = old.leaseTransitions;
    } else {
      mine.leaseTransitions = old.leaseTransitions + 1;
    }
    try {
      await store.update(this.#leases, namespace, name, this.#lease(mine, cur.obj.metadata.resourceVersion), this.#opts());
    } catch (err) {
      // 409: another candidate wrote first; this round is lost.
      if (err instanceof StatusError && err.code === 409) return false;
      throw err;
    }
    this.#observe(mine, now);
    return true;
  }

  #observe(record: LeaseRecord, now: number): void {
    this.#observedRecord = JSON.stringify(record);
    this.#observedTime = now;
  }

  async #release(): Promise<void> {
    const { store, namespace, name } = this.#cfg;
    try {
      const cur = await store.getObject(this.#leases, namespace, name, { kind: 'latest' });
      if (cur === null || recordOf(cur.obj).holderIdentity !== this.identity) return;
      const now = this.#now();
      const old = recordOf(cur.obj);
      const released: LeaseRecord = { holderIdentity: '', leaseDurationSeconds: 1, acquireTime: microTime(now), renewTime: microTime(now), leaseTransitions: old.leaseTransitions };
      await store.update(this.#leases, namespace, name, this.#lease(released, cur.obj.metadata.resourceVersion), this.#opts());
      this.#cfg.log.info({ lease: this.#leaseName(), identity: this.identity }, 'released the leader election lease');
    } catch (err) {
      this.#cfg.log.warn({ lease: this.#leaseName(), err: err instanceof Error ? err.message : String(err) }, 'failed to release the leader election lease');
    }
  }
}

/** A controller that runs only while its server leads. */
export interface ElectedController {
  readonly name: string;
  start(): void | Promise<void>;
  stop(): void | Promise<void>;
}

/**
 * The controllers one lease elects together, as the original's controller
 * manager runs all its controllers under one lease: started when this
 * server becomes leader, stopped when it stops leading.
 */
export class ElectedControllers {
  readonly #controllers: ElectedController[] = [];
  readonly #log: ElectionLogger;
  #running = false;

  constructor(log: ElectionLogger) {
    this.#log = log;
  }

  add(controller: ElectedController): void {
    this.#controllers.push(controller);
    if (this.#running) void this.#startOne(controller);
  }

  async startAll(): Promise<void> {
    this.#running = true;
    for (const c of this.#controllers) await this.#startOne(c);
  }

  async stopAll(): Promise<void> {
    this.#running = false;
    for (const c of [...this.#controllers].reverse()) {
      try {
        await c.stop();
      } catch (err) {
        this.#log.warn({ controller: c.name, err: err instanceof Error ? err.message : String(err) }, 'controller failed to stop');
      }
    }
  }

  async #startOne(c: ElectedController): Promise<void> {
    try {
      await c.start();
    } catch (err) {
      this.#log.warn({ controller: c.name, err: err instanceof Error ? err.message : String(err) }, 'controller failed to start');
    }
  }
}
