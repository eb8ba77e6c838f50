/** The etcd v3 storage backend (`--storage-backend=etcd3`). */
export { EtcdStore, type EtcdStoreOptions } from './store.ts';
export { DEFAULT_COMPACTION_KEY } from './compaction.ts';
export { hasOrderedProgress, type ProgressMode } from './progress.ts';
