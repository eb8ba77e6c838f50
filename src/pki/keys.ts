/**
 * Key generation and conversion between the three shapes keys arrive in:
 * PEM text (files), node:crypto KeyObject (parsing, TLS), and WebCrypto
 * CryptoKey (what @peculiar/x509 signs with).
 */
import { createPrivateKey, createPublicKey, generateKeyPair, KeyObject, webcrypto } from 'node:crypto';

export type CryptoKey = webcrypto.CryptoKey;

/** A public key in any form the CA accepts. */
export type PublicKeyInput = CryptoKey | KeyObject | string;

export interface PemKeyPair {
  /** PKCS#8 (`-----BEGIN PRIVATE KEY-----`): read by Go, OpenSSL and Node alike. */
  privateKeyPem: string;
  /** SPKI (`-----BEGIN PUBLIC KEY-----`). */
  publicKeyPem: string;
}

export type KeyKind = 'ecdsa-p256' | 'rsa-2048';

const PEM_ENCODING = {
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
} as const;

// Wrapped by hand: util.promisify picks generateKeyPair's KeyObject overload.
function done(resolve: (pair: PemKeyPair) => void, reject: (err: Error) => void) {
  return (err: Error | null, publicKeyPem: string, privateKeyPem: string) =>
    err ? reject(err) : resolve({ privateKeyPem, publicKeyPem });
}

/**
 * Generates a key pair off the event loop (RSA 2048 takes tens to hundreds of
 * milliseconds; P-256 well under one).
 */
export async function generatePemKeyPair(kind: KeyKind): Promise<PemKeyPair> {
  return new Promise((resolve, reject) => {
    if (kind === 'ecdsa-p256') {
      generateKeyPair('ec', { namedCurve: 'prime256v1', ...PEM_ENCODING }, done(resolve, reject));
    } else {
      generateKeyPair('rsa', { modulusLength: 2048, publicExponent: 0x10001, ...PEM_ENCODING }, done(resolve, reject));
    }
  });
}

/** Parses a private key in PKCS#8, PKCS#1 ("RSA PRIVATE KEY") or SEC1 ("EC PRIVATE KEY") PEM. */
export function parsePrivateKey(pem: string): KeyObject {
  return createPrivateKey({ key: pem, format: 'pem' });
}

/** SPKI DER of a public key given as CryptoKey, KeyObject (public or private) or PEM. */
export async function toSpkiDer(key: PublicKeyInput): Promise<Buffer> {
  if (typeof key === 'string') return createPublicKey(key).export({ type: 'spki', format: 'der' });
  if (key instanceof KeyObject) {
    const publicKey = key.type === 'public' ? key : createPublicKey(key);
    return publicKey.export({ type: 'spki', format: 'der' });
  }
  if (key.type !== 'public') throw new TypeError(`expected a public CryptoKey, got a ${key.type} key`);
  return Buffer.from(await webcrypto.subtle.exportKey('spki', key));
}

/** The SPKI PEM of a private key's public half (e.g. to rebuild a lost sa.pub). */
export function publicKeyPemOf(privateKey: KeyObject): string {
  return createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString();
}

/**
 * Refuses keys that some client here would reject or that are too weak to
 * sign for: RSA below 2048 bits, curves other than the NIST ones Go's TLS
 * stack implements, and anything else exotic.
 */
export function assertAcceptablePublicKey(key: KeyObject): void {
  const details = key.asymmetricKeyDetails ?? {};
  switch (key.asymmetricKeyType) {
    case 'rsa':
      if ((details.modulusLength ?? 0) < 2048) throw new Error(`RSA key of ${details.modulusLength} bits: at least 2048 required`);
      return;
    case 'ec':
      if (!['prime256v1', 'secp384r1', 'secp521r1'].includes(details.namedCurve ?? '')) {
        throw new Error(`EC curve ${details.namedCurve} not accepted: use P-256, P-384 or P-521`);
      }
      return;
    case 'ed25519':
      return;
    default:
      throw new Error(`public key type ${key.asymmetricKeyType} not accepted`);
  }
}

/** What @peculiar/x509 needs to sign: the WebCrypto key and its signature algorithm. */
export interface SigningKey {
  key: CryptoKey;
  algorithm: { name: string; hash: string };
}

const EC_CURVES: Record<string, { webName: string; hash: string }> = {
  prime256v1: { webName: 'P-256', hash: 'SHA-256' },
  secp384r1: { webName: 'P-384', hash: 'SHA-384' },
  secp521r1: { webName: 'P-521', hash: 'SHA-512' },
};

/**
 * Imports a CA private key for signing. Goes through PKCS#8 DER so keys written
 * by other tools (kubeadm's SEC1/PKCS#1 files) load too. The CryptoKey is
 * non-extractable: nothing downstream can re-export it by accident.
 */
export async function importSigningKey(privateKey: KeyObject): Promise<SigningKey> {
  const pkcs8 = privateKey.export({ type: 'pkcs8', format: 'der' });
  if (privateKey.asymmetricKeyType === 'ec') {
    const curve = EC_CURVES[privateKey.asymmetricKeyDetails?.namedCurve ?? ''];
    if (!curve) throw new Error(`CA key curve ${privateKey.asymmetricKeyDetails?.namedCurve} not supported`);
    const key = await webcrypto.subtle.importKey('pkcs8', pkcs8, { name: 'ECDSA', namedCurve: curve.webName }, false, ['sign']);
    return { key, algorithm: { name: 'ECDSA', hash: curve.hash } };
  }
  if (privateKey.asymmetricKeyType === 'rsa') {
    const algorithm = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
    const key = await webcrypto.subtle.importKey('pkcs8', pkcs8, algorithm, false, ['sign']);
    return { key, algorithm };
  }
  throw new Error(`CA key type ${privateKey.asymmetricKeyType} not supported (use ECDSA or RSA)`);
}
