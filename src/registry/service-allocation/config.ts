/**
 * --service-cluster-ip-range and --service-node-port-range: parsed and
 * checked as the original's kube-apiserver options validation does.
 */
import { NodePortRange, ServiceIPRange } from './ranges.ts';

export const DEFAULT_SERVICE_CLUSTER_IP_RANGE = '10.0.0.0/24';
export const DEFAULT_SERVICE_NODE_PORT_RANGE = '30000-32767';
/** The bitmap's limit: ranges with more than 2^20 addresses are refused. */
const MAX_CIDR_BITS = 20;

/** One CIDR, or a dual-stack pair `v4cidr,v6cidr` (either order); throws an Error with the reason. */
export function parseServiceClusterIPRanges(text: string): ServiceIPRange[] {
  const parts = text.split(',').map((s) => s.trim());
  if (parts.length > 2) throw new Error('--service-cluster-ip-range must not contain more than two entries');
  const ranges = parts.map((part) => {
    const range = ServiceIPRange.parse(part);
    if (range === undefined) throw new Error(`--service-cluster-ip-range: invalid CIDR address: ${part}`);
    const hostBits = range.cidr.bits - range.cidr.prefix;
    if (hostBits > MAX_CIDR_BITS) {
      throw new Error(`specified --service-cluster-ip-range is too large; for ${range.cidr.bits}-bit addresses, the mask must be >= ${range.cidr.bits - MAX_CIDR_BITS}`);
    }
    if (range.size < 1) throw new Error(`specified --service-cluster-ip-range ${part} has no usable addresses`);
    return range;
  });
  if (ranges.length === 2 && ranges[0]!.family === ranges[1]!.family) {
    throw new Error('--service-cluster-ip-range[0] and --service-cluster-ip-range[1] must be of different IP family');
  }
  return ranges;
}

export function parseServiceNodePortRange(text: string): NodePortRange {
  const range = NodePortRange.parse(text);
  if (range === undefined) throw new Error(`invalid --service-node-port-range ${JSON.stringify(text)}: expected base-max, e.g. 30000-32767`);
  return range;
}
