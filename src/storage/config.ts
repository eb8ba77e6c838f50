/**
 * StoreConfig says which backend a process (and each of its shards) uses.
 * It is plain data so that it can be handed to worker threads.
 */
import type { Store } from './interface.ts';

export type StoreConfig =
  | { backend: 'embedded'; dataDir: string }
  | { backend: 'etcd3'; endpoints: string[]; prefix: string };

/**
 * Opens a store that a thread may own by itself. The embedded store has one
 * owner per data directory (the store host); other threads reach it through
 * a RemoteStore instead.
 */
export async function openOwnedStore(config: StoreConfig): Promise<Store> {
  if (config.backend === 'etcd3') {
    const { EtcdStore } = await import('./etcd/index.ts');
    return new EtcdStore({ endpoints: config.endpoints, prefix: config.prefix });
  }
  const { EmbeddedStore } = await import('./embedded/index.ts');
  return EmbeddedStore.open({ dir: config.dataDir });
}
