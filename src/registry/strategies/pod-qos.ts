/**
 * A pod's QoS class, as the original's qos.GetPodQOS computes it from the
 * cpu and memory requests and limits of its containers and init containers:
 * BestEffort when none are set, Guaranteed when every container limits both
 * and requests equal limits, Burstable otherwise.
 */
import { parseQuantity } from '../validation/quantity.ts';
import { arr, obj, type JsonObject } from './util.ts';

export type QOSClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

const QOS_RESOURCES = ['cpu', 'memory'];

export function podQOSClass(spec: JsonObject): QOSClass {
  const requests = new Map<string, bigint>();
  const limits = new Map<string, bigint>();
  let guaranteed = true;
  for (const raw of [...arr(spec['containers']), ...arr(spec['initContainers'])]) {
    const resources = obj(obj(raw)?.['resources']);
    for (const [name, q] of Object.entries(obj(resources?.['requests']) ?? {})) {
      if (!QOS_RESOURCES.includes(name)) continue;
      const v = parseQuantity(q);
      if (v !== undefined && v > 0n) requests.set(name, (requests.get(name) ?? 0n) + v);
    }
    const found = new Set<string>();
    for (const [name, q] of Object.entries(obj(resources?.['limits']) ?? {})) {
      if (!QOS_RESOURCES.includes(name)) continue;
      const v = parseQuantity(q);
      if (v !== undefined && v > 0n) {
        found.add(name);
        limits.set(name, (limits.get(name) ?? 0n) + v);
      }
    }
    if (!QOS_RESOURCES.every((r) => found.has(r))) guaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  if (guaranteed) {
    for (const [name, req] of requests) {
      if (limits.get(name) !== req) {
        guaranteed = false;
        break;
      }
    }
  }
  return guaranteed && requests.size === limits.size ? 'Guaranteed' : 'Burstable';
}
