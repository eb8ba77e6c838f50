/**
 * Thread entry of the embedded store's host: the one thread that owns the
 * data directory. Shards talk to it over MessagePorts (RemoteStore), so the
 * main thread's HTTP work never delays a group commit.
 */
import type { MessagePort } from 'node:worker_threads';
import type { Store } from '../src/storage/interface.ts';
import { openOwnedStore, publishCommittedRevision, storeOpenNotes, type StoreConfig, type StoreOpenNote } from '../src/storage/config.ts';
import { SharedRevision } from '../src/storage/shared-revision.ts';
import { StoreServer } from '../src/storage/remote/server.ts';
import { Compactor } from '../src/storage/compactor.ts';

export type StoreHostTask =
  | {
      kind: 'open';
      store: StoreConfig;
      /** Compact history on this schedule (0 = never). */
      compactionIntervalMs?: number;
      /** Where to publish the committed revision for the shards' consistent reads (SharedRevision). */
      revisionCell?: SharedArrayBuffer;
    }
  | { kind: 'connect'; port: MessagePort; /** A shard's connection: routed writes answer on it (remote/protocol.ts, StoreVia). */ name?: string | undefined }
  | { kind: 'close' };

let store: Store | null = null;
let server: StoreServer | null = null;
let compactor: Compactor | null = null;

export interface StoreHostResult {
  ok: true;
  /** On open: what recovery did, for the main thread to log (this thread has no logger). */
  notes?: StoreOpenNote[];
}

export default async function storeHostTask(task: StoreHostTask): Promise<StoreHostResult> {
  switch (task.kind) {
    case 'open':
      if (store !== null) throw new Error('store already open');
      store = await openOwnedStore(task.store);
      server = new StoreServer(store);
      if (task.revisionCell !== undefined) await publishCommittedRevision(store, new SharedRevision(task.revisionCell));
      if (task.compactionIntervalMs !== undefined && task.compactionIntervalMs > 0) {
        // The host owns the only copy of the data, so it alone compacts it.
        compactor = new Compactor(store, { intervalMs: task.compactionIntervalMs });
        compactor.start();
      }
      return { ok: true, notes: await storeOpenNotes(store) };
    case 'connect':
      if (server === null) throw new Error('store is not open');
      server.connect(task.port, task.name);
      return { ok: true };
    case 'close':
      await compactor?.stop();
      compactor = null;
      server?.close();
      await store?.close();
      server = null;
      store = null;
      return { ok: true };
  }
}
