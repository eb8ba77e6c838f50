/**
 * The two kinds of range a service allocates from, mapped onto bitmap
 * offsets: a service CIDR (ipallocator.Range: the network address and, for
 * IPv4, the broadcast address are never handed out; IPv6 ranges are capped at
 * 65536 addresses) and a node port range (portallocator: `base-max`).
 * Errors carry the original's messages.
 */
import { staticSubrange } from './bitmap.ts';
import { bigIntToIP, cidrContains, cidrSize, cidrString, ipToBigInt, parseCidr, type Cidr, type IPFamily } from './ip.ts';

export type AllocationErrorKind = 'NotInRange' | 'Allocated' | 'Full';

export class AllocationError extends Error {
  constructor(
    readonly kind: AllocationErrorKind,
    message: string,
  ) {
    super(message);
  }
}

/** ipallocator.ErrFull / portallocator.ErrFull. */
export const RANGE_FULL = 'range is full';

/** What a bitmap-backed range needs to know about the values it maps. */
export interface OffsetRange<V> {
  /** `10.0.0.0/24` or `30000-32767`: RangeAllocation.range. */
  readonly spec: string;
  /** Number of allocatable values. */
  readonly size: number;
  /** Start of the dynamic part of the bitmap (the static subrange lies below). */
  readonly staticSize: number;
  /** The offset of `value`, or an AllocationError (NotInRange). */
  offsetOf(value: V): number;
  valueAt(offset: number): V;
  allocatedError(): AllocationError;
}

/** Largest IPv6 range the bitmap covers (the original's cap). */
const MAX_IPV6_RANGE = 65536;

export class ServiceIPRange implements OffsetRange<string> {
  readonly cidr: Cidr;
  readonly family: IPFamily;
  readonly spec: string;
  readonly size: number;
  readonly staticSize: number;
  /** First allocatable address: the network address plus one. */
  readonly #base: bigint;

  constructor(cidr: Cidr) {
    this.cidr = cidr;
    this.family = cidr.family;
    this.spec = cidrString(cidr);
    const total = cidrSize(cidr);
    let max = cidr.family === 'IPv6' ? (total > BigInt(MAX_IPV6_RANGE) ? BigInt(MAX_IPV6_RANGE) : total) : total - 1n;
    max -= 1n;
    this.size = max < 0n ? 0 : Number(max);
    this.#base = cidr.network + 1n;
    this.staticSize = staticSubrange(Number(total > 1n << 32n ? 1n << 32n : total), 16, 256, 16);
  }

  static parse(text: string): ServiceIPRange | undefined {
    const cidr = parseCidr(text);
    return cidr === undefined ? undefined : new ServiceIPRange(cidr);
  }

  offsetOf(ip: string): number {
    const parsed = ipToBigInt(ip);
    if (parsed !== undefined && cidrContains(this.cidr, parsed.family, parsed.value)) {
      const offset = parsed.value - this.#base;
      if (offset >= 0n && offset < BigInt(this.size)) return Number(offset);
    }
    throw new AllocationError('NotInRange', `provided IP is not in the valid range. The range of valid IPs is ${this.spec}`);
  }

  valueAt(offset: number): string {
    return bigIntToIP(this.#base + BigInt(offset), this.family);
  }

  allocatedError(): AllocationError {
    return new AllocationError('Allocated', 'provided IP is already allocated');
  }
}

export class NodePortRange implements OffsetRange<number> {
  readonly base: number;
  readonly size: number;
  readonly spec: string;
  readonly staticSize: number;

  constructor(base: number, size: number) {
    this.base = base;
    this.size = size;
    this.spec = `${base}-${base + size - 1}`;
    this.staticSize = staticSubrange(size, 16, 128, 32);
  }

  /** `30000-32767`, `30000+2767` or a single port (utilnet.ParsePortRange); undefined when malformed. */
  static parse(text: string): NodePortRange | undefined {
    const m = /^\s*([0-9]{1,5})(?:\s*([-+])\s*([0-9]{1,5}))?\s*$/.exec(text);
    if (m === null) return undefined;
    const low = Number(m[1]);
    const high = m[2] === undefined ? low : m[2] === '-' ? Number(m[3]) : low + Number(m[3]);
    if (low > 65535 || high > 65535 || high < low) return undefined;
    return new NodePortRange(low, high - low + 1);
  }

  contains(port: number): boolean {
    return Number.isInteger(port) && port >= this.base && port < this.base + this.size;
  }

  offsetOf(port: number): number {
    if (!this.contains(port)) {
      throw new AllocationError('NotInRange', `provided port is not in the valid range. The range of valid ports is ${this.spec}`);
    }
    return port - this.base;
  }

  valueAt(offset: number): number {
    return this.base + offset;
  }

  allocatedError(): AllocationError {
    return new AllocationError('Allocated', 'provided port is already allocated');
  }
}
