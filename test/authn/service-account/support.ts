/**
 * Helpers for the service-account token tests: an in-memory ObjectSource
 * (gets counted, changes pushed by the test) and key pairs.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { AuthnResource, ObjectChange, ObjectSource } from '../../../src/authn/object-source.ts';
import type { KObject } from '../../../src/registry/object.ts';
import { keyId, signingKeyOf, type SigningKey, type VerificationKey } from '../../../src/authn/service-account/keys.ts';

export class MemoryObjectSource implements ObjectSource {
  readonly objects = new Map<string, KObject>();
  readonly listeners = new Map<AuthnResource, Set<(c: ObjectChange) => void>>();
  gets = 0;
  /** Called inside get, before it answers (to interleave changes with a verification). */
  onGet: (() => void) | undefined;

  async get(resource: AuthnResource, namespace: string, name: string): Promise<KObject | null> {
    this.gets++;
    this.onGet?.();
    return this.objects.get(`${resource}/${namespace}/${name}`) ?? null;
  }

  onChange(resource: AuthnResource, listener: (change: ObjectChange) => void): () => void {
    let set = this.listeners.get(resource);
    if (set === undefined) this.listeners.set(resource, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  close(): void {}

  /** Stores (or replaces) an object and tells the listeners. */
  put(resource: AuthnResource, obj: KObject, type: 'ADDED' | 'MODIFIED' = 'ADDED'): void {
    const ns = obj.metadata.namespace ?? '';
    const name = obj.metadata.name ?? '';
    this.objects.set(`${resource}/${ns}/${name}`, obj);
    this.emit(resource, { type, namespace: ns, name, uid: obj.metadata.uid ?? '', object: obj });
  }

  remove(resource: AuthnResource, namespace: string, name: string): void {
    const obj = this.objects.get(`${resource}/${namespace}/${name}`);
    if (obj === undefined) return;
    this.objects.delete(`${resource}/${namespace}/${name}`);
    this.emit(resource, { type: 'DELETED', namespace, name, uid: obj.metadata.uid ?? '', object: obj });
  }

  emit(resource: AuthnResource, change: ObjectChange): void {
    for (const l of this.listeners.get(resource) ?? []) l(change);
  }
}

export function rsaPair(): { signing: SigningKey; verification: VerificationKey; privateKey: KeyObject } {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const signing = signingKeyOf(privateKey, 'test');
  return { signing, verification: { key: signing.publicKey, kid: keyId(signing.publicKey), alg: 'RS256' }, privateKey };
}

export function ecPair(curve: 'prime256v1' | 'secp384r1' = 'prime256v1'): { signing: SigningKey; verification: VerificationKey; privateKey: KeyObject } {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: curve });
  const signing = signingKeyOf(privateKey, 'test');
  return { signing, verification: { key: signing.publicKey, kid: signing.kid, alg: signing.alg }, privateKey };
}

export function object(name: string, uid: string, extra: Partial<KObject> = {}): KObject {
  return { metadata: { name, namespace: 'ns1', uid }, ...extra } as KObject;
}
