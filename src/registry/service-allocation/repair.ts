/**
 * AllocationRepair rebuilds the range records from the Services that exist
 * (the original's ipallocator/controller/repair.go and
 * portallocator/controller/repair.go): values services hold but the record
 * lacks are added, values the record holds but no service does are released
 * after they were seen leaked in LEAK_PASSES passes in a row (a create on
 * another server may have reserved a value and not stored its Service yet).
 *
 * Each pass reads the record, then lists services, then writes the rebuilt
 * record with compare-and-swap on the revision it read; an allocation made
 * in between moves the record on, and the pass starts over.
 */
import type { KObject } from '../object.ts';
import { arr, num, obj } from '../strategies/util.ts';
import { isHeadless, needsClusterIP, needsHealthCheckNodePort } from '../strategies/services.ts';
import { familyOf } from './ip.ts';
import type { StoredRange } from './stored-range.ts';

/** A value is released after being found leaked this many passes running. */
export const LEAK_PASSES = 3;
const MAX_ATTEMPTS = 16;

export interface RepairLogger {
  warn(obj: object, msg: string): void;
}

export interface AllocationRepairOptions {
  ipRanges: readonly StoredRange<string>[];
  nodePorts: StoredRange<number>;
  /** A consistent list of every Service. */
  listServices: () => Promise<KObject[]>;
  log: RepairLogger;
}

interface Held<V> {
  value: V;
  owner: string;
}

function ownerOf(svc: KObject): string {
  return `${svc.metadata.namespace ?? ''}/${svc.metadata.name ?? ''}`;
}

function specOf(svc: KObject): Record<string, unknown> {
  return obj(svc['spec']) ?? {};
}

/** The cluster IPs of one family the services hold. */
export function heldClusterIPs(services: readonly KObject[], family: string): Held<string>[] {
  const out: Held<string>[] = [];
  for (const svc of services) {
    const spec = specOf(svc);
    if (!needsClusterIP(spec) || isHeadless(spec)) continue;
    const ips = arr(spec['clusterIPs']);
    const list = ips.length > 0 ? ips : [spec['clusterIP']];
    for (const ip of list) if (typeof ip === 'string' && ip !== '' && familyOf(ip) === family) out.push({ value: ip, owner: ownerOf(svc) });
  }
  return out;
}

/** The node ports (and health check node ports) the services hold, each once per service. */
export function heldNodePorts(services: readonly KObject[]): Held<number>[] {
  const out: Held<number>[] = [];
  for (const svc of services) {
    const spec = specOf(svc);
    const ports = new Set<number>();
    for (const p of arr(spec['ports'])) {
      const n = num(obj(p)?.['nodePort']) ?? 0;
      if (n !== 0) ports.add(n);
    }
    const hc = num(spec['healthCheckNodePort']) ?? 0;
    if (needsHealthCheckNodePort(spec) && hc !== 0) ports.add(hc);
    for (const value of ports) out.push({ value, owner: ownerOf(svc) });
  }
  return out;
}

export class AllocationRepair {
  readonly #opts: AllocationRepairOptions;
  /** Per range key: offsets found leaked, and how many more passes they are kept. */
  readonly #leaks = new Map<string, Map<number, number>>();
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;

  constructor(opts: AllocationRepairOptions) {
    this.#opts = opts;
  }

  /** One pass over every range. */
  async runOnce(): Promise<void> {
    for (const range of this.#opts.ipRanges) {
      const family = familyOf(range.range.valueAt(0)) ?? 'IPv4';
      await this.#repair(range, (services) => heldClusterIPs(services, family), 'cluster IP');
    }
    await this.#repair(this.#opts.nodePorts, heldNodePorts, 'node port');
  }

  /** Runs a pass every `intervalMs` (0: never) until stop(); a failed pass is logged and retried next time. */
  start(intervalMs: number): void {
    if (intervalMs <= 0) return;
    this.#timer = setInterval(() => {
      if (this.#running !== null) return;
      this.#running = this.runOnce()
        .catch((err: unknown) => this.#opts.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'service allocation repair failed'))
        .finally(() => (this.#running = null));
    }, intervalMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    await this.#running;
  }

  async #repair<V>(range: StoredRange<V>, held: (services: KObject[]) => Held<V>[], what: string): Promise<void> {
    const log = this.#opts.log;
    const leaks = this.#leaks.get(range.key) ?? new Map<number, number>();
    this.#leaks.set(range.key, leaks);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      // Record first, services second: see the module comment.
      const stored = await range.refresh();
      const services = await this.#opts.listServices();
      const rebuilt = range.emptyBitmap();
      for (const { value, owner } of held(services)) {
        let offset: number;
        try {
          offset = range.range.offsetOf(value);
        } catch {
          log.warn({ service: owner, value: String(value), range: range.range.spec }, `the ${what} of this service is not within the configured range; please recreate the service`);
          continue;
        }
        if (!rebuilt.allocate(offset)) {
          log.warn({ service: owner, value: String(value) }, `the ${what} was assigned to several services; please recreate`);
        } else if (!stored.bitmap.has(offset) && stored.range === range.range.spec) {
          log.warn({ service: owner, value: String(value) }, `the ${what} was not allocated; repairing`);
        }
      }
      const nextLeaks = new Map<number, number>();
      stored.bitmap.forEach((offset) => {
        if (rebuilt.has(offset)) return;
        const left = leaks.has(offset) ? leaks.get(offset)! - 1 : LEAK_PASSES - 1;
        if (left > 0) {
          rebuilt.allocate(offset);
          nextLeaks.set(offset, left);
        } else {
          log.warn({ value: String(range.range.valueAt(offset)) }, `the ${what} is not held by any service; released`);
        }
      });
      if (stored.range === range.range.spec && rebuilt.equals(stored.bitmap)) {
        replaceMap(leaks, nextLeaks);
        return;
      }
      if (await range.replace(rebuilt, stored.revision)) {
        replaceMap(leaks, nextLeaks);
        return;
      }
    }
    throw new Error(`${range.key}: the record kept changing during repair`);
  }
}

function replaceMap<K, V>(target: Map<K, V>, source: Map<K, V>): void {
  target.clear();
  for (const [k, v] of source) target.set(k, v);
}
