/**
 * `kubectl auth can-i --list` (with `-n` and `--as`) under RBAC, in the
 * kubernetes flavor so the real kubectl (v1.32 on the PATH) talks to us:
 * its table must show exactly the rules the server's
 * SelfSubjectRulesReview gives the user (same resources, resource names,
 * URLs and verbs, after kubectl's own breakdown and compaction), and those
 * must be what the user's bindings grant: `view` in one namespace, a Role
 * with `get configmaps` for a service account, nothing in other
 * namespaces, everything for system:masters.
 */
import '../../support/kubernetes-flavor.ts';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from '../../support/test-server.ts';

const RBAC = 'rbac.authorization.k8s.io';
const AUTHZ = 'authorization.k8s.io';
const VI = { token: 'viewer-token-0123456789', name: 'vi' };
const ROBOT = 'system:serviceaccount:team:robot';

/** One permission as kubectl prints it: `resource[.group][/sub]` or a URL, resource names, one verb. */
type Grant = string;

interface RulesStatus {
  resourceRules: Array<{ verbs: string[]; apiGroups?: string[]; resources?: string[]; resourceNames?: string[] }>;
  nonResourceRules: Array<{ verbs: string[]; nonResourceURLs?: string[] }>;
  incomplete: boolean;
}

/** kubectl's CombineResourceGroup: the group goes between the resource and its subresource. */
function combined(resource: string, group: string): string {
  const [res, sub] = resource.split(/\/(.*)/s) as [string, string | undefined];
  return `${res}${group !== '' ? `.${group}` : ''}${sub !== undefined ? `/${sub}` : ''}`;
}

/** Every (resource-or-URL, names, verb) a rules review grants. */
function grantsOfReview(s: RulesStatus): Set<Grant> {
  const out = new Set<Grant>();
  for (const r of s.resourceRules) {
    for (const g of r.apiGroups ?? []) for (const res of r.resources ?? []) for (const v of r.verbs) out.add(`${combined(res, g)} [${(r.resourceNames ?? []).join(' ')}] ${v}`);
  }
  for (const r of s.nonResourceRules) for (const u of r.nonResourceURLs ?? []) for (const v of r.verbs) out.add(`${u} [] ${v}`);
  return out;
}

/** Every (resource-or-URL, names, verb) kubectl's table shows. */
function grantsOfTable(stdout: string): Set<Grant> {
  const lines = stdout.split('\n').filter((l) => l.trim() !== '');
  assert.match(lines[0] ?? '', /^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs$/);
  const out = new Set<Grant>();
  const list = (s: string): string[] => s.slice(1, -1).split(' ').filter((x) => x !== '');
  for (const line of lines.slice(1)) {
    const m = /^(\S*)\s+(\[[^\]]*\])\s+(\[[^\]]*\])\s+(\[[^\]]*\])$/.exec(line);
    assert.ok(m, `a row of four columns: ${JSON.stringify(line)}`);
    const [, resource, urls, names, verbs] = m;
    for (const v of list(verbs!)) {
      if (resource !== '') out.add(`${resource} [${list(names!).join(' ')}] ${v}`);
      for (const u of list(urls!)) out.add(`${u} [] ${v}`);
    }
  }
  return out;
}

const sorted = (s: Set<Grant>): Grant[] => [...s].sort();

let ts: TestServer;
let dir: string;
let viKubeconfig: string;

async function mustCreate(url: string, body: object): Promise<void> {
  const r = await ts.request('POST', url, body);
  assert.equal(r.status, 201, `${url}: ${r.body}`);
}

before(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'orch-can-i-'));
  const tokens = path.join(dir, 'tokens.csv');
  await fs.writeFile(tokens, `${VI.token},${VI.name},uid-vi\n`, { mode: 0o600 });
  ts = await startTestServer(['--authorization-mode=Node,RBAC', `--token-auth-file=${tokens}`]);
  const text = await fs.readFile(ts.tokenKubeconfig, 'utf8');
  const m = /token: ("[^"]*")/.exec(text);
  assert.ok(m, 'the token kubeconfig has a token');
  viKubeconfig = path.join(dir, 'vi.kubeconfig');
  await fs.writeFile(viKubeconfig, text.replace(m[0], `token: ${JSON.stringify(VI.token)}`), { mode: 0o600 });
  for (const ns of ['team', 'other']) await mustCreate('/api/v1/namespaces', { metadata: { name: ns } });
  const binding = (name: string, roleKind: string, role: string, subject: object) => ({
    apiVersion: `${RBAC}/v1`, kind: 'RoleBinding', metadata: { name }, roleRef: { apiGroup: RBAC, kind: roleKind, name: role }, subjects: [subject],
  });
  await mustCreate(`/apis/${RBAC}/v1/namespaces/team/rolebindings`, binding('vi-view', 'ClusterRole', 'view', { kind: 'User', apiGroup: RBAC, name: VI.name }));
  await mustCreate(`/apis/${RBAC}/v1/namespaces/team/roles`, {
    apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name: 'cm-get' },
    rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'], resourceNames: ['settings'] }, { apiGroups: ['apps'], resources: ['deployments/scale'], verbs: ['get', 'update'] }],
  });
  await mustCreate(`/apis/${RBAC}/v1/namespaces/team/rolebindings`, binding('robot', 'Role', 'cm-get', { kind: 'ServiceAccount', name: 'robot' }));
  // The bindings reach the serving thread's index through its watches.
  const end = Date.now() + 15_000;
  while ((await ts.request('GET', '/api/v1/namespaces/team/pods', undefined, { as: { token: VI.token } })).status !== 200) {
    if (Date.now() > end) assert.fail('the view binding never took effect');
    await new Promise((r) => setTimeout(r, 50));
  }
});

after(async () => {
  await ts?.stop();
  await fs.rm(dir, { recursive: true, force: true });
});

/** The server's rules for a user: a SelfSubjectRulesReview, as that user or impersonating them. */
async function review(namespace: string, who: { token: string } | { as: string }): Promise<RulesStatus> {
  const body = { apiVersion: `${AUTHZ}/v1`, kind: 'SelfSubjectRulesReview', spec: { namespace } };
  const r = 'token' in who
    ? await ts.request('POST', `/apis/${AUTHZ}/v1/selfsubjectrulesreviews`, body, { as: who })
    : await ts.request('POST', `/apis/${AUTHZ}/v1/selfsubjectrulesreviews`, body, { headers: { 'impersonate-user': who.as } });
  assert.equal(r.status, 201, r.body);
  return r.json<{ status: RulesStatus }>().status;
}

async function canIList(args: string[], kubeconfig?: string): Promise<Set<Grant>> {
  const r = await ts.kubectl(['auth', 'can-i', '--list', ...args], kubeconfig !== undefined ? { kubeconfig } : {});
  if (process.env['CANI_DEBUG']) console.log(args.join(' '), `\n${r.stdout}`);
  assert.equal(r.code, 0, r.stderr);
  return grantsOfTable(r.stdout);
}

describe('kubectl auth can-i --list under RBAC (kubernetes flavor)', () => {
  it('a viewer in their namespace: kubectl shows the server\'s rules, which are view\'s plus the defaults', async () => {
    const server = await review('team', VI);
    assert.equal(server.incomplete, false);
    const shown = await canIList(['-n', 'team'], viKubeconfig);
    assert.deepEqual(sorted(shown), sorted(grantsOfReview(server)));
    for (const g of ['pods [] list', 'pods/log [] get', 'deployments.apps [] watch', 'deployments.apps/scale [] get', 'selfsubjectaccessreviews.authorization.k8s.io [] create', '/api/* [] get', '/version [] get']) {
      assert.ok(shown.has(g), `shows ${g}`);
    }
    for (const g of ['secrets [] get', 'pods [] delete', 'configmaps [] create', 'deployments.apps/scale [] update']) assert.ok(!shown.has(g), `hides ${g}`);
  });

  it('the same viewer elsewhere: only what every authenticated user has', async () => {
    const server = await review('other', VI);
    const shown = await canIList(['-n', 'other'], viKubeconfig);
    assert.deepEqual(sorted(shown), sorted(grantsOfReview(server)));
    assert.ok(![...shown].some((g) => g.startsWith('pods ')), 'no pods outside team');
    assert.ok(shown.has('selfsubjectrulesreviews.authorization.k8s.io [] create'));
  });

  it('--as a service account (by an admin): its Role, with resource names and a subresource', async () => {
    const server = await review('team', { as: ROBOT });
    const shown = await canIList(['-n', 'team', `--as=${ROBOT}`]);
    assert.deepEqual(sorted(shown), sorted(grantsOfReview(server)));
    assert.ok(shown.has('configmaps [settings] get'));
    assert.ok(shown.has('deployments.apps/scale [] update'));
    assert.ok(!shown.has('configmaps [] get'), 'only the named config map');
    // The server does what the table says.
    const as = { headers: { 'impersonate-user': ROBOT } };
    assert.notEqual((await ts.request('GET', '/api/v1/namespaces/team/configmaps/settings', undefined, as)).status, 403);
    assert.equal((await ts.request('GET', '/api/v1/namespaces/team/configmaps/other', undefined, as)).status, 403);
    assert.equal((await ts.request('GET', '/api/v1/namespaces/other/configmaps/settings', undefined, as)).status, 403);
  });

  it('--as the viewer agrees with the viewer\'s own list', async () => {
    assert.deepEqual(sorted(await canIList(['-n', 'team', `--as=${VI.name}`])), sorted(await canIList(['-n', 'team'], viKubeconfig)));
  });

  it('system:masters: everything', async () => {
    const shown = await canIList(['-n', 'team']);
    assert.ok(shown.has('*.* [] *'), [...shown].join('\n'));
    assert.ok(shown.has('* [] *'), 'every non-resource URL');
  });

  it('kubectl auth can-i (one question) agrees with the list', async () => {
    const ask = async (args: string[]) => (await ts.kubectl(['auth', 'can-i', ...args], { kubeconfig: viKubeconfig })).stdout.trim();
    assert.equal(await ask(['list', 'pods', '-n', 'team']), 'yes');
    assert.equal(await ask(['get', 'pods', '--subresource=log', '-n', 'team']), 'yes');
    assert.match(await ask(['get', 'secrets', '-n', 'team']), /^no\b/);
    assert.match(await ask(['list', 'pods', '-n', 'other']), /^no\b/);
  });
});
