/** Runs the shared storage conformance suite against the embedded backend, one fresh directory per case. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedStore } from '../../../src/storage/embedded/index.ts';
import { runStoreConformance } from './suite.ts';

runStoreConformance('embedded', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'orch-embedded-conf-'));
  const store = await EmbeddedStore.open({ dir });
  return {
    store,
    cleanup: async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});
