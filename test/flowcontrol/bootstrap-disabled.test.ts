/**
 * With priority and fairness off (`--enable-priority-and-fairness=false`),
 * the server ensures no bootstrap configuration and runs no Dangling writer:
 * the flowcontrol objects are then plain API objects, as in the original.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { it } from 'node:test';
import { parseArgs } from '../../src/server/options.ts';
import { createLogger } from '../../src/server/logging.ts';
import { startServer } from '../../src/server/server.ts';
import { processApiFlavor } from '../../src/naming/flavor.ts';
import { flowcontrolTypes } from '../../src/flowcontrol/bootstrap/ensure.ts';
import { freePort } from '../support/test-server.ts';

it('no bootstrap objects and no post-start check when priority and fairness is off', async () => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'orch-apf-off-'));
  const options = parseArgs([
    `--secure-port=${await freePort()}`, '--uws-port=0', '--bind-address=127.0.0.1', `--data-dir=${dataDir}`, '--shards=1',
    '--frontend-threads=1', `--api-flavor=${processApiFlavor()}`, '--controllers=*,-root-ca-cert-publisher',
    '--enable-priority-and-fairness=false',
  ]);
  const server = await startServer(options, createLogger({ level: 'silent' }));
  try {
    assert.equal(server.apfBootstrap, null);
    const types = flowcontrolTypes(server.registry)!;
    for (const rt of [types.flowSchemas, types.priorityLevels]) {
      assert.equal((await server.store.list(rt, { kind: 'latest' }, {}, {})).count, 0, rt.resource);
    }
    assert.doesNotMatch(server.health.checksFor('readyz').map((c) => c.name).join(','), /priority-and-fairness/);
  } finally {
    await server.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});
