/**
 * Encryption at rest for a shard's store: the configuration compiled for the
 * shard's resources, KMS connections made only when a rule names a KMS
 * provider.
 */
import type { Store } from '../interface.ts';
import type { ResourceSpec } from '../../../shards/protocol.ts';
import type { EncryptionConfig } from './config.ts';
import { compileEncryption, type KmsFactory } from './transformers.ts';
import { TransformingStore } from './transforming-store.ts';

export { readEncryptionConfig, parseEncryptionConfig, EncryptionConfigError, type EncryptionConfig } from './config.ts';

const MAX_FAILURE_WARNINGS = 100;

/** `pods`, `deployments.apps`: how the configuration names the resource a storage key belongs to. */
export function resourceNameOf(spec: Pick<ResourceSpec, 'groupResource'>): string {
  const slash = spec.groupResource.indexOf('/');
  const group = spec.groupResource.slice(0, slash);
  const resource = spec.groupResource.slice(slash + 1);
  return group === '' ? resource : `${resource}.${group}`;
}

export async function encryptingStore(inner: Store, config: EncryptionConfig, resources: readonly Pick<ResourceSpec, 'groupResource' | 'prefix'>[]): Promise<TransformingStore> {
  let kms: KmsFactory | undefined;
  if (config.rules.some((r) => r.providers.some((p) => p.kind === 'kms'))) {
    const { kmsTransformerFactory } = await import('./kms.ts');
    kms = kmsTransformerFactory();
  }
  const forResource = compileEncryption(config, kms);
  // Longest prefix first: `/apps/deployments/` before any shorter prefix it extends.
  const byPrefix = [...resources].sort((a, b) => b.prefix.length - a.prefix.length).map((s) => ({ prefix: s.prefix, transformers: forResource(resourceNameOf(s)) }));
  const fallback = forResource('');
  let warnings = 0;
  return new TransformingStore(inner, {
    forKey: (key) => byPrefix.find((p) => key.startsWith(p.prefix))?.transformers ?? fallback,
    onOpenFailure: (key, reason) => {
      // The key names the object, never its content; bounded so a bad key cannot flood the log.
      if (warnings++ < MAX_FAILURE_WARNINGS) process.emitWarning(`cannot decrypt the stored value of ${key}: ${reason}`, { code: 'ORCH_ENCRYPTION' });
    },
  });
}
