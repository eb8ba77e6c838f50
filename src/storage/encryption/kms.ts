/**
 * KMS providers: envelope encryption with a data encryption key (DEK) that a
 * KMS plugin (a separate process on a unix socket) encrypts with a key that
 * never leaves it.
 *
 * - v2 (`v2alpha1`): the stored value is an `EncryptedObject` (encrypted
 *   data, the KMS key id, the encrypted DEK, annotations); data sealed with
 *   AES-256-GCM under the DEK, the storage key as additional data. A DEK is
 *   used for a bounded number of writes and then replaced (random 12-byte
 *   nonces stay far below their collision bound).
 * - v1 (`v1beta1`): `<2-byte length><encrypted DEK><AES-CBC data>`, a new DEK
 *   per write as the original.
 * Decrypted DEKs are cached by their encrypted form (bounded LRU,
 * `cachesize`), so reads do not call the plugin per object. Every call has
 * the configured timeout; a plugin that is down fails the write (the
 * original refuses to store plain bytes) and the read of objects whose DEK is
 * not cached.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import grpc from '@grpc/grpc-js';
import type { ProviderConfig } from './config.ts';
import { aescbc, aesgcm, DecryptError, type ValueTransformer } from './providers.ts';
import type { KmsFactory } from './transformers.ts';
import { decodeMessage, encodeMessage, KMS_V1_SERVICE, KMS_V2_SERVICE, type Message } from './kms-protocol.ts';

type KmsProvider = Extract<ProviderConfig, { kind: 'kms' }>;

const DEK_BYTES = 32;
/** Writes sealed under one KMS v2 DEK before a fresh one is made. */
const DEK_MAX_USES = 1 << 20;

interface UnaryClient {
  call(method: string, request: Message, timeoutMs: number): Promise<Message>;
  close(): void;
}

function unaryClient(endpoint: string, service: grpc.ServiceDefinition): UnaryClient {
  const Ctor = grpc.makeGenericClientConstructor(service as grpc.ServiceDefinition<grpc.UntypedServiceImplementation>, 'KeyManagementService');
  // `unix:///path` as the original writes it; grpc-js takes the same form.
  const client = new Ctor(endpoint, grpc.credentials.createInsecure()) as unknown as grpc.Client & Record<string, (req: Message, md: grpc.Metadata, opts: grpc.CallOptions, cb: (err: grpc.ServiceError | null, res?: Message) => void) => void>;
  return {
    call: (method, request, timeoutMs) =>
      new Promise((resolve, reject) => {
        client[method]!(request, new grpc.Metadata(), { deadline: Date.now() + timeoutMs }, (err, res) => {
          if (err !== null) reject(new DecryptError(`KMS plugin ${method} failed: ${err.details || err.message}`));
          else resolve(res ?? {});
        });
      }),
    close: () => client.close(),
  };
}

/** A bounded LRU of decrypted DEKs by their encrypted bytes. */
class DekCache<V> {
  readonly #max: number;
  readonly #map = new Map<string, V>();
  constructor(max: number) {
    this.#max = max;
  }
  get(key: Uint8Array): V | undefined {
    if (this.#max <= 0) return undefined;
    const k = Buffer.from(key).toString('base64');
    const v = this.#map.get(k);
    if (v !== undefined) {
      this.#map.delete(k);
      this.#map.set(k, v);
    }
    return v;
  }
  set(key: Uint8Array, v: V): void {
    if (this.#max <= 0) return;
    const k = Buffer.from(key).toString('base64');
    this.#map.delete(k);
    this.#map.set(k, v);
    if (this.#map.size > this.#max) this.#map.delete(this.#map.keys().next().value!);
  }
}

function kmsV2(p: KmsProvider): ValueTransformer {
  const client = unaryClient(p.endpoint, KMS_V2_SERVICE);
  const deks = new DekCache<ValueTransformer>(p.cachesize);
  interface Dek {
    transformer: ValueTransformer;
    encryptedDEK: Buffer;
    keyID: string;
    annotations: Record<string, Buffer>;
    uses: number;
  }
  let current: Dek | null = null;
  let making: Promise<Dek> | null = null;

  const freshDek = async (): Promise<Dek> => {
    const dek = randomBytes(DEK_BYTES);
    const res = await client.call('Encrypt', { plaintext: dek, uid: randomUUID() }, p.timeoutMs);
    const encryptedDEK = res['ciphertext'] as Buffer;
    const keyID = String(res['keyId'] ?? '');
    if (encryptedDEK.length === 0) throw new DecryptError('KMS plugin Encrypt returned no ciphertext');
    if (keyID === '') throw new DecryptError('KMS plugin Encrypt returned an empty key id');
    const transformer = aesgcm(dek);
    deks.set(encryptedDEK, transformer);
    return { transformer, encryptedDEK, keyID, annotations: (res['annotations'] as Record<string, Buffer>) ?? {}, uses: 0 };
  };

  return {
    async seal(plain, storageKey) {
      let dek: Dek;
      if (current === null || current.uses >= DEK_MAX_USES) {
        making ??= freshDek().finally(() => (making = null));
        dek = await making;
        current = dek;
      } else {
        dek = current;
      }
      dek.uses++;
      const encryptedData = await dek.transformer.seal(plain, storageKey);
      return encodeMessage('v2alpha1.EncryptedObject', { encryptedData, keyID: dek.keyID, encryptedDEK: dek.encryptedDEK, annotations: dek.annotations });
    },
    async open(sealed, storageKey) {
      let obj: Message;
      try {
        obj = decodeMessage('v2alpha1.EncryptedObject', sealed);
      } catch {
        throw new DecryptError('failed to unmarshal the encrypted object');
      }
      const encryptedDEK = obj['encryptedDEK'] as Buffer;
      const encryptedData = obj['encryptedData'] as Buffer;
      if (encryptedDEK.length === 0 || encryptedData.length === 0 || String(obj['keyID'] ?? '') === '') throw new DecryptError('the encrypted object is missing its DEK, data or key id');
      let t = deks.get(encryptedDEK);
      if (t === undefined) {
        const res = await client.call('Decrypt', { ciphertext: encryptedDEK, uid: randomUUID(), keyId: obj['keyID'], annotations: obj['annotations'] ?? {} }, p.timeoutMs);
        const dek = res['plaintext'] as Buffer;
        if (dek.length !== DEK_BYTES) throw new DecryptError('KMS plugin Decrypt returned a key of the wrong size');
        t = aesgcm(dek);
        deks.set(encryptedDEK, t);
      }
      return t.open(encryptedData, storageKey);
    },
  };
}

function kmsV1(p: KmsProvider): ValueTransformer {
  const client = unaryClient(p.endpoint, KMS_V1_SERVICE);
  const deks = new DekCache<ValueTransformer>(p.cachesize);
  return {
    async seal(plain, storageKey) {
      const dek = randomBytes(DEK_BYTES);
      const res = await client.call('Encrypt', { version: 'v1beta1', plain: dek }, p.timeoutMs);
      const cipher = res['cipher'] as Buffer;
      if (cipher.length === 0 || cipher.length > 0xffff) throw new DecryptError('KMS plugin Encrypt returned an unusable ciphertext');
      const t = aescbc(dek);
      deks.set(cipher, t);
      const data = await t.seal(plain, storageKey);
      const len = Buffer.alloc(2);
      len.writeUInt16BE(cipher.length);
      return Buffer.concat([len, cipher, data]);
    },
    async open(sealed, storageKey) {
      if (sealed.length < 2) throw new DecryptError('the stored data is too short');
      const n = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength).readUInt16BE(0);
      if (sealed.length < 2 + n) throw new DecryptError('the stored data is too short for its key');
      const cipher = sealed.subarray(2, 2 + n);
      let t = deks.get(cipher);
      if (t === undefined) {
        const res = await client.call('Decrypt', { version: 'v1beta1', cipher: Buffer.from(cipher) }, p.timeoutMs);
        t = aescbc(res['plain'] as Buffer);
        deks.set(cipher, t);
      }
      return t.open(sealed.subarray(2 + n), storageKey);
    },
  };
}

export function kmsTransformerFactory(): KmsFactory {
  return (p) => (p.apiVersion === 'v2' ? kmsV2(p) : kmsV1(p));
}
