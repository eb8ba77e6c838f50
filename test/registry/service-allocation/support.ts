/** Allocators over an in-memory range store, as one or several API servers would build them. */
import { MemoryRangeStore, SECONDARY_SERVICE_IPS_KEY, SERVICE_IPS_KEY, SERVICE_NODE_PORTS_KEY } from '../../../src/registry/service-allocation/range-store.ts';
import { parseServiceClusterIPRanges, parseServiceNodePortRange } from '../../../src/registry/service-allocation/config.ts';
import { StoredRange } from '../../../src/registry/service-allocation/stored-range.ts';
import { ServiceAllocators } from '../../../src/registry/service-allocation/service-allocators.ts';
import type { KObject } from '../../../src/registry/object.ts';
import type { StrategyContext } from '../../../src/registry/strategy.ts';
import { serviceStrategy } from '../../../src/registry/strategies/services.ts';

export interface Server {
  ipRanges: StoredRange<string>[];
  nodePorts: StoredRange<number>;
  allocators: ServiceAllocators;
}

export function server(store: MemoryRangeStore, ipRange = '10.0.0.0/24', portRange = '30000-32767'): Server {
  const ipRanges = parseServiceClusterIPRanges(ipRange).map((r, i) => new StoredRange(r, i === 0 ? SERVICE_IPS_KEY : SECONDARY_SERVICE_IPS_KEY, store));
  const nodePorts = new StoredRange(parseServiceNodePortRange(portRange), SERVICE_NODE_PORTS_KEY, store);
  return { ipRanges, nodePorts, allocators: new ServiceAllocators({ ipRanges, nodePorts }) };
}

export function ctx(dryRun = false): StrategyContext {
  return { user: undefined, now: '2025-01-02T03:04:05Z', dryRun, subresource: '' };
}

let n = 0;
/** A service as the generic store hands it to the hook: prepared by the strategy. */
export function service(spec: Record<string, unknown>, name = `svc-${++n}`): KObject {
  const svc: KObject = { kind: 'Service', apiVersion: 'v1', metadata: { name, namespace: 'default' }, spec: structuredClone(spec) };
  serviceStrategy.defaults?.(svc);
  serviceStrategy.prepareForCreate?.(svc, ctx());
  return svc;
}

/** The service after an update from `old` with `spec` (prepared by the strategy). */
export function updated(old: KObject, spec: Record<string, unknown>): KObject {
  const next: KObject = { ...structuredClone(old), spec: structuredClone(spec) };
  serviceStrategy.defaults?.(next);
  serviceStrategy.prepareForUpdate?.(next, old, ctx());
  return next;
}

export function spec(svc: KObject): Record<string, unknown> {
  return svc['spec'] as Record<string, unknown>;
}

export function nodePorts(svc: KObject): number[] {
  return (spec(svc)['ports'] as Array<{ nodePort?: number }>).map((p) => p.nodePort ?? 0);
}

/** Values currently allocated in a range's record. */
export async function allocated<V>(range: StoredRange<V>): Promise<V[]> {
  const { bitmap } = await range.refresh();
  const out: V[] = [];
  bitmap.forEach((i) => out.push(range.range.valueAt(i)));
  return out;
}

export async function created(s: Server, svc: KObject, dryRun = false): Promise<KObject> {
  const txn = await s.allocators.beginCreate(svc, ctx(dryRun));
  await txn.commit();
  return svc;
}
