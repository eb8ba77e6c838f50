/**
 * Thread entry of one shard, run by a Piscina pool of exactly one thread (so
 * the shard's caches stay in one place) with Atomics waiting disabled (the
 * thread holds store watches and streams between tasks).
 *
 * Task `init` builds the ShardRuntime and answers once its caches are loaded;
 * from then on all traffic uses the MessagePort handed over in `init`, and
 * those handed over by later `attach` tasks (front-end threads).
 */
import { SharedRevision } from '../src/storage/shared-revision.ts';
import type { MessagePort } from 'node:worker_threads';
import type { Store } from '../src/storage/interface.ts';
import { openOwnedStore, type ShardStoreConfig } from '../src/storage/config.ts';
import { encryptingStore } from '../src/storage/encryption/index.ts';
import { RemoteStore } from '../src/storage/remote/client.ts';
import { ShardRuntime, type ShardRuntimeOptions } from '../shards/shard-runtime.ts';
import type { ResourceSpec } from '../shards/protocol.ts';

export interface ShardInitTask {
  kind: 'init';
  shardIndex: number;
  port: MessagePort;
  resources: ResourceSpec[];
  store: ShardStoreConfig;
  /** For the embedded backend: a port to the store host thread. */
  storePort?: MessagePort | undefined;
  /** The name of storePort's connection at the store host (routed writes answer on it: shards/direct-writes.ts). */
  storeConn?: string | undefined;
  /** For the embedded backend: the store host's committed revision (storage/shared-revision.ts). */
  storeRevisionCell?: SharedArrayBuffer | undefined;
  options: ShardRuntimeOptions;
  /** Load these resources as of these revisions so resuming watchers find their events. */
  loadAt?: Record<string, number> | undefined;
}

export interface ShardStopTask {
  kind: 'stop';
}

/** One more client of this shard (a front-end thread's own channel), answered on `port`. */
export interface ShardAttachTask {
  kind: 'attach';
  port: MessagePort;
}

let runtime: ShardRuntime | null = null;
let store: Store | null = null;

export default async function shardTask(task: ShardInitTask | ShardStopTask | ShardAttachTask): Promise<{ ok: true }> {
  if (task.kind === 'attach') {
    if (runtime === null) {
      task.port.close();
      throw new Error('shard is not initialized');
    }
    runtime.attach(task.port);
    return { ok: true };
  }
  if (task.kind === 'stop') {
    runtime?.close();
    await store?.close();
    runtime = null;
    store = null;
    return { ok: true };
  }
  if (runtime !== null) throw new Error('shard already initialized');
  const raw =
    task.store.backend === 'embedded'
      ? new RemoteStore(task.storePort!, 'embedded', task.storeRevisionCell === undefined ? undefined : new SharedRevision(task.storeRevisionCell), (m) => runtime?.forwardWritten(m))
      : await openOwnedStore(task.store);
  // Encryption at rest sits between the caches and the store: only sealed bytes reach the WAL, snapshots or etcd.
  store = task.store.encryption === undefined ? raw : await encryptingStore(raw, task.store.encryption, task.resources);
  runtime = new ShardRuntime(store, task.resources, task.port, {
    ...task.options,
    loadAt: task.loadAt,
    ...(task.store.backend === 'embedded' && task.storeRevisionCell !== undefined ? { storeRevisionCell: task.storeRevisionCell } : {}),
    ...(task.storeConn !== undefined && task.store.encryption === undefined ? { storeConn: task.storeConn } : {}),
  });
  await runtime.start();
  return { ok: true };
}
