/**
 * IP addresses and CIDRs as integers: enough of Go's net and k8s.io/utils/net
 * for the service IP allocator (parse, family, offset arithmetic, and the
 * canonical text Go prints: dotted quads, RFC 5952 compressed IPv6).
 */
import { isIPv4, isIPv6 } from 'node:net';

export type IPFamily = 'IPv4' | 'IPv6';

export interface Cidr {
  family: IPFamily;
  /** The network address (host bits cleared). */
  network: bigint;
  prefix: number;
  /** Address width: 32 or 128. */
  bits: number;
}

/** The family of an IP literal, or undefined when it is not one. */
export function familyOf(ip: string): IPFamily | undefined {
  if (isIPv4(ip)) return 'IPv4';
  // A zone (`fe80::1%eth0`) is no service address.
  if (isIPv6(ip) && !ip.includes('%')) return 'IPv6';
  return undefined;
}

function parseIPv4(ip: string): bigint {
  return ip.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

function parseIPv6(ip: string): bigint {
  let text = ip;
  // An embedded dotted quad fills the last two groups.
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = parseIPv4(tail);
    text = `${text.slice(0, lastColon + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head = '', rest] = text.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const restGroups = rest === undefined || rest === '' ? [] : rest.split(':');
  const zeros = rest === undefined ? 0 : 8 - headGroups.length - restGroups.length;
  const groups = [...headGroups, ...Array<string>(zeros).fill('0'), ...restGroups];
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
}

/** The address as an integer, or undefined when `ip` is not an IP literal. */
export function ipToBigInt(ip: string): { family: IPFamily; value: bigint } | undefined {
  const family = familyOf(ip);
  if (family === undefined) return undefined;
  return { family, value: family === 'IPv4' ? parseIPv4(ip) : parseIPv6(ip) };
}

/** The canonical text of an address (Go's net.IP.String()). */
export function bigIntToIP(value: bigint, family: IPFamily): string {
  if (family === 'IPv4') {
    return [24n, 16n, 8n, 0n].map((s) => ((value >> s) & 0xffn).toString()).join('.');
  }
  const groups: number[] = [];
  for (let i = 7; i >= 0; i--) groups.push(Number((value >> BigInt(i * 16)) & 0xffffn));
  // RFC 5952: the longest run (of two or more) of zero groups becomes "::", the first if tied.
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestLen < 2) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}

/** Parses `a.b.c.d/n` or `x::/n` (host bits are cleared, as Go's ParseCIDR does); undefined when malformed. */
export function parseCidr(text: string): Cidr | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const ip = ipToBigInt(text.slice(0, slash));
  const prefixText = text.slice(slash + 1);
  if (ip === undefined || !/^[0-9]{1,3}$/.test(prefixText)) return undefined;
  const bits = ip.family === 'IPv4' ? 32 : 128;
  const prefix = Number(prefixText);
  if (prefix > bits) return undefined;
  const hostBits = BigInt(bits - prefix);
  const network = (ip.value >> hostBits) << hostBits;
  return { family: ip.family, network, prefix, bits };
}

/** The CIDR as Go prints it: network address, slash, prefix length. */
export function cidrString(c: Cidr): string {
  return `${bigIntToIP(c.network, c.family)}/${c.prefix}`;
}

/** Number of addresses in the CIDR. */
export function cidrSize(c: Cidr): bigint {
  return 1n << BigInt(c.bits - c.prefix);
}

/** True when `value` (of the same family) lies inside the CIDR. */
export function cidrContains(c: Cidr, family: IPFamily, value: bigint): boolean {
  return family === c.family && value >= c.network && value < c.network + cidrSize(c);
}
