/**
 * RBAC against a started server (--authorization-mode=Node,RBAC, as the quick
 * start runs; Node has no opinion on users that are not nodes), users from a
 * token file written here: a table of users × verbs × resources ×
 * subresources checked against what the original's default policy gives;
 * escalation attempts; aggregation; changes without a restart.
 *
 * "Allowed" means the request got past authorization: any answer but 403
 * (a 404 for an object that is not there, a 422 for a body the dry run
 * refuses). Writes are dry runs, so rows do not change each other's state.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { startTestServer, type TestServer } from '../../support/test-server.ts';
import { apiGroup, names } from '../../../src/naming/index.ts';
import { scratchDir } from '../../support/scratch-dir.ts';

const RBAC = apiGroup('rbac.authorization');
const RBAC_PATH = `/apis/${RBAC}/v1`;

const USERS = {
  editor: { token: 'editor-token-0123456789', name: 'ed', groups: ['devs'] },
  viewer: { token: 'viewer-token-0123456789', name: 'vi', groups: [] as string[] },
  robot: { token: 'robot-token-0123456789', name: 'system:serviceaccount:team:robot', groups: ['system:serviceaccounts', 'system:serviceaccounts:team'] },
  nobody: { token: 'nobody-token-0123456789', name: 'nobody', groups: [] as string[] },
  teamAdmin: { token: 'teamadmin-token-0123456789', name: 'tina', groups: [] as string[] },
  node1: { token: 'node1-token-0123456789', name: 'system:node:n1', groups: ['system:nodes'] },
  node2: { token: 'node2-token-0123456789', name: 'system:node:n2', groups: ['system:nodes'] },
};
type Who = keyof typeof USERS | 'admin' | 'anonymous';

let t: TestServer;

async function call(who: Who, method: string, url: string, body?: unknown): Promise<{ status: number; body: string }> {
  const as = who === 'admin' ? 'admin' : who === 'anonymous' ? 'none' : { token: USERS[who].token };
  const headers: Record<string, string> = method === 'PATCH' ? { 'content-type': 'application/merge-patch+json' } : {};
  const r = await t.request(method, url, body, { as, headers });
  return { status: r.status, body: r.body };
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`timed out waiting: ${what}`);
}

function binding(kind: 'RoleBinding' | 'ClusterRoleBinding', name: string, roleKind: 'Role' | 'ClusterRole', role: string, subjects: object[], namespace?: string): object {
  return { apiVersion: `${RBAC}/v1`, kind, metadata: { name, ...(namespace ? { namespace } : {}) }, roleRef: { apiGroup: RBAC, kind: roleKind, name: role }, subjects };
}
const user = (name: string): object => ({ kind: 'User', apiGroup: RBAC, name });

async function mustCreate(url: string, body: object): Promise<void> {
  const r = await call('admin', 'POST', url, body);
  assert.equal(r.status, 201, `${url}: ${r.body}`);
}

before(async () => {
  const dir = await scratchDir('orch-rbac-');
  const tokenFile = path.join(dir, 'tokens.csv');
  const lines = Object.values(USERS).map((u) => `${u.token},${u.name},uid-${u.name.replace(/:/g, '-')}${u.groups.length ? `,"${u.groups.join(',')}"` : ''}`);
  await fs.writeFile(tokenFile, lines.join('\n') + '\n', { mode: 0o600 });
  t = await startTestServer(['--authorization-mode=Node,RBAC', `--token-auth-file=${tokenFile}`]);
  for (const ns of ['team', 'other']) await mustCreate('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await mustCreate(`${RBAC_PATH}/namespaces/team/rolebindings`, binding('RoleBinding', 'editors', 'ClusterRole', 'edit', [{ kind: 'Group', apiGroup: RBAC, name: 'devs' }], 'team'));
  await mustCreate(`${RBAC_PATH}/namespaces/team/rolebindings`, binding('RoleBinding', 'viewers', 'ClusterRole', 'view', [user('vi')], 'team'));
  await mustCreate(`${RBAC_PATH}/namespaces/team/rolebindings`, binding('RoleBinding', 'admins', 'ClusterRole', 'admin', [user('tina')], 'team'));
  await mustCreate(`${RBAC_PATH}/namespaces/team/roles`, {
    apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name: 'cm-reader', namespace: 'team' },
    rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }],
  });
  // An unqualified service account in a RoleBinding is the binding's namespace's.
  await mustCreate(`${RBAC_PATH}/namespaces/team/rolebindings`, binding('RoleBinding', 'robot', 'Role', 'cm-reader', [{ kind: 'ServiceAccount', name: 'robot' }], 'team'));
  for (const name of ['s-n1', 's-n2']) await mustCreate('/api/v1/namespaces/team/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name } });
  await mustCreate('/api/v1/namespaces/team/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm-n1' } });
  await mustCreate('/api/v1/namespaces/team/persistentvolumeclaims', {
    apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'claim-n1' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  });
  for (const name of ['n1', 'n2']) await mustCreate('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name } });
  // Pods bound to the nodes: n1's references a secret, a config map and a claim; n2's a secret.
  await mustCreate('/api/v1/namespaces/team/pods', {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p-n1' },
    spec: {
      nodeName: 'n1', containers: [{ name: 'c', image: 'busybox' }],
      volumes: [{ name: 's', secret: { secretName: 's-n1' } }, { name: 'c', configMap: { name: 'cm-n1' } }, { name: 'd', persistentVolumeClaim: { claimName: 'claim-n1' } }],
    },
  });
  await mustCreate('/api/v1/namespaces/team/pods', {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p-n2' },
    spec: { nodeName: 'n2', containers: [{ name: 'c', image: 'busybox' }], volumes: [{ name: 's', secret: { secretName: 's-n2' } }] },
  });
  // The bindings reach the serving thread's index, and the pods the Node graph, through their watches.
  await until('edit aggregated and bindings visible', async () => (await call('editor', 'GET', '/api/v1/namespaces/team/pods')).status === 200);
  await until('the node graph has p-n1', async () => (await call('node1', 'GET', '/api/v1/namespaces/team/secrets/s-n1')).status !== 403);
  await until('the node graph has p-n2', async () => (await call('node2', 'GET', '/api/v1/namespaces/team/secrets/s-n2')).status !== 403);
});

after(async () => {
  await t?.stop();
});

const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } };
const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } };
const role = (rules: object[]): object => ({ apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name: 'r1' }, rules });
const scale = { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'd' }, spec: { replicas: 2 } };
const DRY = '?dryRun=All';

/** [who, method, path, body, allowed] — expectations from the original's default policy. */
const TABLE: Array<[Who, string, string, unknown, boolean]> = [
  // system:masters: everything.
  ['admin', 'GET', '/api/v1/nodes', undefined, true],
  ['admin', 'POST', `${RBAC_PATH}/clusterroles${DRY}`, { apiVersion: `${RBAC}/v1`, kind: 'ClusterRole', metadata: { name: 'x' }, rules: [] }, true],
  ['admin', 'DELETE', `/api/v1/namespaces/other${DRY}`, undefined, true],
  ['admin', 'GET', '/metrics', undefined, true],
  // edit in team.
  ['editor', 'GET', '/api/v1/namespaces/team/pods', undefined, true],
  ['editor', 'GET', '/api/v1/namespaces/team/pods?watch=true&timeoutSeconds=1', undefined, true],
  ['editor', 'POST', `/api/v1/namespaces/team/pods${DRY}`, pod, true],
  ['editor', 'GET', '/api/v1/namespaces/team/pods/p/log', undefined, true],
  ['editor', 'DELETE', `/api/v1/namespaces/team/pods${DRY}`, undefined, true],
  ['editor', 'GET', '/api/v1/namespaces/team/secrets/s', undefined, true],
  ['editor', 'POST', `/api/v1/namespaces/team/configmaps${DRY}`, cm, true],
  ['editor', 'PUT', `/apis/apps/v1/namespaces/team/deployments/d/scale${DRY}`, scale, true],
  ['editor', 'GET', '/api/v1/namespaces/team/resourcequotas', undefined, true],
  ['editor', 'POST', `${RBAC_PATH}/namespaces/team/roles${DRY}`, role([]), false],
  ['editor', 'GET', `${RBAC_PATH}/namespaces/team/rolebindings`, undefined, false],
  ['editor', 'PUT', `/api/v1/namespaces/team/resourcequotas/q${DRY}`, { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' } }, false],
  ['editor', 'GET', '/api/v1/namespaces/other/pods', undefined, false],
  ['editor', 'GET', '/api/v1/pods', undefined, false],
  ['editor', 'GET', '/api/v1/nodes', undefined, false],
  ['editor', 'PATCH', `/api/v1/namespaces/team${DRY}`, {}, false],
  ['editor', 'GET', '/api/v1/namespaces/team/pods/p/status', undefined, true],
  ['editor', 'PUT', `/api/v1/namespaces/team/pods/p/status${DRY}`, pod, false],
  ['editor', 'GET', '/metrics', undefined, false],
  ['editor', 'GET', '/apis', undefined, true],
  // view in team.
  ['viewer', 'GET', '/api/v1/namespaces/team/pods', undefined, true],
  ['viewer', 'GET', '/api/v1/namespaces/team/pods/p/log', undefined, true],
  ['viewer', 'GET', '/api/v1/namespaces/team', undefined, true],
  ['viewer', 'GET', '/apis/apps/v1/namespaces/team/deployments/d/scale', undefined, true],
  ['viewer', 'PUT', `/apis/apps/v1/namespaces/team/deployments/d/scale${DRY}`, scale, false],
  ['viewer', 'GET', '/api/v1/namespaces/team/secrets', undefined, false],
  ['viewer', 'GET', '/api/v1/namespaces/team/secrets/s', undefined, false],
  ['viewer', 'POST', `/api/v1/namespaces/team/configmaps${DRY}`, cm, false],
  ['viewer', 'DELETE', `/api/v1/namespaces/team/pods/p${DRY}`, undefined, false],
  ['viewer', 'GET', '/api/v1/namespaces', undefined, false],
  ['viewer', 'GET', '/api/v1/namespaces/team/configmaps?watch=true&timeoutSeconds=1', undefined, true],
  ['viewer', 'DELETE', `/api/v1/namespaces/team/configmaps${DRY}`, undefined, false],
  ['viewer', 'GET', '/api/v1/namespaces/team/pods?fieldSelector=metadata.name%3Dp', undefined, true],
  ['viewer', 'GET', '/api/v1/namespaces/other', undefined, false],
  // A service account with one Role (get configmaps) in its namespace.
  ['robot', 'GET', '/api/v1/namespaces/team/configmaps/c', undefined, true],
  ['robot', 'GET', '/api/v1/namespaces/team/configmaps', undefined, false],
  ['robot', 'GET', '/api/v1/namespaces/other/configmaps/c', undefined, false],
  ['robot', 'GET', '/api/v1/namespaces/team/pods', undefined, false],
  ['robot', 'GET', '/api', undefined, true],
  ['robot', 'GET', '/.well-known/openid-configuration', undefined, true],
  // Anonymous: health and version only (system:public-info-viewer).
  ['anonymous', 'GET', '/healthz', undefined, true],
  ['anonymous', 'GET', '/livez', undefined, true],
  ['anonymous', 'GET', '/readyz', undefined, true],
  ['anonymous', 'GET', '/version', undefined, true],
  ['anonymous', 'GET', '/api', undefined, false],
  ['anonymous', 'GET', '/openapi/v2', undefined, false],
  ['anonymous', 'GET', '/metrics', undefined, false],
  ['anonymous', 'GET', '/api/v1/namespaces/team/pods', undefined, false],
  // Authenticated with no bindings: discovery and basic user only.
  ['nobody', 'GET', '/api', undefined, true],
  ['nobody', 'GET', '/apis', undefined, true],
  ['nobody', 'GET', '/openapi/v2', undefined, true],
  ['nobody', 'GET', '/version', undefined, true],
  ['nobody', 'GET', '/metrics', undefined, false],
  ['nobody', 'GET', '/api/v1/namespaces/team/pods', undefined, false],
  ['nobody', 'POST', `/api/v1/namespaces/team/configmaps${DRY}`, cm, false],
  ['nobody', 'GET', `${RBAC_PATH}/clusterroles`, undefined, false],
  ['nobody', 'GET', '/api/v1/namespaces/team/pods?watch=true&timeoutSeconds=1', undefined, false],
  ['nobody', 'DELETE', `/api/v1/namespaces/team/pods${DRY}`, undefined, false],
  ['nobody', 'PATCH', `/api/v1/namespaces/team/configmaps/c${DRY}`, {}, false],
  // A node (system:node:n1 in system:nodes) under Node,RBAC (plugin/pkg/auth/authorizer/node, v1.25): named
  // reads of what its pods reference, nothing of another node's pods or of unbound objects.
  ['node1', 'GET', '/api/v1/namespaces/team/secrets/s-n1', undefined, true],
  ['node1', 'GET', '/api/v1/namespaces/team/configmaps/cm-n1', undefined, true],
  ['node1', 'GET', '/api/v1/namespaces/team/persistentvolumeclaims/claim-n1', undefined, true],
  ['node1', 'GET', '/api/v1/namespaces/team/secrets?fieldSelector=metadata.name%3Ds-n1', undefined, true],
  ['node1', 'GET', '/api/v1/namespaces/team/secrets/s-n2', undefined, false],
  ['node1', 'GET', '/api/v1/namespaces/team/secrets/s', undefined, false],
  ['node1', 'GET', '/api/v1/namespaces/team/configmaps/c', undefined, false],
  ['node1', 'GET', '/api/v1/namespaces/team/persistentvolumeclaims/other', undefined, false],
  ['node1', 'GET', '/api/v1/namespaces/team/secrets', undefined, false],
  ['node1', 'GET', '/api/v1/secrets', undefined, false],
  ['node1', 'GET', '/api/v1/namespaces/team/persistentvolumeclaims', undefined, false],
  ['node1', 'PUT', `/api/v1/namespaces/team/secrets/s-n1${DRY}`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's-n1' } }, false],
  ['node1', 'DELETE', `/api/v1/namespaces/team/configmaps/cm-n1${DRY}`, undefined, false],
  ['node1', 'GET', '/api/v1/namespaces/team/serviceaccounts/default', undefined, false],
  ['node2', 'GET', '/api/v1/namespaces/team/secrets/s-n2', undefined, true],
  ['node2', 'GET', '/api/v1/namespaces/team/secrets/s-n1', undefined, false],
  ['node2', 'GET', '/api/v1/namespaces/team/configmaps/cm-n1', undefined, false],
  // Its static rules (bootstrappolicy.NodeRules): read pods, nodes, services; register and report its Node;
  // pod status. Which Node or pod it may write is NodeRestriction's (admission, not on by default in v1.25),
  // so the authorizer allows another node's Node and pod status as the original's does.
  ['node1', 'GET', '/api/v1/pods', undefined, true],
  ['node1', 'GET', '/api/v1/nodes/n1', undefined, true],
  ['node1', 'GET', '/api/v1/services', undefined, true],
  ['node1', 'POST', `/api/v1/nodes${DRY}`, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n3' } }, true],
  ['node1', 'PATCH', `/api/v1/nodes/n1${DRY}`, {}, true],
  ['node1', 'PATCH', `/api/v1/nodes/n1/status${DRY}`, {}, true],
  ['node1', 'PATCH', `/api/v1/nodes/n2${DRY}`, {}, true],
  ['node1', 'DELETE', `/api/v1/nodes/n1${DRY}`, undefined, false],
  ['node1', 'PATCH', `/api/v1/namespaces/team/pods/p-n1/status${DRY}`, {}, true],
  ['node1', 'PUT', `/api/v1/namespaces/team/pods/p-n1${DRY}`, pod, false],
  ['node1', 'POST', `/api/v1/namespaces/team/events${DRY}`, { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e' }, involvedObject: {} }, true],
  ['node1', 'GET', '/apis/apps/v1/namespaces/team/deployments', undefined, false],
  ['node1', 'GET', `${RBAC_PATH}/clusterroles`, undefined, false],
  ['node1', 'GET', '/api', undefined, true],
  // Leases: only its own, only in the node lease namespace (authorizeLease).
  ['node1', 'GET', `/apis/${apiGroup('coordination')}/v1/namespaces/${names.nodeLeaseNamespace}/leases/n1`, undefined, true],
  ['node1', 'PUT', `/apis/${apiGroup('coordination')}/v1/namespaces/${names.nodeLeaseNamespace}/leases/n1${DRY}`, { apiVersion: `${apiGroup('coordination')}/v1`, kind: 'Lease', metadata: { name: 'n1' } }, true],
  ['node1', 'PUT', `/apis/${apiGroup('coordination')}/v1/namespaces/${names.nodeLeaseNamespace}/leases/n2${DRY}`, { apiVersion: `${apiGroup('coordination')}/v1`, kind: 'Lease', metadata: { name: 'n2' } }, false],
  ['node1', 'GET', `/apis/${apiGroup('coordination')}/v1/namespaces/${names.nodeLeaseNamespace}/leases`, undefined, false],
  ['node1', 'GET', `/apis/${apiGroup('coordination')}/v1/namespaces/team/leases/n1`, undefined, false],
];

/**
 * [impersonator, Impersonate-User, Impersonate-Group, method, path, body, allowed]: with the verb the request
 * gets the target's decisions (groups: the given one, or none, plus system:authenticated); without it, 403.
 */
const IMPERSONATED: Array<[Who, string, string | undefined, string, string, unknown, boolean]> = [
  ['admin', 'vi', undefined, 'GET', '/api/v1/namespaces/team/pods', undefined, true],
  ['admin', 'vi', undefined, 'GET', '/api/v1/namespaces/team/secrets/s', undefined, false],
  ['admin', 'vi', undefined, 'POST', `/api/v1/namespaces/team/configmaps${DRY}`, cm, false],
  ['admin', 'vi', undefined, 'GET', '/api/v1/nodes', undefined, false],
  ['admin', 'vi', 'devs', 'POST', `/api/v1/namespaces/team/configmaps${DRY}`, cm, true],
  ['admin', 'someone', 'devs', 'GET', '/api/v1/namespaces/team/secrets/s', undefined, true],
  ['admin', 'someone', 'devs', 'GET', '/api/v1/namespaces/other/pods', undefined, false],
  ['admin', 'someone', undefined, 'GET', '/api', undefined, true],
  ['admin', 'someone', undefined, 'GET', '/api/v1/namespaces/team/pods', undefined, false],
  ['admin', USERS.robot.name, undefined, 'GET', '/api/v1/namespaces/team/configmaps/c', undefined, true],
  ['admin', USERS.robot.name, undefined, 'GET', '/api/v1/namespaces/team/pods', undefined, false],
  ['admin', 'system:node:n1', 'system:nodes', 'GET', '/api/v1/namespaces/team/secrets/s-n1', undefined, true],
  ['admin', 'system:node:n1', 'system:nodes', 'GET', '/api/v1/namespaces/team/secrets/s-n2', undefined, false],
  ['admin', 'system:node:n1', undefined, 'GET', '/api/v1/namespaces/team/secrets/s-n1', undefined, false],
  ['admin', 'system:anonymous', undefined, 'GET', '/version', undefined, true],
  ['admin', 'system:anonymous', undefined, 'GET', '/api', undefined, false],
  ['admin', 'admin-again', 'system:masters', 'GET', '/api/v1/nodes', undefined, true],
  // Without the verb: the impersonation itself is refused, whatever the target could do.
  ['viewer', 'ed', undefined, 'GET', '/api/v1/namespaces/team/pods', undefined, false],
  ['nobody', 'vi', undefined, 'GET', '/api/v1/namespaces/team/pods', undefined, false],
  ['robot', 'system:node:n1', 'system:nodes', 'GET', '/api/v1/namespaces/team/secrets/s-n1', undefined, false],
  ['node1', 'vi', undefined, 'GET', '/api/v1/namespaces/team/pods', undefined, false],
  // edit may impersonate service accounts of its namespace, but not users or groups.
  ['editor', USERS.robot.name, undefined, 'GET', '/api/v1/namespaces/team/configmaps/c', undefined, true],
  ['editor', USERS.robot.name, 'devs', 'GET', '/api/v1/namespaces/team/configmaps/c', undefined, false],
  ['editor', 'vi', undefined, 'GET', '/api/v1/namespaces/team/pods', undefined, false],
];

describe('RBAC decisions against a started server', () => {
  it('users × verbs × resources × subresources as the original policy gives', async () => {
    const wrong: string[] = [];
    for (const [who, method, url, body, allowed] of TABLE) {
      const r = await call(who, method, url, body);
      if (process.env['RBAC_TABLE_DEBUG']) console.log(who, method, url, r.status);
      if ((r.status !== 403) !== allowed) wrong.push(`${who} ${method} ${url}: ${r.status} ${r.body.slice(0, 200)}`);
    }
    assert.deepEqual(wrong, []);
  });

  it('impersonated users get the target\'s decisions; impersonating without the verb is 403', async () => {
    const wrong: string[] = [];
    for (const [by, as, group, method, url, body, allowed] of IMPERSONATED) {
      const headers: Record<string, string> = { 'impersonate-user': as, ...(group !== undefined ? { 'impersonate-group': group } : {}) };
      const r = await t.request(method, url, body, { as: by === 'admin' ? 'admin' : { token: USERS[by as keyof typeof USERS].token }, headers });
      if ((r.status !== 403) !== allowed) wrong.push(`${by} as ${as}${group ? `/${group}` : ''} ${method} ${url}: ${r.status} ${r.body.slice(0, 200)}`);
    }
    assert.deepEqual(wrong, []);
  });

  it('a denial carries the original\'s message', async () => {
    const r = await call('nobody', 'GET', '/api/v1/namespaces/team/pods');
    assert.equal(r.status, 403);
    const status = JSON.parse(r.body) as { message: string; reason: string; details: object };
    assert.equal(status.reason, 'Forbidden');
    assert.equal(status.message, 'pods is forbidden: User "nobody" cannot list resource "pods" in API group "" in the namespace "team"');
    const a = await call('anonymous', 'GET', '/metrics');
    assert.equal(JSON.parse(a.body).message, 'forbidden: User "system:anonymous" cannot get path "/metrics"');
  });
});

describe('impersonation under RBAC', () => {
  async function as(who: keyof typeof USERS, impersonate: string, method: string, url: string): Promise<{ status: number; body: string }> {
    const r = await t.request(method, url, undefined, { as: { token: USERS[who].token }, headers: { 'impersonate-user': impersonate } });
    return { status: r.status, body: r.body };
  }

  it('without the verb: 403 naming the impersonated user', async () => {
    const r = await as('nobody', 'tina', 'GET', '/api/v1/namespaces/team/pods');
    assert.equal(r.status, 403);
    assert.equal(JSON.parse(r.body).message, 'users "tina" is forbidden: User "nobody" cannot impersonate resource "users" in API group "" at the cluster scope');
  });

  it('edit may act as a service account of its namespace, and then has only its rights', async () => {
    const sa = USERS.robot.name;
    assert.notEqual((await as('editor', sa, 'GET', '/api/v1/namespaces/team/configmaps/c')).status, 403);
    assert.equal((await as('editor', sa, 'GET', '/api/v1/namespaces/team/pods')).status, 403, 'the service account may not list pods');
    assert.equal((await as('viewer', sa, 'GET', '/api/v1/namespaces/team/configmaps/c')).status, 403, 'view has no impersonate');
    assert.equal((await as('editor', 'system:serviceaccount:other:robot', 'GET', '/api/v1/namespaces/other/configmaps/c')).status, 403, 'not outside its namespace');
  });
});

describe('escalation prevention', () => {
  it('binding cluster-admin without bind is refused, even for a namespace admin', async () => {
    const r = await call('teamAdmin', 'POST', `${RBAC_PATH}/namespaces/team/rolebindings`, binding('RoleBinding', 'grab', 'ClusterRole', 'cluster-admin', [user('tina')]));
    assert.equal(r.status, 403, r.body);
    assert.match(JSON.parse(r.body).message, /^rolebindings\.rbac\.authorization\.[a-z0-9.]+ "grab" is forbidden: user "tina" \(groups=\["system:authenticated"\]\) is attempting to grant RBAC permissions not currently held:\n/);
  });

  it('a role granting more than the creator holds is refused; one within is accepted', async () => {
    const tooMuch = await call('teamAdmin', 'POST', `${RBAC_PATH}/namespaces/team/roles${DRY}`, role([{ apiGroups: [''], resources: ['nodes'], verbs: ['get'] }]));
    assert.equal(tooMuch.status, 403, tooMuch.body);
    assert.match(JSON.parse(tooMuch.body).message, /\{APIGroups:\[""\], Resources:\["nodes"\], Verbs:\["get"\]\}/);
    const star = await call('teamAdmin', 'POST', `${RBAC_PATH}/namespaces/team/roles${DRY}`, role([{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }]));
    assert.equal(star.status, 403);
    const within = await call('teamAdmin', 'POST', `${RBAC_PATH}/namespaces/team/roles${DRY}`, role([{ apiGroups: [''], resources: ['secrets', 'pods/log'], verbs: ['get'] }]));
    assert.equal(within.status, 201, within.body);
    // Outside their namespace they hold nothing.
    const elsewhere = await call('teamAdmin', 'POST', `${RBAC_PATH}/namespaces/other/roles${DRY}`, role([]));
    assert.equal(elsewhere.status, 403);
  });

  it('binding a role whose permissions you hold is accepted; `bind` on the role lets you bind more', async () => {
    const view = await call('teamAdmin', 'POST', `${RBAC_PATH}/namespaces/team/rolebindings${DRY}`, binding('RoleBinding', 'v', 'ClusterRole', 'view', [user('someone')]));
    assert.equal(view.status, 201, view.body);
    await mustCreate(`${RBAC_PATH}/clusterroles`, {
      apiVersion: `${RBAC}/v1`, kind: 'ClusterRole', metadata: { name: 'bind-cluster-admin' },
      rules: [{ apiGroups: [RBAC], resources: ['clusterroles'], verbs: ['bind'], resourceNames: ['cluster-admin'] }],
    });
    await mustCreate(`${RBAC_PATH}/namespaces/team/rolebindings`, binding('RoleBinding', 'tina-binds', 'ClusterRole', 'bind-cluster-admin', [user('tina')], 'team'));
    await until('bind permission visible', async () => {
      const r = await call('teamAdmin', 'POST', `${RBAC_PATH}/namespaces/team/rolebindings${DRY}`, binding('RoleBinding', 'grab', 'ClusterRole', 'cluster-admin', [user('tina')]));
      return r.status === 201;
    });
    // bind in team does not reach cluster-wide bindings.
    const crb = await call('teamAdmin', 'POST', `${RBAC_PATH}/clusterrolebindings${DRY}`, binding('ClusterRoleBinding', 'grab', 'ClusterRole', 'cluster-admin', [user('tina')]));
    assert.equal(crb.status, 403);
  });

  it('updating a role to grant more is refused like creating it', async () => {
    await mustCreate(`${RBAC_PATH}/namespaces/team/roles`, role([{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }]));
    const cur = await call('teamAdmin', 'GET', `${RBAC_PATH}/namespaces/team/roles/r1`);
    assert.equal(cur.status, 200, cur.body);
    const obj = JSON.parse(cur.body);
    obj.rules = [{ apiGroups: [''], resources: ['nodes'], verbs: ['list'] }];
    const r = await call('teamAdmin', 'PUT', `${RBAC_PATH}/namespaces/team/roles/r1`, obj);
    assert.equal(r.status, 403, r.body);
  });
});

describe('aggregation and live changes', () => {
  it('a ClusterRole labelled aggregate-to-view shows up in view, edit and admin, and grants at once', async () => {
    const before = await call('viewer', 'GET', '/apis/example.com/v1/namespaces/team/widgets');
    assert.equal(before.status, 403);
    await mustCreate(`${RBAC_PATH}/clusterroles`, {
      apiVersion: `${RBAC}/v1`, kind: 'ClusterRole',
      metadata: { name: 'widgets-view', labels: { [`${RBAC}/aggregate-to-view`]: 'true' } },
      rules: [{ apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get', 'list', 'watch'] }],
    });
    for (const name of ['view', 'edit', 'admin']) {
      await until(`${name} aggregates widgets`, async () => {
        const r = await call('admin', 'GET', `${RBAC_PATH}/clusterroles/${name}`);
        return JSON.stringify(JSON.parse(r.body).rules).includes('"widgets"');
      });
    }
    await until('viewer may list widgets', async () => (await call('viewer', 'GET', '/apis/example.com/v1/namespaces/team/widgets')).status !== 403);
    const del = await call('admin', 'DELETE', `${RBAC_PATH}/clusterroles/widgets-view`);
    assert.equal(del.status, 200);
    await until('view loses widgets', async () => {
      const r = await call('admin', 'GET', `${RBAC_PATH}/clusterroles/view`);
      return !JSON.stringify(JSON.parse(r.body).rules).includes('"widgets"');
    });
  });

  it('a new binding allows shortly after; deleting it denies again, without a restart', async () => {
    const url = '/api/v1/namespaces/other/pods';
    assert.equal((await call('nobody', 'GET', url)).status, 403);
    await mustCreate(`${RBAC_PATH}/namespaces/other/rolebindings`, binding('RoleBinding', 'nobody-view', 'ClusterRole', 'view', [user('nobody')], 'other'));
    await until('allowed after the binding', async () => (await call('nobody', 'GET', url)).status === 200);
    const del = await call('admin', 'DELETE', `${RBAC_PATH}/namespaces/other/rolebindings/nobody-view`);
    assert.equal(del.status, 200);
    await until('denied after the delete', async () => (await call('nobody', 'GET', url)).status === 403);
  });
});
