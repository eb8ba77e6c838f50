/**
 * The repair pass: allocations services hold but the record lacks are added,
 * allocations nobody holds are released only after LEAK_PASSES passes, a
 * record written for another range is rebuilt, and a pass that races an
 * allocation starts over rather than losing it.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryRangeStore } from '../../../src/registry/service-allocation/range-store.ts';
import { AllocationRepair, LEAK_PASSES } from '../../../src/registry/service-allocation/repair.ts';
import { parseServiceClusterIPRanges, parseServiceNodePortRange } from '../../../src/registry/service-allocation/config.ts';
import type { KObject } from '../../../src/registry/object.ts';
import { OptionsError, parseArgs } from '../../../src/server/options.ts';
import { allocated, created, server, service, spec, type Server } from './support.ts';

function repairOf(s: Server, services: () => KObject[], warnings: string[] = []): AllocationRepair {
  return new AllocationRepair({ ipRanges: s.ipRanges, nodePorts: s.nodePorts, listServices: async () => services(), log: { warn: (_o, msg) => warnings.push(msg) } });
}

describe('allocation repair', () => {
  it('adds what existing services hold to an empty record (e.g. after the record was lost)', async () => {
    const s = server(new MemoryRangeStore());
    const stored: KObject[] = [
      { kind: 'Service', metadata: { name: 'a', namespace: 'x' }, spec: { type: 'NodePort', clusterIP: '10.0.0.7', clusterIPs: ['10.0.0.7'], ports: [{ port: 80, nodePort: 30007 }] } },
      { kind: 'Service', metadata: { name: 'b', namespace: 'x' }, spec: { type: 'ClusterIP', clusterIP: 'None', clusterIPs: ['None'] } },
      { kind: 'Service', metadata: { name: 'c', namespace: 'x' }, spec: { type: 'LoadBalancer', externalTrafficPolicy: 'Local', healthCheckNodePort: 30009, clusterIP: '10.0.0.8', clusterIPs: ['10.0.0.8'], ports: [{ port: 80, nodePort: 30008 }] } },
    ];
    const warnings: string[] = [];
    await repairOf(s, () => stored, warnings).runOnce();
    assert.deepEqual((await allocated(s.ipRanges[0]!)).sort(), ['10.0.0.7', '10.0.0.8']);
    assert.deepEqual((await allocated(s.nodePorts)).sort(), [30007, 30008, 30009]);
    const svc = service({ clusterIP: '10.0.0.7', ports: [{ port: 80 }] }, 'again');
    await assert.rejects(created(s, svc), /provided IP is already allocated/);
  });

  it(`releases an allocation no service holds only on the ${LEAK_PASSES}rd pass that finds it leaked`, async () => {
    const s = server(new MemoryRangeStore());
    const svc = await created(s, service({ type: 'NodePort', ports: [{ port: 80 }] }));
    const repair = repairOf(s, () => []);
    for (let pass = 1; pass < LEAK_PASSES; pass++) {
      await repair.runOnce();
      assert.deepEqual(await allocated(s.ipRanges[0]!), [spec(svc)['clusterIP']], `kept after pass ${pass}: a create may still be storing its service`);
    }
    await repair.runOnce();
    assert.deepEqual(await allocated(s.ipRanges[0]!), []);
    assert.deepEqual(await allocated(s.nodePorts), []);
  });

  it('forgets a suspected leak once a service holds the value', async () => {
    const s = server(new MemoryRangeStore());
    const svc = await created(s, service({ ports: [{ port: 80 }] }));
    let services: KObject[] = [];
    const repair = repairOf(s, () => services);
    await repair.runOnce();
    services = [svc];
    for (let i = 0; i < LEAK_PASSES + 1; i++) await repair.runOnce();
    services = [];
    for (let i = 1; i < LEAK_PASSES; i++) await repair.runOnce();
    assert.equal((await allocated(s.ipRanges[0]!)).length, 1, 'the leak count started over');
  });

  it('rebuilds a record written for another range, and warns about services outside the range', async () => {
    const store = new MemoryRangeStore();
    const before = server(store, '10.0.0.0/24');
    const svc = await created(before, service({ ports: [{ port: 80 }] }));
    const after = server(store, '10.0.1.0/24');
    const warnings: string[] = [];
    await repairOf(after, () => [svc], warnings).runOnce();
    assert.equal((await store.read('/ranges/serviceips'))!.record.range, '10.0.1.0/24');
    assert.deepEqual(await allocated(after.ipRanges[0]!), []);
    assert.ok(warnings.some((w) => /not within the configured range/.test(w)), warnings.join('\n'));
  });

  it('starts over when an allocation lands between reading the record and writing it back', async () => {
    const store = new MemoryRangeStore();
    const s = server(store);
    const other = server(store);
    // A service whose IP the record lacks, so the pass has something to write.
    const missing: KObject = { kind: 'Service', metadata: { name: 'm', namespace: 'x' }, spec: { type: 'ClusterIP', clusterIP: '10.0.0.3', clusterIPs: ['10.0.0.3'] } };
    let racing: KObject | undefined;
    const raced = new AllocationRepair({
      ipRanges: s.ipRanges,
      nodePorts: s.nodePorts,
      listServices: async () => {
        // Another server allocates after this pass read the record.
        racing ??= await created(other, service({ ports: [{ port: 80 }] }));
        return [missing];
      },
      log: { warn: () => undefined },
    });
    await raced.runOnce();
    assert.deepEqual((await allocated(s.ipRanges[0]!)).sort(), ['10.0.0.3', String(spec(racing!)['clusterIP'])].sort(), 'the racing allocation survived');
  });
});

describe('range flags', () => {
  it('accept one CIDR or a dual-stack pair and refuse what the original refuses', () => {
    assert.deepEqual(parseServiceClusterIPRanges('10.0.0.0/24').map((r) => r.spec), ['10.0.0.0/24']);
    assert.deepEqual(parseServiceClusterIPRanges('fd00::/108,10.96.0.0/12').map((r) => r.family), ['IPv6', 'IPv4']);
    assert.throws(() => parseServiceClusterIPRanges('10.0.0.0/24,10.1.0.0/24'), /must be of different IP family/);
    assert.throws(() => parseServiceClusterIPRanges('10.0.0.0/8'), /too large; for 32-bit addresses, the mask must be >= 12/);
    assert.throws(() => parseServiceClusterIPRanges('fd00::/64'), /for 128-bit addresses, the mask must be >= 108/);
    assert.throws(() => parseServiceClusterIPRanges('10.0.0.0/24,fd00::/112,10.1.0.0/24'), /more than two/);
    assert.throws(() => parseServiceClusterIPRanges('banana'), /invalid CIDR/);
    assert.equal(parseServiceNodePortRange('20000-22767').spec, '20000-22767');
    assert.throws(() => parseServiceNodePortRange('x'), /invalid --service-node-port-range/);
    const o = parseArgs(['--service-cluster-ip-range=10.96.0.0/16,fd00::/112', '--service-node-port-range=20000-22767', '--service-allocation-repair-interval=30s']);
    assert.deepEqual([o.serviceClusterIPRange, o.serviceNodePortRange, o.serviceAllocationRepairIntervalMs], ['10.96.0.0/16,fd00::/112', '20000-22767', 30_000]);
    assert.deepEqual([parseArgs([]).serviceClusterIPRange, parseArgs([]).serviceNodePortRange], ['10.0.0.0/24', '30000-32767']);
    assert.throws(() => parseArgs(['--service-cluster-ip-range=10.0.0.0/33']), OptionsError);
  });
});
