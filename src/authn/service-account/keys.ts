/**
 * Service-account keys: the verification keys (`--service-account-key-file`,
 * PEM bundles of public keys, private keys or certificates, RSA or ECDSA, as
 * the original's keyutil.ParsePublicKeysPEM reads them) and the signing key
 * (`--service-account-signing-key-file`). Each public key gets the original's
 * key ID: base64url (no padding) of SHA-256 over its DER SubjectPublicKeyInfo,
 * which is what `kid` in our tokens and in the JWKS document carries.
 */
import { createHash, createPrivateKey, createPublicKey, KeyObject, X509Certificate } from 'node:crypto';

export type SigningAlgorithm = 'RS256' | 'ES256' | 'ES384' | 'ES512';

export interface VerificationKey {
  readonly key: KeyObject;
  readonly kid: string;
  readonly alg: SigningAlgorithm;
}

export interface SigningKey {
  readonly key: KeyObject;
  readonly kid: string;
  readonly alg: SigningAlgorithm;
  /** The public half, to check it is among the verification keys. */
  readonly publicKey: KeyObject;
}

export class KeyFileError extends Error {}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]+?-----END \1-----/g;

/** The original's keyIDFromPublicKey. */
export function keyId(publicKey: KeyObject): string {
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('base64url');
}

/** RS256 for RSA, ES256/384/512 by curve for ECDSA; undefined for any other key type. */
export function algorithmOf(key: KeyObject): SigningAlgorithm | undefined {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType !== 'ec') return undefined;
  switch (key.asymmetricKeyDetails?.namedCurve) {
    case 'prime256v1':
    case 'P-256':
      return 'ES256';
    case 'secp384r1':
    case 'P-384':
      return 'ES384';
    case 'secp521r1':
    case 'P-521':
      return 'ES512';
    default:
      return undefined;
  }
}

function blockPublicKey(label: string, block: string): KeyObject | undefined {
  try {
    return label === 'CERTIFICATE' ? new X509Certificate(block).publicKey : createPublicKey(block);
  } catch {
    return undefined;
  }
}

/**
 * Every RSA or ECDSA public key in a PEM bundle (private keys give their
 * public half). Blocks that are no such key are skipped, as the original
 * tolerates them; a bundle with none is an error naming `source`.
 */
export function parsePublicKeysPem(text: string, source: string): VerificationKey[] {
  const keys: VerificationKey[] = [];
  for (const [block, label] of text.matchAll(PEM_BLOCK)) {
    const key = blockPublicKey(label!, block);
    if (key === undefined) continue;
    const alg = algorithmOf(key);
    if (alg === undefined) continue;
    keys.push({ key, kid: keyId(key), alg });
  }
  if (keys.length === 0) throw new KeyFileError(`${source}: data does not contain any valid RSA or ECDSA public keys`);
  return keys;
}

/** The signing key from a PEM private key (PKCS#8, PKCS#1 or SEC1). */
export function parseSigningKeyPem(text: string, source: string): SigningKey {
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: text, format: 'pem' });
  } catch {
    // The parser's message may quote the input; name the file only.
    throw new KeyFileError(`${source}: not a PEM private key`);
  }
  return signingKeyOf(key, source);
}

export function signingKeyOf(key: KeyObject, source: string): SigningKey {
  const alg = algorithmOf(key);
  if (alg === undefined) throw new KeyFileError(`${source}: the signing key must be RSA or ECDSA (P-256, P-384, P-521)`);
  const publicKey = createPublicKey(key);
  return { key, kid: keyId(publicKey), alg, publicKey };
}

/** Verification keys without repeats (the same key given twice is one key). */
export function uniqueKeys(keys: readonly VerificationKey[]): VerificationKey[] {
  const seen = new Map<string, VerificationKey>();
  for (const k of keys) if (!seen.has(k.kid)) seen.set(k.kid, k);
  return [...seen.values()];
}
