/**
 * Leader election on a Lease through a real server's store: one leader among
 * candidates, the lease names it, a stopped leader releases and another takes
 * over (transitions counted), a lease held by a silent holder is taken only
 * after its duration has passed on the candidate's own clock, and a leader
 * whose lease was taken stops leading.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { LeaderElector, microTime, type LeaderElectionConfig } from '../../src/controllers/leader-election.ts';
import { apiGroup, names } from '../../src/naming/index.ts';

const USER = { name: 'system:kube-controller-manager', groups: ['system:authenticated'] };
const quiet = { info: () => undefined, warn: () => undefined };

let ts: TestServer;
before(async () => {
  ts = await startTestServer();
});
after(async () => {
  await ts.stop();
});

async function waitFor(pred: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await pred())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function candidate(name: string, extra: Partial<LeaderElectionConfig> = {}): LeaderElector & { events: string[] } {
  const events: string[] = [];
  const e = new LeaderElector({
    store: ts.server.store,
    registry: ts.server.registry,
    namespace: names.systemNamespace,
    name,
    user: USER,
    log: quiet,
    leaseDurationMs: 1500,
    renewDeadlineMs: 1000,
    retryPeriodMs: 100,
    onStartedLeading: () => void events.push('started'),
    onStoppedLeading: () => void events.push('stopped'),
    ...extra,
  });
  return Object.assign(e, { events });
}

const leasePath = (name: string): string => `/apis/${apiGroup('coordination')}/v1/namespaces/${names.systemNamespace}/leases/${name}`;

async function lease(name: string): Promise<{ holderIdentity?: string; leaseTransitions?: number; leaseDurationSeconds?: number }> {
  const res = await ts.request('GET', leasePath(name));
  assert.equal(res.status, 200, res.body);
  return res.json<{ spec: Record<string, never> }>().spec;
}

describe('leader election', () => {
  it('elects one leader among three, names it in the lease, and hands over on stop', async () => {
    const cs = [candidate('three'), candidate('three'), candidate('three')];
    for (const c of cs) c.start();
    await waitFor(() => cs.some((c) => c.isLeader), 'a leader');
    // Several rounds later there is still exactly one.
    await new Promise((r) => setTimeout(r, 500));
    const leaders = cs.filter((c) => c.isLeader);
    assert.equal(leaders.length, 1);
    const first = leaders[0]!;
    assert.deepEqual(first.events, ['started']);
    const l = await lease('three');
    assert.equal(l.holderIdentity, first.identity);
    assert.equal(l.leaseDurationSeconds, 2);
    assert.equal(l.leaseTransitions, 0);

    await first.stop();
    assert.deepEqual(first.events, ['started', 'stopped']);
    const rest = cs.filter((c) => c !== first);
    await waitFor(() => rest.some((c) => c.isLeader), 'a new leader');
    const second = rest.find((c) => c.isLeader)!;
    assert.equal(rest.filter((c) => c.isLeader).length, 1);
    const l2 = await lease('three');
    assert.equal(l2.holderIdentity, second.identity);
    assert.equal(l2.leaseTransitions, 1);
    for (const c of rest) await c.stop();
    assert.equal((await lease('three')).holderIdentity ?? '', '');
  });

  it('takes a lease from a silent holder only after its duration on its own clock', async () => {
    const created = await ts.request('POST', `/apis/${apiGroup('coordination')}/v1/namespaces/${names.systemNamespace}/leases`, {
      metadata: { name: 'ghost' },
      // The holder's renewTime is in the future: the candidate must not trust other clocks.
      spec: { holderIdentity: 'ghost', leaseDurationSeconds: 30, renewTime: microTime(Date.now() + 3_600_000), leaseTransitions: 4 },
    });
    assert.equal(created.status, 201, created.body);
    let clock = 1_000_000;
    const c = candidate('ghost', { now: () => clock });
    c.start();
    // Many rounds pass while the fake clock stands still: the lease stays the ghost's.
    await new Promise((r) => setTimeout(r, 600));
    assert.equal(c.isLeader, false);
    assert.equal((await lease('ghost')).holderIdentity, 'ghost');
    clock += 31_000;
    await waitFor(() => c.isLeader, 'the takeover');
    const l = await lease('ghost');
    assert.equal(l.holderIdentity, c.identity);
    assert.equal(l.leaseTransitions, 5);
    await c.stop();
  });

  it('stops leading when another holder took the lease and renewal fails past the deadline', async () => {
    const c = candidate('stolen');
    c.start();
    await waitFor(() => c.isLeader, 'leadership');
    // An intruder takes the lease with a long duration; the leader cannot renew.
    await waitFor(async () => {
      const cur = await ts.request('GET', leasePath('stolen'));
      const body = cur.json<{ metadata: { resourceVersion: string }; spec: Record<string, unknown> }>();
      body.spec = { ...body.spec, holderIdentity: 'intruder', leaseDurationSeconds: 3600 };
      const put = await ts.request('PUT', leasePath('stolen'), body);
      return put.status === 200;
    }, 'the intruder write');
    await waitFor(() => !c.isLeader, 'leadership lost');
    assert.deepEqual(c.events, ['started', 'stopped']);
    assert.equal((await lease('stolen')).holderIdentity, 'intruder');
    await c.stop();
    // stop() never releases a lease it does not hold.
    assert.equal((await lease('stolen')).holderIdentity, 'intruder');
  });

  it('refuses timings the original refuses', () => {
    assert.throws(() => candidate('bad', { leaseDurationMs: 1000, renewDeadlineMs: 1000 }), /leaseDuration must be greater than renewDeadline/);
  });
});
