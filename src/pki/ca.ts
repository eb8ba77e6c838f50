/**
 * A certificate authority held in memory: its certificate and a
 * non-extractable signing key. Builds certificates with @peculiar/x509 and
 * checks them with node:crypto, which parses about three times faster.
 */
import { createPublicKey, KeyObject, randomBytes, X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import { x509 } from './x509.ts';
import {
  assertAcceptablePublicKey,
  generatePemKeyPair,
  importSigningKey,
  parsePrivateKey,
  toSpkiDer,
  type KeyKind,
  type PublicKeyInput,
  type SigningKey,
} from './keys.ts';
import { resolveUsages, type CertificateUsage } from './usages.ts';
import { names } from '../naming/index.ts';

/**
 * How far back notBefore is set. Kubernetes' signer uses the same five
 * minutes: a client whose clock runs a little behind still accepts a
 * certificate issued a second ago.
 */
export const CLOCK_SKEW_SECONDS = 5 * 60;

export const CA_COMMON_NAME = `${names.clusterName}-ca`;
export const CA_DURATION_SECONDS = 10 * 365 * 24 * 3600;

export interface CertificateSubject {
  commonName: string;
  /** Each becomes an O attribute; Kubernetes authenticators read them as groups. */
  organizations?: readonly string[];
}

interface IssueCommon {
  subject: CertificateSubject;
  usages: readonly CertificateUsage[];
  dnsNames?: readonly string[];
  ipAddresses?: readonly string[];
  /** Default: now minus CLOCK_SKEW_SECONDS. */
  notBefore?: Date;
  /**
   * Lifetime from notBefore when given, else from now (the skew backdating
   * does not shorten the certificate). Capped at the CA's own notAfter.
   */
  durationSeconds: number;
  isCA?: boolean;
}

/**
 * The key to certify, given directly or as a PKCS#10 request. Only the CSR's
 * key is used (after checking its self-signature, which proves the requester
 * holds the private key); subject, names and usages are the signer's choice,
 * as with Kubernetes' CSR signers.
 */
export type IssueRequest = IssueCommon &
  ({ publicKey: PublicKeyInput; csr?: never } | { csr: string; publicKey?: never });

export interface CreateCaOptions {
  commonName?: string;
  durationSeconds?: number;
  /** ECDSA P-256 by default: small, fast, and accepted by Go, OpenSSL and Node TLS. */
  keyKind?: KeyKind;
  now?: Date;
}

export class CertificateAuthority {
  readonly certificatePem: string;
  /** Parsed with node:crypto, for cheap verification of issued certificates. */
  readonly certificate: X509Certificate;
  readonly #privateKey: KeyObject;
  readonly #signer: SigningKey;
  /** The CA subject exactly as encoded in its certificate, reused as issuer. */
  readonly #issuerName: x509.Name;
  /** Hex subjectKeyIdentifier, copied into each issued authorityKeyIdentifier. */
  readonly #keyId: string;

  private constructor(certificatePem: string, privateKey: KeyObject, signer: SigningKey, peculiarCert: x509.X509Certificate, keyId: string) {
    this.certificatePem = certificatePem;
    this.certificate = new X509Certificate(certificatePem);
    this.#privateKey = privateKey;
    this.#signer = signer;
    this.#issuerName = peculiarCert.subjectName;
    this.#keyId = keyId;
  }

  /** A new CA with a fresh key. */
  static async create(options: CreateCaOptions = {}): Promise<CertificateAuthority> {
    const { privateKeyPem } = await generatePemKeyPair(options.keyKind ?? 'ecdsa-p256');
    return CertificateAuthority.selfSign(privateKeyPem, options);
  }

  /**
   * A new self-signed CA certificate for an existing key. With the same key
   * and name it still verifies everything the lost certificate had issued.
   */
  static async selfSign(privateKeyPem: string, options: CreateCaOptions = {}): Promise<CertificateAuthority> {
    const privateKey = parsePrivateKey(privateKeyPem);
    const signer = await importSigningKey(privateKey);
    const spki = await toSpkiDer(privateKey);
    const now = options.now ?? new Date();
    const name = toJsonName({ commonName: options.commonName ?? CA_COMMON_NAME });
    const ski = await x509.SubjectKeyIdentifierExtension.create(spki);
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: randomSerialHex(),
      subject: name,
      issuer: name,
      notBefore: new Date(now.getTime() - CLOCK_SKEW_SECONDS * 1000),
      notAfter: new Date(now.getTime() + (options.durationSeconds ?? CA_DURATION_SECONDS) * 1000),
      publicKey: spki,
      signingKey: signer.key,
      signingAlgorithm: signer.algorithm,
      extensions: [
        new x509.BasicConstraintsExtension(true, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
        ski,
      ],
    });
    return new CertificateAuthority(cert.toString('pem') + '\n', privateKey, signer, cert, ski.keyId);
  }

  /** Loads a CA from PEM files, checking that the key belongs to the certificate. */
  static async load(certificatePem: string, privateKeyPem: string): Promise<CertificateAuthority> {
    const privateKey = parsePrivateKey(privateKeyPem);
    const nodeCert = new X509Certificate(certificatePem);
    if (!nodeCert.checkPrivateKey(privateKey)) throw new Error('CA private key does not match the CA certificate');
    if (!nodeCert.ca) throw new Error('CA certificate lacks basicConstraints CA:TRUE');
    const peculiarCert = new x509.X509Certificate(certificatePem);
    // Issued certificates must name the CA's own key id, or OpenSSL rejects
    // the chain (AKID/SKID mismatch); compute one only for CAs that have none.
    const ski = peculiarCert.getExtension(x509.SubjectKeyIdentifierExtension);
    const keyId = ski?.keyId ?? Buffer.from(await peculiarCert.publicKey.getKeyIdentifier()).toString('hex');
    return new CertificateAuthority(certificatePem, privateKey, await importSigningKey(privateKey), peculiarCert, keyId);
  }

  get notAfter(): Date {
    return new Date(this.certificate.validTo);
  }

  /** PKCS#8 PEM of the CA key, for persisting. The only way the key leaves this object. */
  exportPrivateKeyPem(): string {
    return this.#privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  }

  /** True when `cert` names this CA as issuer and carries its valid signature. */
  hasIssued(cert: X509Certificate): boolean {
    return cert.checkIssued(this.certificate) && cert.verify(this.certificate.publicKey);
  }

  /** Issues a certificate and returns it as PEM. */
  async issue(request: IssueRequest): Promise<string> {
    const spki = request.csr !== undefined ? await publicKeyFromCsr(request.csr) : await toSpkiDer(request.publicKey);
    assertAcceptablePublicKey(createPublicKey({ key: spki, format: 'der', type: 'spki' }));
    if (!(Number.isFinite(request.durationSeconds) && request.durationSeconds > 0)) {
      throw new RangeError(`durationSeconds must be positive, got ${request.durationSeconds}`);
    }
    const now = Date.now();
    const notBefore = request.notBefore ?? new Date(now - CLOCK_SKEW_SECONDS * 1000);
    const start = request.notBefore?.getTime() ?? now;
    // A certificate cannot usefully outlive the CA that vouches for it.
    const notAfter = new Date(Math.min(start + request.durationSeconds * 1000, this.notAfter.getTime()));
    if (notAfter <= notBefore) throw new Error(`CA ${this.certificate.subject} expires before the requested validity starts`);

    const isCA = request.isCA ?? false;
    const { keyUsageBits, extendedKeyUsageOids } = resolveUsages(request.usages);
    const keyUsage = keyUsageBits | (isCA ? x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign : 0);
    const extensions: x509.Extension[] = [
      new x509.BasicConstraintsExtension(isCA, undefined, true),
      new x509.AuthorityKeyIdentifierExtension(this.#keyId),
    ];
    if (keyUsage !== 0) extensions.push(new x509.KeyUsagesExtension(keyUsage, true));
    if (extendedKeyUsageOids.length > 0) extensions.push(new x509.ExtendedKeyUsageExtension(extendedKeyUsageOids));
    const altNames = subjectAltNames(request.dnsNames ?? [], request.ipAddresses ?? []);
    if (altNames.length > 0) extensions.push(new x509.SubjectAlternativeNameExtension(altNames));
    if (isCA) extensions.push(await x509.SubjectKeyIdentifierExtension.create(spki));

    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: randomSerialHex(),
      subject: toJsonName(request.subject),
      issuer: this.#issuerName,
      notBefore,
      notAfter,
      publicKey: spki,
      signingKey: this.#signer.key,
      signingAlgorithm: this.#signer.algorithm,
      extensions,
    });
    return cert.toString('pem') + '\n';
  }
}

/**
 * 128 random bits as a positive DER INTEGER: the top bit is cleared (Go
 * rejects negative serials) and the first byte is non-zero (so the encoding
 * stays minimal, which Go's strict parser also requires).
 */
function randomSerialHex(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0]! & 0x7f) || 0x01;
  return bytes.toString('hex');
}

/** O attributes before CN, one per RDN: the order Go's pkix.Name produces. */
function toJsonName(subject: CertificateSubject): x509.JsonName {
  if (!subject.commonName) throw new Error('subject.commonName is required');
  return [...(subject.organizations ?? []).map((o) => ({ O: [o] })), { CN: [subject.commonName] }];
}

function subjectAltNames(dnsNames: readonly string[], ipAddresses: readonly string[]): x509.JsonGeneralNames {
  const names: x509.JsonGeneralNames = [];
  for (const dns of new Set(dnsNames)) {
    if (!dns || isIP(dns)) throw new Error(`invalid DNS name ${JSON.stringify(dns)} (IP addresses go in ipAddresses)`);
    names.push({ type: 'dns', value: dns });
  }
  for (const ip of new Set(ipAddresses)) {
    if (!isIP(ip)) throw new Error(`invalid IP address ${JSON.stringify(ip)}`);
    names.push({ type: 'ip', value: ip });
  }
  return names;
}

async function publicKeyFromCsr(pem: string): Promise<Buffer> {
  const csr = new x509.Pkcs10CertificateRequest(pem);
  if (!(await csr.verify())) throw new Error('CSR signature does not verify: requester has not proven key possession');
  return Buffer.from(csr.publicKey.rawData);
}
