/**
 * The RemoteStore (a shard's view of the embedded store across a thread
 * boundary) must behave exactly like the store it fronts.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import { runStoreConformance } from './suite.ts';
import { EmbeddedStore } from '../../../src/storage/embedded/index.ts';
import { StoreServer } from '../../../src/storage/remote/server.ts';
import { RemoteStore } from '../../../src/storage/remote/client.ts';

runStoreConformance('remote (embedded behind a MessagePort)', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'orch-remote-'));
  const owned = await EmbeddedStore.open({ dir });
  const server = new StoreServer(owned);
  const channel = new MessageChannel();
  server.connect(channel.port1);
  const store = new RemoteStore(channel.port2);
  return {
    store,
    cleanup: async () => {
      await store.close();
      server.close();
      await owned.close();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
});
