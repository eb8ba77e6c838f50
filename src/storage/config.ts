/**
 * StoreConfig says which backend a process (and each of its shards) uses.
 * It is plain data so that it can be handed to worker threads.
 */
import type { SharedRevision } from './shared-revision.ts';
import type { Store } from './interface.ts';
import type { RecoveryNote } from './embedded/recovery.ts';
import type { EncryptionConfig } from './encryption/config.ts';

export type StoreConfig =
  | {
      backend: 'embedded';
      dataDir: string;
      /** Cut a damaged WAL at the damage instead of refusing to start (--embedded-wal-repair). */
      repair?: boolean;
    }
  | { backend: 'etcd3'; endpoints: string[]; prefix: string };

/** Where the shards store objects, and how values are sealed on the way (encryption at rest; absent: as they are). */
export type ShardStoreConfig = StoreConfig & { encryption?: EncryptionConfig | undefined };

/** Something opening a store found that belongs in the server log. Plain data, so it can cross threads. */
export type StoreOpenNote = RecoveryNote;

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
  return EmbeddedStore.open({ dir: config.dataDir, repair: config.repair === true });
}

/** What opening `store` found worth logging: the embedded store's recovery notes (cuts, repairs, skipped snapshots). */
export async function storeOpenNotes(store: Store): Promise<StoreOpenNote[]> {
  const { EmbeddedStore } = await import('./embedded/index.ts');
  return store instanceof EmbeddedStore ? store.stats().recovery.notes : [];
}

/**
 * Publishes the embedded store's committed revision into `cell` from now on
 * (storage/shared-revision.ts); false for stores that cannot (etcd: a
 * consistent read must ask the cluster).
 */
export async function publishCommittedRevision(store: Store, cell: SharedRevision): Promise<boolean> {
  const { EmbeddedStore } = await import('./embedded/index.ts');
  if (!(store instanceof EmbeddedStore)) return false;
  store.onCommitted((revision) => cell.publish(revision));
  return true;
}
