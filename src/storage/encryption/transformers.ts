/**
 * Which transformer writes and which reads each stored value: the rules of
 * the EncryptionConfiguration compiled once per resource.
 *
 * A resource's transformers are its rule's providers in order, each key of a
 * provider its own prefix: the first writes; a read uses the one whose
 * prefix the value carries (identity, with no prefix, matches what no other
 * does). A value read through any but the first is "stale": it is rewritten
 * by the next update even when the object did not change, which is how keys
 * are rotated (add the new key first, restart, rewrite every object).
 */
import type { EncryptionConfig, ProviderConfig } from './config.ts';
import { aescbc, aesgcm, DecryptError, encryptionPrefixRoot, identity, secretbox, type ValueTransformer } from './providers.ts';

export interface PrefixedTransformer {
  readonly prefix: Uint8Array;
  readonly transformer: ValueTransformer;
}

/** Builds a KMS provider's transformer (kms.ts); injected so that configs without KMS need no gRPC. */
export type KmsFactory = (p: Extract<ProviderConfig, { kind: 'kms' }>) => ValueTransformer;

export class ResourceTransformers {
  readonly #list: readonly PrefixedTransformer[];

  constructor(list: readonly PrefixedTransformer[]) {
    this.#list = list;
  }

  /** Whether values are written as they are (no rule, or identity first). */
  get writesPlain(): boolean {
    return this.#list.length === 0 || this.#list[0]!.transformer === identity;
  }

  async seal(plain: Uint8Array, storageKey: string): Promise<Uint8Array> {
    const first = this.#list[0];
    if (first === undefined) return plain;
    const sealed = await first.transformer.seal(plain, storageKey);
    if (first.prefix.length === 0) return sealed;
    const out = new Uint8Array(first.prefix.length + sealed.length);
    out.set(first.prefix);
    out.set(sealed, first.prefix.length);
    return out;
  }

  /** The plain bytes and whether they were read through another than the writing transformer. */
  async open(stored: Uint8Array, storageKey: string): Promise<{ plain: Uint8Array; stale: boolean }> {
    if (this.#list.length === 0) return { plain: stored, stale: false };
    for (let i = 0; i < this.#list.length; i++) {
      const t = this.#list[i]!;
      if (!startsWith(stored, t.prefix)) continue;
      if (t.prefix.length === 0 && this.#carriesOtherPrefix(stored)) continue;
      const plain = await t.transformer.open(stored.subarray(t.prefix.length), storageKey);
      return { plain, stale: i !== 0 };
    }
    throw new DecryptError('no matching prefix found');
  }

  /** Identity reads values without any provider's prefix only. */
  #carriesOtherPrefix(stored: Uint8Array): boolean {
    return this.#list.some((t) => t.prefix.length > 0 && startsWith(stored, t.prefix));
  }
}

/** Compiles the configuration: `forResource(name)` answers the transformers of `pods`, `deployments.apps`, ... */
export function compileEncryption(config: EncryptionConfig, kms?: KmsFactory): (resource: string) => ResourceTransformers {
  const root = encryptionPrefixRoot();
  const built = config.rules.map((rule) => ({
    resources: rule.resources,
    transformers: new ResourceTransformers(rule.providers.flatMap((p) => providerTransformers(p, root, kms))),
  }));
  const none = new ResourceTransformers([]);
  const cache = new Map<string, ResourceTransformers>();
  return (resource) => {
    let t = cache.get(resource);
    if (t === undefined) {
      const group = resource.includes('.') ? resource.slice(resource.indexOf('.') + 1) : '';
      t = built.find((r) => r.resources.some((n) => n === resource || n === '*.*' || (n === `*.${group}` && group !== '') || (n === '*.' && group === '')))?.transformers ?? none;
      cache.set(resource, t);
    }
    return t;
  };
}

function providerTransformers(p: ProviderConfig, root: string, kms: KmsFactory | undefined): PrefixedTransformer[] {
  const enc = (s: string): Uint8Array => new Uint8Array(Buffer.from(s));
  switch (p.kind) {
    case 'identity':
      return [{ prefix: new Uint8Array(0), transformer: identity }];
    case 'aescbc':
    case 'aesgcm':
    case 'secretbox': {
      const make = p.kind === 'aescbc' ? aescbc : p.kind === 'aesgcm' ? aesgcm : secretbox;
      return p.keys.map((k) => ({ prefix: enc(`${root}${p.kind}:v1:${k.name}:`), transformer: make(k.secret) }));
    }
    case 'kms': {
      if (kms === undefined) throw new Error(`KMS provider ${JSON.stringify(p.name)} is configured but KMS is not available in this thread`);
      return [{ prefix: enc(`${root}kms:${p.apiVersion}:${p.name}:`), transformer: kms(p) }];
    }
  }
}

function startsWith(b: Uint8Array, prefix: Uint8Array): boolean {
  if (b.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (b[i] !== prefix[i]) return false;
  return true;
}
