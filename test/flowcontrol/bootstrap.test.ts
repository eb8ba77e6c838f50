/**
 * The priority-and-fairness bootstrap configuration over HTTP (issue 17,
 * item 2): a fresh server holds exactly the original's mandatory and
 * suggested FlowSchemas and PriorityLevelConfigurations (v1.25 specs), keeps
 * the mandatory ones, updates the suggested ones only as their
 * autoupdate-spec annotation says, removes retired auto-updated ones, keeps
 * the FlowSchemas' Dangling condition, and kubectl prints them.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { apiGroup, names } from '../../src/naming/index.ts';
import { mandatoryFlowSchemas, mandatoryPriorityLevels, suggestedFlowSchemas, suggestedPriorityLevels } from '../../src/flowcontrol/bootstrap/objects.ts';
import { parseGoBool, ensuredObject } from '../../src/flowcontrol/bootstrap/ensure.ts';
import { desiredDanglingCondition, statusWithCondition } from '../../src/flowcontrol/bootstrap/dangling.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

const FC = `/apis/${apiGroup('flowcontrol.apiserver')}/v1beta2`;
const AUTO = names.annotations.apfAutoUpdateSpec;

interface Obj {
  metadata: { name: string; resourceVersion?: string; generation?: number; annotations?: Record<string, string> };
  spec: Record<string, any>;
  status?: { conditions?: Array<{ type: string; status: string; reason: string; message: string }> };
}

const FS_NAMES = [...mandatoryFlowSchemas(), ...suggestedFlowSchemas()].map((o) => o.metadata.name!).sort();
const PL_NAMES = [...mandatoryPriorityLevels(), ...suggestedPriorityLevels()].map((o) => o.metadata.name!).sort();

async function get(t: TestServer, kind: 'flowschemas' | 'prioritylevelconfigurations', name: string): Promise<Obj | null> {
  const r = await t.request('GET', `${FC}/${kind}/${name}`);
  if (r.status === 404) return null;
  assert.equal(r.status, 200, r.body);
  return r.json<Obj>();
}

async function list(t: TestServer, kind: 'flowschemas' | 'prioritylevelconfigurations'): Promise<Obj[]> {
  const r = await t.request('GET', `${FC}/${kind}`);
  assert.equal(r.status, 200, r.body);
  return r.json<{ items: Obj[] }>().items;
}

async function put(t: TestServer, kind: 'flowschemas' | 'prioritylevelconfigurations', obj: Obj): Promise<void> {
  const r = await t.request('PUT', `${FC}/${kind}/${obj.metadata.name}`, obj);
  assert.equal(r.status, 200, r.body);
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function dangling(o: Obj | null): { status: string; reason: string; message: string } | undefined {
  return o?.status?.conditions?.find((c) => c.type === 'Dangling');
}

describe('APF bootstrap configuration on a fresh server', () => {
  let t: TestServer;
  let dataDir: string;
  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'orch-apf-bootstrap-'));
    t = await startTestServer([], { dataDir });
    // No background pass (every minute) may race the assertions on what a pass did; ensureNow still runs them.
    t.server.apfBootstrap!.producer.stop();
  });
  after(async () => {
    await t?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('lists exactly the mandatory and suggested objects', async () => {
    assert.deepEqual((await list(t, 'flowschemas')).map((o) => o.metadata.name).sort(), FS_NAMES);
    assert.deepEqual((await list(t, 'prioritylevelconfigurations')).map((o) => o.metadata.name).sort(), PL_NAMES);
    assert.equal(FS_NAMES.length, 13);
    assert.equal(PL_NAMES.length, 8);
    // The first pass was done before the server was ready (the original's post-start hook).
    const hook = await t.request('GET', '/readyz/poststarthook/priority-and-fairness-config-producer');
    assert.equal(hook.status, 200, hook.body);
    assert.match((await t.request('GET', '/readyz?verbose')).body, /\[\+\]poststarthook\/priority-and-fairness-config-producer ok/);
    for (const o of [...(await list(t, 'flowschemas')), ...(await list(t, 'prioritylevelconfigurations'))]) {
      assert.equal(o.metadata.annotations?.[AUTO], 'true', o.metadata.name);
      assert.equal(o.metadata.generation, 1, o.metadata.name);
    }
  });

  it('the priority levels have v1.25\'s specs', async () => {
    const spec = async (n: string): Promise<Record<string, any>> => (await get(t, 'prioritylevelconfigurations', n))!.spec;
    assert.deepEqual(await spec('exempt'), { type: 'Exempt' });
    const catchAll = await spec('catch-all');
    assert.equal(catchAll['type'], 'Limited');
    assert.equal(catchAll['limited']['assuredConcurrencyShares'], 5);
    assert.deepEqual(catchAll['limited']['limitResponse'], { type: 'Reject' });
    const expected: Record<string, [number, number, number, number]> = {
      system: [30, 64, 6, 50], 'node-high': [40, 64, 6, 50], 'leader-election': [10, 16, 4, 50],
      'workload-high': [40, 128, 6, 50], 'workload-low': [100, 128, 6, 50], 'global-default': [20, 128, 6, 50],
    };
    for (const [name, [shares, queues, handSize, queueLengthLimit]] of Object.entries(expected)) {
      const s = await spec(name);
      assert.equal(s['type'], 'Limited', name);
      assert.equal(s['limited']['assuredConcurrencyShares'], shares, name);
      assert.deepEqual(s['limited']['limitResponse'], { type: 'Queue', queuing: { queues, handSize, queueLengthLimit } }, name);
    }
  });

  it('the flow schemas have v1.25\'s specs, with the flavor\'s names', async () => {
    const fs = async (n: string): Promise<Record<string, any>> => (await get(t, 'flowschemas', n))!.spec;
    const all = { verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] };
    const exempt = await fs('exempt');
    assert.deepEqual(exempt, {
      priorityLevelConfiguration: { name: 'exempt' }, matchingPrecedence: 1,
      rules: [{ subjects: [{ kind: 'Group', group: { name: 'system:masters' } }], resourceRules: [all], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }] }],
    });
    const catchAll = await fs('catch-all');
    assert.equal(catchAll['matchingPrecedence'], 10000);
    assert.deepEqual(catchAll['distinguisherMethod'], { type: 'ByUser' });
    assert.deepEqual(catchAll['rules'][0]['subjects'], [{ kind: 'Group', group: { name: 'system:unauthenticated' } }, { kind: 'Group', group: { name: 'system:authenticated' } }]);
    const probes = await fs('probes');
    assert.equal(probes['matchingPrecedence'], 2);
    assert.equal(probes['distinguisherMethod'], undefined);
    assert.deepEqual(probes['rules'][0]['nonResourceRules'], [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }]);
    const election = await fs('system-leader-election');
    assert.equal(election['priorityLevelConfiguration']['name'], 'leader-election');
    assert.equal(election['matchingPrecedence'], 100);
    assert.deepEqual(election['rules'][0]['subjects'], [
      { kind: 'User', user: { name: 'system:kube-controller-manager' } },
      { kind: 'User', user: { name: 'system:kube-scheduler' } },
      { kind: 'ServiceAccount', serviceAccount: { namespace: names.systemNamespace, name: '*' } },
    ]);
    assert.deepEqual(election['rules'][0]['resourceRules'], [{ verbs: ['get', 'create', 'update'], apiGroups: [apiGroup('coordination')], resources: ['leases'], namespaces: ['*'] }]);
    const nodeHigh = await fs('system-node-high');
    assert.deepEqual(nodeHigh['rules'][0]['resourceRules'], [
      { verbs: ['*'], apiGroups: [''], resources: ['nodes', 'nodes/status'], clusterScope: true, namespaces: ['*'] },
      { verbs: ['*'], apiGroups: [apiGroup('coordination')], resources: ['leases'], namespaces: ['*'] },
    ]);
    const endpoints = await fs('endpoint-controller');
    assert.equal(endpoints['matchingPrecedence'], 150);
    assert.equal(endpoints['priorityLevelConfiguration']['name'], 'workload-high');
    assert.deepEqual(endpoints['rules'][0]['subjects'].map((s: any) => s.user?.name ?? `${s.serviceAccount.namespace}/${s.serviceAccount.name}`), [
      'system:kube-controller-manager', `${names.systemNamespace}/endpoint-controller`, `${names.systemNamespace}/endpointslicemirroring-controller`,
    ]);
    const precedence = (await list(t, 'flowschemas')).map((o) => [o.metadata.name, o.spec['matchingPrecedence'], o.spec['distinguisherMethod']?.type ?? '']);
    assert.deepEqual(Object.fromEntries(precedence.map(([n, p, d]) => [n, `${p}/${d}`])), {
      exempt: '1/', probes: '2/', 'system-leader-election': '100/ByUser', 'endpoint-controller': '150/ByUser', 'workload-leader-election': '200/ByUser',
      'system-node-high': '400/ByUser', 'system-nodes': '500/ByUser', 'kube-controller-manager': '800/ByNamespace', 'kube-scheduler': '800/ByNamespace',
      'kube-system-service-accounts': '900/ByNamespace', 'service-accounts': '9000/ByUser', 'global-default': '9900/ByUser', 'catch-all': '10000/ByUser',
    });
  });

  it('every bootstrap flow schema carries Dangling False (Found)', async () => {
    for (const name of FS_NAMES) {
      const c = await until(`${name}'s Dangling condition`, async () => dangling(await get(t, 'flowschemas', name)));
      const pl = (await get(t, 'flowschemas', name))!.spec['priorityLevelConfiguration']['name'];
      assert.deepEqual({ ...c, lastTransitionTime: undefined }, {
        type: 'Dangling', status: 'False', reason: 'Found', lastTransitionTime: undefined,
        message: `This FlowSchema references the PriorityLevelConfiguration object named "${pl}" and it exists`,
      });
    }
  });

  it('kubectl prints them with the original\'s columns', async () => {
    const fs = await t.kubectl(['get', 'flowschemas']);
    assert.equal(fs.code, 0, fs.stderr);
    const fsLines = fs.stdout.trim().split('\n');
    assert.deepEqual(fsLines[0]!.split(/\s+/), ['NAME', 'PRIORITYLEVEL', 'MATCHINGPRECEDENCE', 'DISTINGUISHERMETHOD', 'AGE', 'MISSINGPL']);
    assert.deepEqual(fsLines.slice(1).map((l) => l.split(/\s+/)[0]).sort(), FS_NAMES);
    assert.match(fs.stdout, /\nprobes\s+exempt\s+2\s+<none>\s+\S+\s+False\n/);
    const pl = await t.kubectl(['get', 'prioritylevelconfigurations']);
    assert.equal(pl.code, 0, pl.stderr);
    const plLines = pl.stdout.trim().split('\n');
    assert.deepEqual(plLines[0]!.split(/\s+/), ['NAME', 'TYPE', 'ASSUREDCONCURRENCYSHARES', 'QUEUES', 'HANDSIZE', 'QUEUELENGTHLIMIT', 'AGE']);
    assert.deepEqual(plLines.slice(1).map((l) => l.split(/\s+/)[0]).sort(), PL_NAMES);
    assert.match(pl.stdout, /\nleader-election\s+Limited\s+10\s+16\s+4\s+50\s+\S+\n/);
    assert.match(pl.stdout, /\nexempt\s+Exempt\s+<none>\s+<none>\s+<none>\s+<none>\s+\S+\n/);
    assert.match(pl.stdout, /\ncatch-all\s+Limited\s+5\s+<none>\s+<none>\s+<none>\s+\S+\n/);
  });

  it('a flow schema naming a missing priority level is Dangling until the level exists', async () => {
    const fs = {
      apiVersion: `${apiGroup('flowcontrol.apiserver')}/v1beta2`, kind: 'FlowSchema', metadata: { name: 'orphan' },
      spec: { priorityLevelConfiguration: { name: 'nowhere' }, matchingPrecedence: 5000, rules: [{ subjects: [{ kind: 'User', user: { name: 'alice' } }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/x'] }] }] },
    };
    assert.equal((await t.request('POST', `${FC}/flowschemas`, fs)).status, 201);
    const missing = await until('Dangling True', async () => {
      const c = dangling(await get(t, 'flowschemas', 'orphan'));
      return c?.status === 'True' ? c : undefined;
    });
    assert.equal(missing.reason, 'NotFound');
    assert.equal(missing.message, 'This FlowSchema references the PriorityLevelConfiguration object named "nowhere" but there is no such object');
    const mp = await t.kubectl(['get', 'flowschema', 'orphan', '--no-headers']);
    assert.match(mp.stdout, /^orphan\s+nowhere\s+5000\s+<none>\s+\S+\s+True\s*$/);
    const pl = { apiVersion: `${apiGroup('flowcontrol.apiserver')}/v1beta2`, kind: 'PriorityLevelConfiguration', metadata: { name: 'nowhere' }, spec: { type: 'Limited', limited: { assuredConcurrencyShares: 3, limitResponse: { type: 'Reject' } } } };
    assert.equal((await t.request('POST', `${FC}/prioritylevelconfigurations`, pl)).status, 201);
    const found = await until('Dangling False', async () => {
      const c = dangling(await get(t, 'flowschemas', 'orphan'));
      return c?.status === 'False' ? c : undefined;
    });
    assert.equal(found.reason, 'Found');
    assert.equal((await t.request('DELETE', `${FC}/prioritylevelconfigurations/nowhere`)).status, 200);
    await until('Dangling True again', async () => (dangling(await get(t, 'flowschemas', 'orphan'))?.status === 'True' ? true : undefined));
    // The server's own objects were never annotated by a user: nothing here is removed by the ensurer.
    await t.server.apfBootstrap!.producer.ensureNow();
    assert.notEqual(await get(t, 'flowschemas', 'orphan'), null);
  });

  it('the ensurer keeps mandatory specs, and suggested ones as their annotation says', async () => {
    const plEdit = async (name: string, shares: number, annotation: string | null): Promise<void> => {
      const o = (await get(t, 'prioritylevelconfigurations', name))!;
      o.spec['limited']['assuredConcurrencyShares'] = shares;
      const ann = { ...(o.metadata.annotations ?? {}) };
      if (annotation === null) delete ann[AUTO];
      else ann[AUTO] = annotation;
      o.metadata.annotations = ann;
      await put(t, 'prioritylevelconfigurations', o);
    };
    await plEdit('workload-low', 7, 'false');
    await plEdit('global-default', 9, 'true');
    await plEdit('catch-all', 50, 'false');
    await plEdit('workload-high', 11, null);
    // An annotation dropped from an object nobody edited (generation 1): it may be brought up to date.
    const system = (await get(t, 'prioritylevelconfigurations', 'leader-election'))!;
    system.metadata.annotations = {};
    await put(t, 'prioritylevelconfigurations', system);
    assert.equal((await t.request('DELETE', `${FC}/flowschemas/exempt`)).status, 200);

    const report = await t.server.apfBootstrap!.producer.ensureNow();
    assert.deepEqual(report.created, ['flowschemas/exempt']);
    const after = async (n: string): Promise<Obj> => (await get(t, 'prioritylevelconfigurations', n))!;
    assert.equal((await after('workload-low')).spec['limited']['assuredConcurrencyShares'], 7, 'autoupdate-spec false: left alone');
    assert.equal((await after('workload-low')).metadata.annotations?.[AUTO], 'false');
    assert.equal((await after('global-default')).spec['limited']['assuredConcurrencyShares'], 20, 'autoupdate-spec true: reset');
    assert.equal((await after('catch-all')).spec['limited']['assuredConcurrencyShares'], 5, 'mandatory: reset whatever the annotation');
    assert.equal((await after('catch-all')).metadata.annotations?.[AUTO], 'true');
    assert.equal((await after('workload-high')).spec['limited']['assuredConcurrencyShares'], 11, 'no annotation, edited: left alone');
    assert.equal((await after('workload-high')).metadata.annotations?.[AUTO], 'false', 'and marked so');
    assert.equal((await after('leader-election')).metadata.annotations?.[AUTO], 'true', 'no annotation, generation 1: marked auto-updated');
    assert.notEqual(await get(t, 'flowschemas', 'exempt'), null, 'a deleted mandatory schema is back');
    // A second pass has nothing left to do.
    assert.deepEqual(await t.server.apfBootstrap!.producer.ensureNow(), { created: [], updated: [], deleted: [] });
  });

  it('removes auto-updated objects that are not in the bootstrap set, and only those', async () => {
    const fs = (name: string, annotation: string | undefined) => ({
      apiVersion: `${apiGroup('flowcontrol.apiserver')}/v1beta2`, kind: 'FlowSchema',
      metadata: { name, ...(annotation === undefined ? {} : { annotations: { [AUTO]: annotation } }) },
      spec: { priorityLevelConfiguration: { name: 'system' }, matchingPrecedence: 4000, rules: [{ subjects: [{ kind: 'Group', group: { name: 'g' } }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/y'] }] }] },
    });
    for (const [name, ann] of [['retired', 'true'], ['kept-false', 'false'], ['kept-plain', undefined], ['kept-malformed', 'maybe']] as const) {
      assert.equal((await t.request('POST', `${FC}/flowschemas`, fs(name, ann))).status, 201);
    }
    const report = await t.server.apfBootstrap!.producer.ensureNow();
    assert.deepEqual(report.deleted, ['flowschemas/retired']);
    assert.equal(await get(t, 'flowschemas', 'retired'), null);
    for (const name of ['kept-false', 'kept-plain', 'kept-malformed']) assert.notEqual(await get(t, 'flowschemas', name), null, name);
  });

  it('after a restart on the same data dir: deleted mandatory objects are back, edits kept or reset as annotated', async () => {
    assert.equal((await t.request('DELETE', `${FC}/prioritylevelconfigurations/catch-all`)).status, 200);
    assert.equal((await t.request('DELETE', `${FC}/flowschemas/catch-all`)).status, 200);
    const edit = async (name: string, shares: number, annotation: string): Promise<void> => {
      const o = (await get(t, 'prioritylevelconfigurations', name))!;
      o.spec['limited']['assuredConcurrencyShares'] = shares;
      o.metadata.annotations = { ...(o.metadata.annotations ?? {}), [AUTO]: annotation };
      await put(t, 'prioritylevelconfigurations', o);
    };
    await edit('system', 31, 'true');
    await edit('node-high', 41, 'false');
    assert.equal((await t.request('DELETE', `${FC}/flowschemas/probes`)).status, 200);
    await t.stop();
    t = await startTestServer([], { dataDir });
    assert.equal((await get(t, 'prioritylevelconfigurations', 'catch-all'))!.spec['limited']['assuredConcurrencyShares'], 5);
    assert.equal((await get(t, 'flowschemas', 'catch-all'))!.spec['matchingPrecedence'], 10000);
    assert.equal((await get(t, 'prioritylevelconfigurations', 'system'))!.spec['limited']['assuredConcurrencyShares'], 30);
    assert.equal((await get(t, 'prioritylevelconfigurations', 'node-high'))!.spec['limited']['assuredConcurrencyShares'], 41);
    assert.notEqual(await get(t, 'flowschemas', 'probes'), null, 'a deleted suggested object is created again, as the original does');
  });
});

describe('the autoupdate-spec rules (the original\'s strategy.go)', () => {
  const base = (annotation: string | undefined, generation: number, shares: number) => ({
    metadata: { name: 'x', generation, ...(annotation === undefined ? {} : { annotations: { [AUTO]: annotation } }) },
    spec: { type: 'Limited', limited: { assuredConcurrencyShares: shares } },
  });
  const want = base('true', 1, 1);

  it('parses the annotation as Go\'s ParseBool', () => {
    for (const v of ['1', 't', 'T', 'TRUE', 'true', 'True']) assert.equal(parseGoBool(v), true, v);
    for (const v of ['0', 'f', 'F', 'FALSE', 'false', 'False']) assert.equal(parseGoBool(v), false, v);
    for (const v of ['yes', '', 'tRuE', undefined]) assert.equal(parseGoBool(v), undefined, String(v));
  });

  it('decides spec and annotation like ShouldUpdate', () => {
    assert.equal(ensuredObject(base('true', 3, 1), want, false), null, 'up to date');
    assert.equal(ensuredObject(base('T', 3, 1), want, false), null, 'any true spelling is left as it is');
    assert.deepEqual((ensuredObject(base('true', 3, 2), want, false) as any).spec.limited.assuredConcurrencyShares, 1);
    assert.equal(ensuredObject(base('false', 3, 2), want, false), null);
    const mandatory = ensuredObject(base('false', 3, 2), want, true) as any;
    assert.equal(mandatory.spec.limited.assuredConcurrencyShares, 1);
    assert.equal(mandatory.metadata.annotations[AUTO], 'true');
    const unmarkedEdited = ensuredObject(base(undefined, 2, 2), want, false) as any;
    assert.equal(unmarkedEdited.spec.limited.assuredConcurrencyShares, 2);
    assert.equal(unmarkedEdited.metadata.annotations[AUTO], 'false');
    const malformedFresh = ensuredObject(base('maybe', 1, 2), want, false) as any;
    assert.equal(malformedFresh.spec.limited.assuredConcurrencyShares, 1);
    assert.equal(malformedFresh.metadata.annotations[AUTO], 'true');
  });
});

describe('the Dangling condition (the original\'s presyncFlowSchemaStatus)', () => {
  const fs = (conditions: unknown[]) => ({ metadata: { name: 'x' }, spec: {}, status: { conditions } });
  const other = { type: 'Other', status: 'True', reason: 'R', message: 'm' };

  it('writes only when status, reason or message differ, and keeps other conditions', () => {
    const want = desiredDanglingCondition('pl', false);
    const first = statusWithCondition(fs([other]), want, '2026-01-01T00:00:00Z');
    assert.deepEqual(first, { conditions: [other, { type: 'Dangling', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z', reason: 'NotFound', message: want.message }] });
    assert.equal(statusWithCondition(fs((first as { conditions: unknown[] }).conditions), want, '2026-01-02T00:00:00Z'), null, 'already says so: no write');
    const found = statusWithCondition(fs((first as { conditions: unknown[] }).conditions), desiredDanglingCondition('pl', true), '2026-01-03T00:00:00Z') as { conditions: Array<Record<string, string>> };
    assert.deepEqual(found.conditions.map((c) => `${c['type']}=${c['status']}/${c['reason'] ?? ''}`), ['Other=True/R', 'Dangling=False/Found']);
    assert.equal(found.conditions[1]!['lastTransitionTime'], '2026-01-03T00:00:00Z');
  });
});
