import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runShardSuite } from './shard-suite.ts';

runShardSuite('the embedded store', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'orch-shards-'));
  return {
    config: { backend: 'embedded', dataDir: dir },
    cleanup: () => fs.rm(dir, { recursive: true, force: true }),
  };
});
