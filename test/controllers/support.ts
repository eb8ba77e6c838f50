/**
 * Shared pieces of the controller tests: waiting, PKCS#10 requests and
 * certificates made with @peculiar/x509, bootstrap token secrets, and the
 * API paths of the kinds the controllers touch.
 */
import { webcrypto } from 'node:crypto';
import { x509 } from '../../src/pki/x509.ts';
import { apiGroup, names } from '../../src/naming/index.ts';

export const CSRS = `/apis/${apiGroup('certificates')}/v1/certificatesigningrequests`;
export const RBAC = `/apis/${apiGroup('rbac.authorization')}/v1`;
export const quiet = { info: (): void => undefined, warn: (): void => undefined };

export async function waitFor(pred: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await pred())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
export const b64 = (s: string): string => Buffer.from(s).toString('base64');

export interface KeyedCsr {
  pem: string;
  keys: webcrypto.CryptoKeyPair;
}

/** A PEM PKCS#10 request (`CN=x, O=y`), optionally with DNS names. */
export async function makeCsr(subject: string, dnsNames: string[] = []): Promise<KeyedCsr> {
  const keys = (await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const extensions = dnsNames.length > 0 ? [new x509.SubjectAlternativeNameExtension(dnsNames.map((value) => ({ type: 'dns' as const, value })))] : [];
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: subject, keys, signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' }, extensions });
  return { pem: csr.toString('pem'), keys };
}

/** A self-signed certificate valid between the two times (status.certificate of a hand-made "issued" request). */
export async function selfSignedPem(notBefore: Date, notAfter: Date): Promise<string> {
  const keys = (await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({ serialNumber: '01', name: 'CN=test', notBefore, notAfter, keys, signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' } });
  return cert.toString('pem');
}

export const NODE_CLIENT_USAGES = ['digital signature', 'key encipherment', 'client auth'];

export function csrBody(name: string, pem: string, signerName: string, usages: string[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: `${apiGroup('certificates')}/v1`, kind: 'CertificateSigningRequest', metadata: { name }, spec: { request: b64(pem), signerName, usages, ...extra } };
}

/** A bootstrap token secret (spec 2.7). */
export function tokenSecret(id: string, secret: string, data: Record<string, string>): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `bootstrap-token-${id}`, namespace: names.systemNamespace },
    type: names.secretTypes.bootstrapToken,
    stringData: { 'token-id': id, 'token-secret': secret, ...data },
  };
}

export const SECRETS_SYS = `/api/v1/namespaces/${names.systemNamespace}/secrets`;
