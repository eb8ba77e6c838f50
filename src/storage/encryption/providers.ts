/**
 * Value transformers of encryption at rest, each writing the original's
 * layout after its prefix (`<flavor>:enc:<provider>:v1:<key name>:`), so
 * that data written by either server reads back in the other:
 * - aescbc: 16-byte IV, then AES-CBC with PKCS#7 padding;
 * - aesgcm: 12-byte nonce, then AES-GCM with the 16-byte tag appended; the
 *   storage key is the additional authenticated data, so a value copied
 *   under another key does not decrypt;
 * - secretbox: 24-byte nonce, then XSalsa20-Poly1305 (NaCl secretbox);
 * - identity: the bytes as they are; refuses to pass encrypted bytes on as
 *   plain ones.
 */
import { createCipheriv, createDecipheriv, randomBytes, type CipherGCMTypes } from 'node:crypto';
import nacl from 'tweetnacl';
import { names } from '../../naming/index.ts';

/** One way of writing values, and of reading the values it wrote. */
export interface ValueTransformer {
  /** The stored form of `plain` (without the prefix: the caller adds it). */
  seal(plain: Uint8Array, storageKey: string): Promise<Uint8Array> | Uint8Array;
  /** The plain bytes of a stored value whose prefix was already matched and cut. */
  open(sealed: Uint8Array, storageKey: string): Promise<Uint8Array> | Uint8Array;
}

export class DecryptError extends Error {}

/** `k8s:enc:` in the kubernetes flavor: the first label of the API group suffix. */
export function encryptionPrefixRoot(): string {
  return `${names.apiGroupSuffix.split('.')[0]!}:enc:`;
}

export function aescbc(key: Uint8Array): ValueTransformer {
  const algo = `aes-${key.length * 8}-cbc`;
  return {
    seal(plain) {
      const iv = randomBytes(16);
      const c = createCipheriv(algo, key, iv);
      return Buffer.concat([iv, c.update(plain), c.final()]);
    },
    open(sealed) {
      if (sealed.length < 32 || sealed.length % 16 !== 0) throw new DecryptError('the stored data is not a multiple of the block size');
      try {
        const d = createDecipheriv(algo, key, sealed.subarray(0, 16));
        return Buffer.concat([d.update(sealed.subarray(16)), d.final()]);
      } catch {
        throw new DecryptError('invalid padding on input');
      }
    },
  };
}

export function aesgcm(key: Uint8Array): ValueTransformer {
  const algo = `aes-${key.length * 8}-gcm` as CipherGCMTypes;
  return {
    seal(plain, storageKey) {
      const nonce = randomBytes(12);
      const c = createCipheriv(algo, key, nonce);
      c.setAAD(Buffer.from(storageKey));
      const body = Buffer.concat([c.update(plain), c.final()]);
      return Buffer.concat([nonce, body, c.getAuthTag()]);
    },
    open(sealed, storageKey) {
      if (sealed.length < 12 + 16) throw new DecryptError('the stored data was shorter than the required size');
      try {
        const d = createDecipheriv(algo, key, sealed.subarray(0, 12));
        d.setAAD(Buffer.from(storageKey));
        d.setAuthTag(sealed.subarray(sealed.length - 16));
        return Buffer.concat([d.update(sealed.subarray(12, sealed.length - 16)), d.final()]);
      } catch {
        throw new DecryptError('cipher: message authentication failed');
      }
    },
  };
}

export function secretbox(key: Uint8Array): ValueTransformer {
  return {
    seal(plain) {
      const nonce = randomBytes(nacl.secretbox.nonceLength);
      return Buffer.concat([nonce, nacl.secretbox(plain, nonce, key)]);
    },
    open(sealed) {
      if (sealed.length < nacl.secretbox.nonceLength + nacl.secretbox.overheadLength) throw new DecryptError('the stored data was shorter than the required size');
      const plain = nacl.secretbox.open(sealed.subarray(nacl.secretbox.nonceLength), sealed.subarray(0, nacl.secretbox.nonceLength), key);
      if (plain === null) throw new DecryptError('output array was not large enough for encryption');
      return plain;
    },
  };
}

export const identity: ValueTransformer = {
  seal: (plain) => plain,
  open(sealed) {
    if (Buffer.from(sealed.buffer, sealed.byteOffset, Math.min(sealed.byteLength, 64)).toString('latin1').startsWith(encryptionPrefixRoot())) {
      throw new DecryptError('identity transformer tried to read encrypted data');
    }
    return sealed;
  },
};
