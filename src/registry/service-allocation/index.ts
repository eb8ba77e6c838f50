/**
 * Service IP and node port allocation for one running server: the range
 * records in the store, the write hooks that allocate and release, and the
 * repair pass (once before serving, then periodically).
 */
import type { ShardAccess } from '../../../shards/shard-access.ts';
import type { GenericStore } from '../generic-store.ts';
import type { KObject } from '../object.ts';
import type { ResourceType } from '../resource-type.ts';
import { parseServiceClusterIPRanges, parseServiceNodePortRange } from './config.ts';
import { RouterRangeStore, SECONDARY_SERVICE_IPS_KEY, SERVICE_IPS_KEY, SERVICE_NODE_PORTS_KEY } from './range-store.ts';
import { AllocationRepair, type RepairLogger } from './repair.ts';
import { ServiceAllocators } from './service-allocators.ts';
import { StoredRange } from './stored-range.ts';

export { RANGES_RESOURCE_SPEC } from './range-store.ts';

export interface ServiceAllocationOptions {
  router: ShardAccess;
  store: GenericStore;
  services: ResourceType;
  /** `--service-cluster-ip-range` and `--service-node-port-range`, already checked. */
  clusterIPRange: string;
  nodePortRange: string;
  repairIntervalMs: number;
  log: RepairLogger;
}

export interface ServiceAllocation {
  allocators: ServiceAllocators;
  repair: AllocationRepair;
  /** The first address of the primary range: the API server's own Service. */
  apiServiceIP: string;
  stop(): Promise<void>;
}

/** The write hooks of one serving thread, over the range records in the store. */
export interface ServiceAllocatorSet {
  allocators: ServiceAllocators;
  ipRanges: StoredRange<string>[];
  nodePorts: StoredRange<number>;
}

/**
 * Builds the allocators and installs them as the Services' write hooks. Every
 * serving thread has its own: each change is a compare-and-swap on the range
 * record, retried on conflict, so threads (like several servers on one etcd)
 * never hand out a value twice.
 */
export function installServiceAllocators(opts: Pick<ServiceAllocationOptions, 'router' | 'store' | 'services' | 'clusterIPRange' | 'nodePortRange' | 'log'>): ServiceAllocatorSet {
  const records = new RouterRangeStore(opts.router);
  const ipRanges = parseServiceClusterIPRanges(opts.clusterIPRange).map(
    (range, i) => new StoredRange(range, i === 0 ? SERVICE_IPS_KEY : SECONDARY_SERVICE_IPS_KEY, records),
  );
  const nodePorts = new StoredRange(parseServiceNodePortRange(opts.nodePortRange), SERVICE_NODE_PORTS_KEY, records);
  const allocators = new ServiceAllocators({
    ipRanges,
    nodePorts,
    onReleaseFailure: (key, values, err) =>
      opts.log.warn({ range: key, values: values.map(String), err: err instanceof Error ? err.message : String(err) }, 'could not release service allocations; the repair pass will'),
  });
  opts.store.setWriteHooks(opts.services, allocators);
  return { allocators, ipRanges, nodePorts };
}

/**
 * Allocation for the thread that owns the process's controllers: the hooks
 * (installed here, or given when the pipeline installed them), then the
 * repair pass once before serving and periodically.
 */
export async function startServiceAllocation(opts: ServiceAllocationOptions & { installed?: ServiceAllocatorSet | undefined }): Promise<ServiceAllocation> {
  const { allocators, ipRanges, nodePorts } = opts.installed ?? installServiceAllocators(opts);
  const listServices = async (): Promise<KObject[]> => {
    const reply = await opts.store.list(opts.services, { kind: 'latest' }, {}, {});
    return reply.count === 0 ? [] : (JSON.parse(`[${Buffer.from(reply.items.buffer, reply.items.byteOffset, reply.items.byteLength).toString('utf8')}]`) as KObject[]);
  };
  const repair = new AllocationRepair({ ipRanges, nodePorts, listServices, log: opts.log });
  await repair.runOnce();
  repair.start(opts.repairIntervalMs);
  return {
    allocators,
    repair,
    apiServiceIP: ipRanges[0]!.range.valueAt(0),
    stop: () => repair.stop(),
  };
}
