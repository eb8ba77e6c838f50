/**
 * Real certificates for the client-certificate tests, made in-process with
 * @peculiar/x509 over WebCrypto (ECDSA P-256: fast to generate). Each helper
 * returns the DER the TLS front end would hand over, plus the PEM a client
 * CA file would contain.
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { webcrypto } from 'node:crypto';

// @peculiar/x509 is typed against the DOM's Crypto, which this project's lib settings leave out.
x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const ALG: webcrypto.EcKeyGenParams & webcrypto.EcdsaParams = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const DAY = 86_400_000;

export interface Issued {
  readonly cert: x509.X509Certificate;
  readonly keys: webcrypto.CryptoKeyPair;
  readonly der: Uint8Array;
  readonly pem: string;
}

export interface CertOptions {
  /** e.g. 'CN=alice, O=dev, O=ops' */
  readonly subject: string;
  /** Self-signed when omitted. */
  readonly issuer?: Issued;
  readonly ca?: boolean;
  readonly pathLength?: number;
  /** Extended key usage OIDs; no extension when omitted. */
  readonly eku?: readonly string[];
  readonly notBefore?: Date;
  readonly notAfter?: Date;
  /** Extra extensions (e.g. an unknown critical one). */
  readonly extraExtensions?: readonly x509.Extension[];
}

export const EKU = {
  clientAuth: '1.3.6.1.5.5.7.3.2',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  any: '2.5.29.37.0',
} as const;

let serial = 1;

export async function issue(options: CertOptions): Promise<Issued> {
  const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const now = Date.now();
  const extensions: x509.Extension[] = [];
  if (options.ca === true) {
    extensions.push(new x509.BasicConstraintsExtension(true, options.pathLength, true));
    extensions.push(new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true));
  } else {
    extensions.push(new x509.BasicConstraintsExtension(false, undefined, true));
    extensions.push(new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true));
  }
  if (options.eku !== undefined) extensions.push(new x509.ExtendedKeyUsageExtension([...options.eku], false));
  extensions.push(...(options.extraExtensions ?? []));
  const common = {
    serialNumber: (serial++).toString(16).padStart(2, '0'),
    notBefore: options.notBefore ?? new Date(now - DAY),
    notAfter: options.notAfter ?? new Date(now + 365 * DAY),
    extensions,
    signingAlgorithm: ALG,
  };
  const cert =
    options.issuer === undefined
      ? await x509.X509CertificateGenerator.createSelfSigned({ ...common, name: options.subject, keys })
      : await x509.X509CertificateGenerator.create({
          ...common,
          subject: options.subject,
          issuer: options.issuer.cert.subject,
          publicKey: keys.publicKey,
          signingKey: options.issuer.keys.privateKey,
        });
  return { cert, keys, der: new Uint8Array(cert.rawData), pem: cert.toString('pem') };
}

export { x509 };
