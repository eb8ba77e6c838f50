/**
 * Certificate usages named as Kubernetes names them (certificates.k8s.io
 * `KeyUsage` strings), mapped to the X.509 keyUsage bits and extendedKeyUsage
 * OIDs they stand for. Same vocabulary so a CSR signer can reuse it as is.
 */
import { x509 } from './x509.ts';

const F = x509.KeyUsageFlags;

const KEY_USAGE_BITS = {
  signing: F.digitalSignature,
  'digital signature': F.digitalSignature,
  'content commitment': F.nonRepudiation,
  'key encipherment': F.keyEncipherment,
  'key agreement': F.keyAgreement,
  'data encipherment': F.dataEncipherment,
  'cert sign': F.keyCertSign,
  'crl sign': F.cRLSign,
  'encipher only': F.encipherOnly,
  'decipher only': F.decipherOnly,
} as const;

const EXTENDED_KEY_USAGE_OIDS = {
  any: '2.5.29.37.0',
  'server auth': '1.3.6.1.5.5.7.3.1',
  'client auth': '1.3.6.1.5.5.7.3.2',
  'code signing': '1.3.6.1.5.5.7.3.3',
  'email protection': '1.3.6.1.5.5.7.3.4',
  's/mime': '1.3.6.1.5.5.7.3.4',
  'ipsec end system': '1.3.6.1.5.5.7.3.5',
  'ipsec tunnel': '1.3.6.1.5.5.7.3.6',
  'ipsec user': '1.3.6.1.5.5.7.3.7',
  timestamping: '1.3.6.1.5.5.7.3.8',
  'ocsp signing': '1.3.6.1.5.5.7.3.9',
  'microsoft sgc': '1.3.6.1.4.1.311.10.3.3',
  'netscape sgc': '2.16.840.1.113730.4.1',
} as const;

export type KeyUsageName = keyof typeof KEY_USAGE_BITS;
export type ExtendedKeyUsageName = keyof typeof EXTENDED_KEY_USAGE_OIDS;
export type CertificateUsage = KeyUsageName | ExtendedKeyUsageName;

export interface ResolvedUsages {
  /** OR of x509.KeyUsageFlags; 0 when none was asked for. */
  keyUsageBits: number;
  /** Distinct extendedKeyUsage OIDs, in request order. */
  extendedKeyUsageOids: string[];
}

export function resolveUsages(usages: readonly CertificateUsage[]): ResolvedUsages {
  let keyUsageBits = 0;
  const extendedKeyUsageOids: string[] = [];
  for (const usage of usages) {
    if (Object.hasOwn(KEY_USAGE_BITS, usage)) {
      keyUsageBits |= KEY_USAGE_BITS[usage as KeyUsageName];
    } else if (Object.hasOwn(EXTENDED_KEY_USAGE_OIDS, usage)) {
      const oid = EXTENDED_KEY_USAGE_OIDS[usage as ExtendedKeyUsageName];
      if (!extendedKeyUsageOids.includes(oid)) extendedKeyUsageOids.push(oid);
    } else {
      // Callers may pass strings from API objects; fail loudly rather than drop one.
      throw new Error(`unknown certificate usage ${JSON.stringify(usage)}`);
    }
  }
  return { keyUsageBits, extendedKeyUsageOids };
}
