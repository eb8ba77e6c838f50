/**
 * A cluster signing CA loaded from its certificate and key files, signing
 * requests as the original's authority.go with PermissiveSigningPolicy:
 * subject and subjectAltNames copied from the request, every other request
 * extension dropped, key usage and extended key usage from spec.usages
 * (extended ones in Go's order), basicConstraints CA:FALSE, the CA's key id as
 * authorityKeyIdentifier, a random serial of at most 63 bits.
 *
 * Validity (policies.go): notBefore = now - backdate (5 min); notAfter = now +
 * ttl, minus the backdate too unless the certificate is short-lived (ttl <
 * 8 h); never past the CA's own notAfter; an expired CA refuses.
 *
 * The files are read again when their modification time changes, as the
 * original's caProvider reloads them.
 */
import { randomBytes, X509Certificate } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { x509 } from '../pki/x509.ts';
import { importSigningKey, parsePrivateKey, type SigningKey } from '../pki/keys.ts';
import type { ParsedRequest } from './csr-request.ts';

export const BACKDATE_MS = 5 * 60_000;
export const SHORT_LIVED_MS = 8 * 3600_000;
/** The smallest lifetime the signer hands out (twice the backdate). */
export const MIN_SIGNING_DURATION_MS = 10 * 60_000;

const F = x509.KeyUsageFlags;
const KEY_USAGES: Record<string, number> = {
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
};
/** In Go's x509.ExtKeyUsage order, which the original sorts by. */
const EXT_KEY_USAGES: Array<[string, string]> = [
  ['any', '2.5.29.37.0'],
  ['server auth', '1.3.6.1.5.5.7.3.1'],
  ['client auth', '1.3.6.1.5.5.7.3.2'],
  ['code signing', '1.3.6.1.5.5.7.3.3'],
  ['email protection', '1.3.6.1.5.5.7.3.4'],
  ['s/mime', '1.3.6.1.5.5.7.3.4'],
  ['ipsec end system', '1.3.6.1.5.5.7.3.5'],
  ['ipsec tunnel', '1.3.6.1.5.5.7.3.6'],
  ['ipsec user', '1.3.6.1.5.5.7.3.7'],
  ['timestamping', '1.3.6.1.5.5.7.3.8'],
  ['ocsp signing', '1.3.6.1.5.5.7.3.9'],
  ['microsoft sgc', '1.3.6.1.4.1.311.10.3.3'],
  ['netscape sgc', '2.16.840.1.113730.4.1'],
];

/** keyUsagesFromStrings. */
export function keyUsages(usages: readonly string[]): { bits: number; extended: string[] } {
  let bits = 0;
  const ext = new Set<string>();
  const unrecognized: string[] = [];
  for (const u of usages) {
    if (Object.hasOwn(KEY_USAGES, u)) bits |= KEY_USAGES[u]!;
    else {
      const e = EXT_KEY_USAGES.find(([name]) => name === u);
      if (e) ext.add(e[1]);
      else unrecognized.push(u);
    }
  }
  if (unrecognized.length > 0) throw new Error(`unrecognized usage values: [${unrecognized.map((u) => JSON.stringify(u)).join(' ')}]`);
  const order = EXT_KEY_USAGES.map(([, oid]) => oid);
  return { bits, extended: [...ext].sort((a, b) => order.indexOf(a) - order.indexOf(b)) };
}

/** The certificate's validity (policies.go apply); throws when the CA cannot cover it. */
export function validity(nowMs: number, ttlMs: number, caNotAfterMs: number): { notBefore: number; notAfter: number } {
  const notBefore = nowMs - BACKDATE_MS;
  let notAfter = ttlMs < SHORT_LIVED_MS ? nowMs + ttlMs : nowMs + ttlMs - BACKDATE_MS;
  if (!(notAfter < caNotAfterMs)) notAfter = caNotAfterMs;
  const goTime = new Date(caNotAfterMs).toISOString();
  if (!(notBefore < caNotAfterMs)) throw new Error(`the signer has expired: NotAfter=${goTime}`);
  if (!(nowMs < caNotAfterMs)) throw new Error(`refusing to sign a certificate that expired in the past: NotAfter=${goTime}`);
  return { notBefore, notAfter };
}

/** Go's x509 keeps serials positive: a random value in [1, 2^63-1]. */
function serialHex(): string {
  const b = randomBytes(8);
  b[0] = b[0]! & 0x7f;
  if (b.every((v) => v === 0)) b[7] = 1;
  // DER integers are minimal: drop leading zero bytes (but keep one byte).
  let hex = b.toString('hex').replace(/^(00)+/, '');
  if (hex === '') hex = '01';
  return hex;
}

export class SigningAuthority {
  readonly #certFile: string;
  readonly #keyFile: string;
  #loadedMtimes = '';
  #cert!: x509.X509Certificate;
  #nodeCert!: X509Certificate;
  #key!: SigningKey;
  #keyId = '';

  private constructor(certFile: string, keyFile: string) {
    this.#certFile = certFile;
    this.#keyFile = keyFile;
  }

  static async load(certFile: string, keyFile: string): Promise<SigningAuthority> {
    const a = new SigningAuthority(certFile, keyFile);
    await a.#reload(true);
    return a;
  }

  /** The CA certificate as PEM (what clients trust). */
  get certificatePem(): string {
    return this.#cert.toString('pem') + '\n';
  }

  async #reload(force: boolean): Promise<void> {
    const [c, k] = await Promise.all([stat(this.#certFile), stat(this.#keyFile)]);
    const mtimes = `${c.mtimeMs}/${c.size}/${k.mtimeMs}/${k.size}`;
    if (!force && mtimes === this.#loadedMtimes) return;
    const [certPem, keyPem] = await Promise.all([readFile(this.#certFile, 'utf8'), readFile(this.#keyFile, 'utf8')]);
    const privateKey = parsePrivateKey(keyPem);
    // The first certificate of the file is the signer's.
    const nodeCert = new X509Certificate(certPem);
    if (!nodeCert.checkPrivateKey(privateKey)) throw new Error(`${this.#keyFile} does not match the certificate in ${this.#certFile}`);
    const cert = new x509.X509Certificate(nodeCert.raw);
    const ski = cert.getExtension(x509.SubjectKeyIdentifierExtension);
    this.#keyId = ski?.keyId ?? Buffer.from(await cert.publicKey.getKeyIdentifier()).toString('hex');
    this.#key = await importSigningKey(privateKey);
    this.#cert = cert;
    this.#nodeCert = nodeCert;
    this.#loadedMtimes = mtimes;
  }

  /** Signs `req` for `ttlMs`; the certificate as one PEM block. */
  async sign(req: ParsedRequest, usages: readonly string[], ttlMs: number, nowMs = Date.now()): Promise<string> {
    await this.#reload(false);
    const { bits, extended } = keyUsages(usages);
    const { notBefore, notAfter } = validity(nowMs, ttlMs, new Date(this.#nodeCert.validTo).getTime());
    const extensions: x509.Extension[] = [];
    if (bits !== 0) extensions.push(new x509.KeyUsagesExtension(bits, true));
    if (extended.length > 0) extensions.push(new x509.ExtendedKeyUsageExtension(extended));
    extensions.push(new x509.BasicConstraintsExtension(false, undefined, true));
    extensions.push(new x509.AuthorityKeyIdentifierExtension(this.#keyId));
    // Go's marshalSANs order: DNS, email, IP, URI.
    const altNames: x509.JsonGeneralNames = [
      ...req.dnsNames.map((value) => ({ type: 'dns' as const, value })),
      ...req.emailAddresses.map((value) => ({ type: 'email' as const, value })),
      ...req.ipAddresses.map((value) => ({ type: 'ip' as const, value })),
      ...req.uris.map((value) => ({ type: 'url' as const, value })),
    ];
    if (altNames.length > 0) extensions.push(new x509.SubjectAlternativeNameExtension(altNames));
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: serialHex(),
      subject: req.subjectName,
      issuer: this.#cert.subjectName,
      notBefore: new Date(Math.floor(notBefore / 1000) * 1000),
      notAfter: new Date(Math.floor(notAfter / 1000) * 1000),
      publicKey: req.publicKeySpki,
      signingKey: this.#key.key,
      signingAlgorithm: this.#key.algorithm,
      extensions,
    });
    return cert.toString('pem') + '\n';
  }
}
