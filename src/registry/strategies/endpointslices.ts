/**
 * EndpointSlices (discovery.<suffix>/v1): `deprecatedTopology` is read-only
 * in v1, as in the original's dropTopologyOnV1: writes through v1 drop it
 * from every endpoint on create and on any update that changes the
 * endpoints (an update that leaves them as they were keeps what is stored).
 * One thing survives: an endpoint without `nodeName` whose topology hostname
 * label names a node the stored slice already had there gets that node as
 * its `nodeName`, so a partial update keeps the node.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Strategy } from '../strategy.ts';
import { isDNS1123Subdomain } from '../validation/names.ts';
import { arr, obj, str } from './util.ts';
import type { KObject } from '../object.ts';
import { names } from '../../naming/index.ts';

/** The original's `kubernetes.io/hostname` topology label, in this product's label namespace. */
export const HOSTNAME_TOPOLOGY_LABEL = names.labels.hostname;

function topologyNodeNames(slice: KObject | undefined): Set<string> {
  const names = new Set<string>();
  for (const ep of arr(slice?.['endpoints'])) {
    const name = str(obj(obj(ep)?.['deprecatedTopology'])?.[HOSTNAME_TOPOLOGY_LABEL]);
    if (name !== undefined) names.add(name);
  }
  return names;
}

function dropTopology(slice: KObject, old: KObject | undefined): void {
  if (old !== undefined && isDeepStrictEqual(old['endpoints'], slice['endpoints'])) return;
  const previous = topologyNodeNames(old);
  for (const item of arr(slice['endpoints'])) {
    const ep = obj(item);
    if (ep === undefined || !('deprecatedTopology' in ep)) continue;
    const hostname = str(obj(ep['deprecatedTopology'])?.[HOSTNAME_TOPOLOGY_LABEL]);
    if ((ep['nodeName'] === undefined || ep['nodeName'] === null) && hostname !== undefined && previous.has(hostname) && isDNS1123Subdomain(hostname).length === 0) {
      ep['nodeName'] = hostname;
    }
    delete ep['deprecatedTopology'];
  }
}

export const endpointSliceStrategy: Strategy = {
  prepareForCreate(slice) {
    dropTopology(slice, undefined);
  },
  prepareForUpdate(slice, old) {
    dropTopology(slice, old);
  },
};
