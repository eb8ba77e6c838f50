/**
 * A parsed X.509 certificate with the fields chain verification and identity
 * mapping need. Signatures and public keys go through node:crypto (OpenSSL);
 * names, validity and extensions are read from the DER ourselves, because
 * X509Certificate only offers them as display strings or not at all.
 */
import { X509Certificate, type KeyObject } from 'node:crypto';
import {
  DerError,
  DerReader,
  TAG,
  content,
  decodeBoolean,
  decodeDirectoryString,
  decodeOid,
  decodeSmallInt,
  decodeTime,
  whole,
} from './der.ts';

export const OID = {
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  nameConstraints: '2.5.29.30',
  crlDistributionPoints: '2.5.29.31',
  certificatePolicies: '2.5.29.32',
  policyMappings: '2.5.29.33',
  authorityKeyIdentifier: '2.5.29.35',
  policyConstraints: '2.5.29.36',
  extKeyUsage: '2.5.29.37',
  inhibitAnyPolicy: '2.5.29.54',
  authorityInfoAccess: '1.3.6.1.5.5.7.1.1',
  ekuAny: '2.5.29.37.0',
  ekuClientAuth: '1.3.6.1.5.5.7.3.2',
  ekuServerAuth: '1.3.6.1.5.5.7.3.1',
} as const;

/**
 * Extensions Go's parser understands; any other extension marked critical
 * makes Go refuse the certificate ("unhandled critical extension"), and so
 * do we. Name constraints are understood but not enforced here: the chain
 * verifier fails closed when they could matter.
 */
const HANDLED_EXTENSIONS: ReadonlySet<string> = new Set([
  OID.subjectKeyIdentifier,
  OID.keyUsage,
  OID.subjectAltName,
  OID.basicConstraints,
  OID.nameConstraints,
  OID.crlDistributionPoints,
  OID.certificatePolicies,
  OID.policyMappings,
  OID.authorityKeyIdentifier,
  OID.policyConstraints,
  OID.extKeyUsage,
  OID.inhibitAnyPolicy,
  OID.authorityInfoAccess,
]);

/** keyUsage bit keyCertSign, numbered as Go numbers KeyUsage (1 << 5). */
export const KEY_USAGE_CERT_SIGN = 1 << 5;

/** Signature algorithms Go refuses to verify chains with, by OID, with Go's names. */
const INSECURE_SIGNATURE_ALGORITHMS: ReadonlyMap<string, string> = new Map([
  ['1.2.840.113549.1.1.2', 'MD2-RSA'],
  ['1.2.840.113549.1.1.4', 'MD5-RSA'],
  ['1.2.840.113549.1.1.5', 'SHA1-RSA'],
  ['1.3.14.3.2.29', 'SHA1-RSA'],
  ['1.2.840.10040.4.3', 'DSA-SHA1'],
  ['1.2.840.10045.4.1', 'ECDSA-SHA1'],
]);

export interface BasicConstraints {
  readonly isCA: boolean;
  /** -1 when the certificate sets no path length constraint. */
  readonly maxPathLen: number;
}

export interface ParsedCertificate {
  readonly der: Uint8Array;
  /** 1, 2 or 3. */
  readonly version: number;
  /** Lower-case hex of the serial number's content octets. */
  readonly serialHex: string;
  readonly rawIssuer: Uint8Array;
  readonly rawSubject: Uint8Array;
  readonly rawSubjectPublicKeyInfo: Uint8Array;
  /** Epoch ms. */
  readonly notBefore: number;
  /** Epoch ms. */
  readonly notAfter: number;
  /** The last CN of the subject ('' when none), as Go's pkix.Name keeps it. */
  readonly commonName: string;
  /** Every O of the subject, in order. */
  readonly organizations: readonly string[];
  readonly basicConstraints: BasicConstraints | undefined;
  /** keyUsage bits (Go numbering); 0 when absent. */
  readonly keyUsage: number;
  /** extKeyUsage OIDs; empty when the extension is absent. */
  readonly extKeyUsage: readonly string[];
  readonly hasSubjectAltName: boolean;
  readonly hasNameConstraints: boolean;
  readonly hasUnhandledCriticalExtension: boolean;
  /** Go's name for the signature algorithm when Go deems it insecure. */
  readonly insecureSignatureAlgorithm: string | undefined;
  readonly publicKey: KeyObject;
  /** True when `issuer`'s key made this certificate's signature. */
  isSignedBy(issuer: ParsedCertificate): boolean;
}

export class CertificateParseError extends Error {}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

interface NameFields {
  commonName: string;
  organizations: string[];
}

/** Name ::= SEQUENCE OF RelativeDistinguishedName (SET OF AttributeTypeAndValue). */
function readName(buf: Uint8Array, reader: DerReader): NameFields {
  const out: NameFields = { commonName: '', organizations: [] };
  while (!reader.done) {
    const rdn = reader.expect(TAG.SET, 'relative distinguished name');
    const atvs = DerReader.within(buf, rdn);
    while (!atvs.done) {
      const atv = atvs.expect(TAG.SEQUENCE, 'attribute');
      const r = DerReader.within(buf, atv);
      const type = decodeOid(content(buf, r.expect(TAG.OID, 'attribute type')));
      const valueEl = r.next();
      // Go decodes every attribute value and rejects the certificate on a
      // type it cannot read, whatever the attribute; mirror that.
      const value = decodeDirectoryString(valueEl.tag, content(buf, valueEl));
      if (type === OID.commonName) out.commonName = value;
      else if (type === OID.organization) out.organizations.push(value);
    }
  }
  return out;
}

interface ExtensionFields {
  basicConstraints: BasicConstraints | undefined;
  keyUsage: number;
  extKeyUsage: string[];
  hasSubjectAltName: boolean;
  hasNameConstraints: boolean;
  hasUnhandledCriticalExtension: boolean;
}

function readExtensions(buf: Uint8Array, reader: DerReader): ExtensionFields {
  const out: ExtensionFields = {
    basicConstraints: undefined,
    keyUsage: 0,
    extKeyUsage: [],
    hasSubjectAltName: false,
    hasNameConstraints: false,
    hasUnhandledCriticalExtension: false,
  };
  const seen = new Set<string>();
  while (!reader.done) {
    const ext = DerReader.within(buf, reader.expect(TAG.SEQUENCE, 'extension'));
    const id = decodeOid(content(buf, ext.expect(TAG.OID, 'extension id')));
    const criticalEl = ext.optional(TAG.BOOLEAN);
    const critical = criticalEl !== undefined && decodeBoolean(content(buf, criticalEl));
    const valueEl = ext.expect(TAG.OCTET_STRING, 'extension value');
    if (seen.has(id)) throw new DerError(`duplicate extension ${id}`);
    seen.add(id);
    if (critical && !HANDLED_EXTENSIONS.has(id)) out.hasUnhandledCriticalExtension = true;
    const inner = new DerReader(buf, valueEl.contentStart, valueEl.end);
    switch (id) {
      case OID.basicConstraints: {
        const seq = DerReader.within(buf, inner.expect(TAG.SEQUENCE, 'basic constraints'));
        const caEl = seq.optional(TAG.BOOLEAN);
        const lenEl = seq.optional(TAG.INTEGER);
        out.basicConstraints = {
          isCA: caEl !== undefined && decodeBoolean(content(buf, caEl)),
          maxPathLen: lenEl === undefined ? -1 : decodeSmallInt(content(buf, lenEl)),
        };
        break;
      }
      case OID.keyUsage: {
        const bits = content(buf, inner.expect(TAG.BIT_STRING, 'key usage'));
        // bits[0] counts unused trailing bits; bit i of the usage is the
        // i-th most significant bit of what follows (Go's KeyUsage numbering).
        let usage = 0;
        for (let i = 0; i < 9; i++) {
          const byte = bits[1 + (i >> 3)];
          if (byte !== undefined && (byte & (0x80 >> (i & 7))) !== 0) usage |= 1 << i;
        }
        out.keyUsage = usage;
        break;
      }
      case OID.extKeyUsage: {
        const seq = DerReader.within(buf, inner.expect(TAG.SEQUENCE, 'extended key usage'));
        while (!seq.done) out.extKeyUsage.push(decodeOid(content(buf, seq.expect(TAG.OID, 'key purpose'))));
        break;
      }
      case OID.subjectAltName:
        out.hasSubjectAltName = true;
        break;
      case OID.nameConstraints:
        out.hasNameConstraints = true;
        break;
    }
  }
  return out;
}

/**
 * Parses a DER certificate. Throws CertificateParseError on anything
 * malformed (the message never includes certificate bytes).
 */
export function parseCertificate(der: Uint8Array): ParsedCertificate {
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(der);
  } catch {
    throw new CertificateParseError('x509: malformed certificate');
  }
  try {
    const top = new DerReader(der);
    const certEl = top.expect(TAG.SEQUENCE, 'certificate');
    if (!top.done) throw new DerError('trailing data after certificate');
    const cert = DerReader.within(der, certEl);
    const tbs = DerReader.within(der, cert.expect(TAG.SEQUENCE, 'tbsCertificate'));
    const sigAlg = DerReader.within(der, cert.expect(TAG.SEQUENCE, 'signatureAlgorithm'));
    const sigAlgOid = decodeOid(content(der, sigAlg.expect(TAG.OID, 'signature algorithm')));

    let version = 1;
    const versionEl = tbs.optional(0xa0);
    if (versionEl !== undefined) {
      version = decodeSmallInt(content(der, DerReader.within(der, versionEl).expect(TAG.INTEGER, 'version'))) + 1;
    }
    const serial = content(der, tbs.expect(TAG.INTEGER, 'serial number'));
    tbs.expect(TAG.SEQUENCE, 'signature');
    const issuerEl = tbs.expect(TAG.SEQUENCE, 'issuer');
    const validity = DerReader.within(der, tbs.expect(TAG.SEQUENCE, 'validity'));
    const nbEl = validity.next();
    const naEl = validity.next();
    const subjectEl = tbs.expect(TAG.SEQUENCE, 'subject');
    const spkiEl = tbs.expect(TAG.SEQUENCE, 'subjectPublicKeyInfo');
    tbs.optional(0x81); // issuerUniqueID
    tbs.optional(0x82); // subjectUniqueID
    const extsEl = tbs.optional(0xa3);
    let extensions: ExtensionFields = {
      basicConstraints: undefined,
      keyUsage: 0,
      extKeyUsage: [],
      hasSubjectAltName: false,
      hasNameConstraints: false,
      hasUnhandledCriticalExtension: false,
    };
    if (extsEl !== undefined) {
      const seq = DerReader.within(der, extsEl).expect(TAG.SEQUENCE, 'extensions');
      extensions = readExtensions(der, DerReader.within(der, seq));
    }
    const name = readName(der, DerReader.within(der, subjectEl));
    readName(der, DerReader.within(der, issuerEl)); // validates the issuer the way Go does

    const publicKey = x509.publicKey;
    return {
      der,
      version,
      serialHex: hex(serial),
      rawIssuer: whole(der, issuerEl),
      rawSubject: whole(der, subjectEl),
      rawSubjectPublicKeyInfo: whole(der, spkiEl),
      notBefore: decodeTime(nbEl.tag, content(der, nbEl)),
      notAfter: decodeTime(naEl.tag, content(der, naEl)),
      commonName: name.commonName,
      organizations: name.organizations,
      ...extensions,
      insecureSignatureAlgorithm: INSECURE_SIGNATURE_ALGORITHMS.get(sigAlgOid),
      publicKey,
      isSignedBy(issuer: ParsedCertificate): boolean {
        try {
          return x509.verify(issuer.publicKey);
        } catch {
          // OpenSSL throws rather than answering false for some key/algorithm mismatches.
          return false;
        }
      },
    };
  } catch (err) {
    if (err instanceof DerError) throw new CertificateParseError(`x509: malformed certificate: ${err.message}`);
    throw err;
  }
}
