/**
 * Two servers started at once on one real etcd converge on the APF bootstrap
 * configuration (every object created once, no spec written twice), and
 * their Dangling condition writers do not fight: each change of a schema's
 * condition is one write to the store, whichever server makes it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startEtcd, type EtcdServer } from '../support/etcd-server.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { apiGroup } from '../../src/naming/index.ts';
import { mandatoryFlowSchemas, mandatoryPriorityLevels, suggestedFlowSchemas, suggestedPriorityLevels } from '../../src/flowcontrol/bootstrap/objects.ts';
import type { KObject } from '../../src/registry/object.ts';

const GROUP = apiGroup('flowcontrol.apiserver');
const FC = `/apis/${GROUP}/v1beta2`;

interface Item {
  metadata: { name: string; generation: number; resourceVersion: string };
  status?: { conditions?: Array<{ type: string; status: string }> };
}

function danglingOf(o: KObject | Item | undefined): string | undefined {
  const status = (o as { status?: { conditions?: Array<{ type: string; status: string }> } } | undefined)?.status;
  return status?.conditions?.find((c) => c.type === 'Dangling')?.status;
}

async function until(what: string, probe: () => Promise<boolean> | boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('APF bootstrap with two servers on one etcd', () => {
  let etcd: EtcdServer;
  let a: TestServer;
  let b: TestServer;
  before(async () => {
    etcd = await startEtcd({ unsafeNoFsync: true });
    const flags = ['--storage-backend=etcd3', `--etcd-servers=${etcd.endpoint}`, '--etcd-prefix=/orch-apf-bootstrap'];
    [a, b] = await Promise.all([startTestServer(flags), startTestServer(flags)]);
  });
  after(async () => {
    await a?.stop();
    await b?.stop();
    await etcd?.stop();
  });

  it('both ensure the same objects, each created once and never rewritten', async () => {
    // Both servers' first passes are done (they awaited them at start); a pass more from each finds nothing to do.
    const [ra, rb] = await Promise.all([a.server.apfBootstrap!.producer.ensureNow(), b.server.apfBootstrap!.producer.ensureNow()]);
    assert.deepEqual([ra, rb], [{ created: [], updated: [], deleted: [] }, { created: [], updated: [], deleted: [] }]);
    for (const [kind, expected] of [
      ['flowschemas', [...mandatoryFlowSchemas(), ...suggestedFlowSchemas()]],
      ['prioritylevelconfigurations', [...mandatoryPriorityLevels(), ...suggestedPriorityLevels()]],
    ] as const) {
      const items = (await a.request('GET', `${FC}/${kind}`)).json<{ items: Item[] }>().items;
      assert.deepEqual(items.map((o) => o.metadata.name).sort(), expected.map((o) => o.metadata.name!).sort());
      for (const o of items) assert.equal(o.metadata.generation, 1, `${kind}/${o.metadata.name}`);
    }
  });

  it('a condition change is one write, whichever server makes it', async () => {
    const w = await a.watch(`${FC}/flowschemas?watch=1&fieldSelector=metadata.name%3Dorphan`);
    try {
      const fs = {
        apiVersion: `${GROUP}/v1beta2`, kind: 'FlowSchema', metadata: { name: 'orphan' },
        spec: { priorityLevelConfiguration: { name: 'nowhere' }, matchingPrecedence: 5000, rules: [{ subjects: [{ kind: 'User', user: { name: 'alice' } }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/x'] }] }] },
      };
      assert.equal((await a.request('POST', `${FC}/flowschemas`, fs)).status, 201);
      const seen = async (want: string): Promise<void> => {
        await until(`both servers to see Dangling ${want}`, () => [a, b].every((s) => danglingOf(s.server.apfBootstrap!.dangling.schema('orphan')) === want));
        await Promise.all([a.server.apfBootstrap!.dangling.drained(), b.server.apfBootstrap!.dangling.drained()]);
      };
      await seen('True');
      const pl = { apiVersion: `${GROUP}/v1beta2`, kind: 'PriorityLevelConfiguration', metadata: { name: 'nowhere' }, spec: { type: 'Limited', limited: { assuredConcurrencyShares: 3, limitResponse: { type: 'Reject' } } } };
      assert.equal((await b.request('POST', `${FC}/prioritylevelconfigurations`, pl)).status, 201);
      await seen('False');
      // A no-op pass on each server (what every minute brings) writes nothing either.
      await Promise.all([a.server.apfBootstrap!.producer.ensureNow(), b.server.apfBootstrap!.producer.ensureNow()]);
      const final = (await a.request('GET', `${FC}/flowschemas/orphan`)).json<Item>();
      await w.until(() => w.events.some((e) => e.object.metadata.resourceVersion === final.metadata.resourceVersion), 'the last write on the watch');
      const modified = w.events.filter((e) => e.type === 'MODIFIED').map((e) => danglingOf(e.object as unknown as Item));
      assert.deepEqual(modified, ['True', 'False'], 'one write per change of the condition');
    } finally {
      w.close();
    }
  });
});
