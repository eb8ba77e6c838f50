/**
 * ResourceQuota and LimitRanger end to end on a real server: the quota
 * controller fills status, creates are charged and refused past the quota
 * with the original's message, deletions release usage, dry-run is checked
 * and not charged; LimitRanger defaults show up on the created pod (kubectl).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { names } from '../../src/naming/index.ts';

let srv: TestServer;
const NS = 'quota-e2e';

before(async () => {
  srv = await startTestServer(['--enable-admission-plugins=LimitRanger,ResourceQuota']);
  const r = await srv.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  assert.equal(r.status, 201, r.body);
});

after(async () => {
  await srv?.stop();
});

const pod = (name: string, resources?: Record<string, unknown>): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'app', image: 'busybox', ...(resources ? { resources } : {}) }] },
});

async function until<T>(what: string, f: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function used(name: string, resource: string): Promise<string | undefined> {
  const r = await srv.request('GET', `/api/v1/namespaces/${NS}/resourcequotas/${name}`);
  const q = r.json<{ status?: { used?: Record<string, string> } }>();
  return q.status?.used?.[resource];
}

test('the controller fills status, creates are charged, the next one is refused with the original message', async () => {
  const q = await srv.request('POST', `/api/v1/namespaces/${NS}/resourcequotas`, {
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    metadata: { name: 'q' },
    spec: { hard: { pods: '2', 'count/configmaps': '1', configmaps: '5' } },
  });
  assert.equal(q.status, 201, q.body);
  await until('status.used', async () => ((await used('q', 'pods')) === '0' ? true : undefined));
  for (const n of ['a', 'b']) {
    const r = await srv.request('POST', `/api/v1/namespaces/${NS}/pods`, pod(n));
    assert.equal(r.status, 201, r.body);
  }
  assert.equal(await used('q', 'pods'), '2');
  const refused = await srv.request('POST', `/api/v1/namespaces/${NS}/pods`, pod('c'));
  assert.equal(refused.status, 403, refused.body);
  const status = refused.json<{ reason: string; message: string }>();
  assert.equal(status.reason, 'Forbidden');
  assert.equal(status.message, 'pods "c" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2');

  // Dry run: checked (refused here too), never charged.
  const dry = await srv.request('POST', `/api/v1/namespaces/${NS}/configmaps?dryRun=All`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm0' } });
  assert.equal(dry.status, 201, dry.body);
  assert.equal(await used('q', 'count/configmaps'), '0');
  const cm = await srv.request('POST', `/api/v1/namespaces/${NS}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm1' } });
  assert.equal(cm.status, 201, cm.body);
  assert.equal(await used('q', 'count/configmaps'), '1');
  assert.equal(await used('q', 'configmaps'), '1');
  const cm2 = await srv.request('POST', `/api/v1/namespaces/${NS}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm2' } });
  assert.equal(cm2.status, 403);
  assert.match(cm2.json<{ message: string }>().message, /exceeded quota: q, requested: count\/configmaps=1, used: count\/configmaps=1, limited: count\/configmaps=1$/);

  // Deleting a pod releases its usage (the controller recounts), and a new pod fits again.
  const del = await srv.request('DELETE', `/api/v1/namespaces/${NS}/pods/a?gracePeriodSeconds=0`);
  assert.equal(del.status, 200, del.body);
  await until('usage released', async () => ((await used('q', 'pods')) === '1' ? true : undefined));
  const again = await srv.request('POST', `/api/v1/namespaces/${NS}/pods`, pod('d'));
  assert.equal(again.status, 201, again.body);
});

test('a cpu quota: every container states its request; the excess is refused in canonical quantities', async () => {
  const ns = 'quota-e2e-unknown';
  assert.equal((await srv.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })).status, 201);
  const created = await srv.request('POST', `/api/v1/namespaces/${ns}/resourcequotas`, {
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    metadata: { name: 'cpu' },
    spec: { hard: { 'requests.cpu': '1' } },
  });
  assert.equal(created.status, 201, created.body);
  await until('status.used', async () => {
    const r = await srv.request('GET', `/api/v1/namespaces/${ns}/resourcequotas/cpu`);
    return r.json<{ status?: { used?: Record<string, string> } }>().status?.used?.['requests.cpu'] === '0' ? true : undefined;
  });
  // cpu is quota'd: every container must state its request.
  const bare = await srv.request('POST', `/api/v1/namespaces/${ns}/pods`, pod('bare'));
  assert.equal(bare.status, 403);
  assert.equal(bare.json<{ message: string }>().message, 'pods "bare" is forbidden: failed quota: cpu: must specify requests.cpu');
  const ok = await srv.request('POST', `/api/v1/namespaces/${ns}/pods`, pod('small', { requests: { cpu: '600m' } }));
  assert.equal(ok.status, 201, ok.body);
  const big = await srv.request('POST', `/api/v1/namespaces/${ns}/pods`, pod('big', { requests: { cpu: '500m' } }));
  assert.equal(big.status, 403);
  assert.equal(big.json<{ message: string }>().message, 'pods "big" is forbidden: exceeded quota: cpu, requested: requests.cpu=500m, used: requests.cpu=600m, limited: requests.cpu=1');
});

test('LimitRanger: defaults applied and annotated (seen through kubectl), max enforced', async () => {
  const ns = 'limits-e2e';
  assert.equal((await srv.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })).status, 201);
  const lr = await srv.request('POST', `/api/v1/namespaces/${ns}/limitranges`, {
    apiVersion: 'v1',
    kind: 'LimitRange',
    metadata: { name: 'lr' },
    spec: { limits: [{ type: 'Container', max: { cpu: '1' }, defaultRequest: { cpu: '100m' } }] },
  });
  assert.equal(lr.status, 201, lr.body);
  // The type's defaulting filled default (from max).
  assert.deepEqual(lr.json<{ spec: { limits: Array<Record<string, unknown>> } }>().spec.limits[0]!['default'], { cpu: '1' });
  const created = await until('LimitRanger sees the range', async () => {
    const r = await srv.request('POST', `/api/v1/namespaces/${ns}/pods?dryRun=All`, pod('p'));
    const annotations = r.json<{ metadata: { annotations?: Record<string, string> } }>().metadata.annotations;
    return annotations?.[`${names.domain}/limit-ranger`] !== undefined ? r : undefined;
  });
  assert.equal(created.status, 201);
  const run = await srv.kubectl(['-n', ns, 'run', 'p', '--image=busybox']);
  assert.equal(run.code, 0, run.stderr);
  const got = await srv.kubectl(['-n', ns, 'get', 'pod', 'p', '-o', 'json']);
  const p = JSON.parse(got.stdout) as { metadata: { annotations: Record<string, string> }; spec: { containers: Array<{ resources: unknown }> } };
  assert.deepEqual(p.spec.containers[0]!.resources, { limits: { cpu: '1' }, requests: { cpu: '100m' } });
  assert.equal(p.metadata.annotations[`${names.domain}/limit-ranger`], 'LimitRanger plugin set: cpu request for container p; cpu limit for container p');
  const tooBig = await srv.kubectl(['-n', ns, 'run', 'big', '--image=busybox', '--overrides', JSON.stringify({ spec: { containers: [{ name: 'big', image: 'busybox', resources: { limits: { cpu: '2' } } }] } })]);
  assert.notEqual(tooBig.code, 0);
  assert.match(tooBig.stderr, /pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2/);
});

test('the controller counts what exists before the quota: live pods by scope and compute, object counts of other groups; an ended pod releases its compute', async () => {
  const ns = 'quota-e2e-count';
  assert.equal((await srv.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })).status, 201);
  const mk = async (path: string, body: Record<string, unknown>): Promise<void> => {
    const r = await srv.request('POST', `/api/v1/namespaces/${ns}/${path}`, body);
    assert.equal(r.status, 201, r.body);
  };
  await mk('pods', pod('besteffort'));
  await mk('pods', pod('burstable', { requests: { cpu: '250m', memory: '64Mi' } }));
  await mk('pods', pod('job', { requests: { cpu: '500m' } }));
  const deployment = (name: string): Record<string, unknown> => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: { selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'x' }] } } },
  });
  const d = await srv.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, deployment('d1'));
  assert.equal(d.status, 201, d.body);
  const quotas: Array<[string, Record<string, unknown>]> = [
    ['all', { hard: { pods: '10', 'requests.cpu': '4', 'requests.memory': '1Gi', 'count/deployments.apps': '1' } }],
    ['besteffort', { hard: { pods: '10' }, scopes: ['BestEffort'] }],
    ['notbesteffort', { hard: { pods: '10', 'requests.cpu': '4' }, scopes: ['NotBestEffort'] }],
  ];
  for (const [name, spec] of quotas) await mk('resourcequotas', { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name }, spec });
  const usedOf = async (name: string): Promise<Record<string, string> | undefined> =>
    (await srv.request('GET', `/api/v1/namespaces/${ns}/resourcequotas/${name}`)).json<{ status?: { used?: Record<string, string> } }>().status?.used;
  await until('all three counted', async () => ((await usedOf('notbesteffort')) !== undefined && (await usedOf('besteffort')) !== undefined && (await usedOf('all')) !== undefined ? true : undefined));
  assert.deepEqual(await usedOf('all'), { 'count/deployments.apps': '1', pods: '3', 'requests.cpu': '750m', 'requests.memory': '64Mi' });
  assert.deepEqual(await usedOf('besteffort'), { pods: '1' });
  assert.deepEqual(await usedOf('notbesteffort'), { pods: '2', 'requests.cpu': '750m' });
  const full = await srv.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, deployment('d2'));
  assert.equal(full.status, 403);
  assert.match(full.json<{ message: string }>().message, /^deployments\.apps "d2" is forbidden: exceeded quota: all, requested: count\/deployments\.apps=1, used: count\/deployments\.apps=1, limited: count\/deployments\.apps=1$/);
  // The pod ends: its compute and its place in `pods` are released (count/pods would keep it).
  const ended = await srv.request('PUT', `/api/v1/namespaces/${ns}/pods/burstable/status`, {
    ...(await srv.request('GET', `/api/v1/namespaces/${ns}/pods/burstable`)).json<Record<string, unknown>>(),
    status: { phase: 'Succeeded' },
  });
  assert.equal(ended.status, 200, ended.body);
  await until('compute released', async () => ((await usedOf('all'))?.['requests.cpu'] === '500m' ? true : undefined));
  assert.deepEqual(await usedOf('all'), { 'count/deployments.apps': '1', pods: '2', 'requests.cpu': '500m', 'requests.memory': '0' });
});
