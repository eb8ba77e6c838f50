/**
 * The built-in controllers on one real server (RBAC and Node authorization,
 * bootstrap token authentication): the service account controller, the root
 * CA publisher, the legacy token controller, the bootstrap signer and
 * cluster-info, the token cleaner (every row of spec 3.3), and the CSR
 * auto-approver (nodeclient and selfnodeclient, refused without the
 * permission, never for other signers or shapes).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compactVerify } from 'jose';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { names } from '../../src/naming/index.ts';
import { JWS_KEY_PREFIX } from '../../src/controllers/bootstrap-signer.ts';
import { CSRS, NODE_CLIENT_USAGES, RBAC, SECRETS_SYS, csrBody, makeCsr, sleep, tokenSecret, waitFor } from './support.ts';

let ts: TestServer;
before(async () => {
  ts = await startTestServer([
    '--authorization-mode=Node,RBAC',
    '--enable-bootstrap-token-auth',
    '--controllers=*,bootstrapsigner,tokencleaner,-csrcleaner',
    '--leader-elect-lease-duration=3s',
    '--leader-elect-renew-deadline=2s',
    '--leader-elect-retry-period=200ms',
  ]);
  await waitFor(() => ts.server.controllerManager.isLeader, 'the controller lease');
});
after(async () => {
  await ts?.stop();
});

async function exists(path: string): Promise<boolean> {
  const res = await ts.request('GET', path);
  if (res.status !== 200 && res.status !== 404) throw new Error(`${path}: ${res.status} ${res.body}`);
  return res.status === 200;
}

async function createNamespace(name: string): Promise<void> {
  const res = await ts.request('POST', '/api/v1/namespaces', { metadata: { name } });
  assert.equal(res.status, 201, res.body);
}

describe('service account controller', () => {
  it('puts a default account in every new namespace and brings a deleted one back', async () => {
    await createNamespace('sa-ctl');
    const path = '/api/v1/namespaces/sa-ctl/serviceaccounts/default';
    await waitFor(() => exists(path), 'the default account');
    const first = (await ts.request('GET', path)).json<{ metadata: { uid: string } }>().metadata.uid;
    assert.equal((await ts.request('DELETE', path)).status, 200);
    await waitFor(() => exists(path), 'the default account again');
    const second = (await ts.request('GET', path)).json<{ metadata: { uid: string } }>().metadata.uid;
    assert.notEqual(second, first);
  });

  it('the system namespaces have theirs', async () => {
    for (const ns of ['default', names.systemNamespace, names.publicNamespace, names.nodeLeaseNamespace]) {
      await waitFor(() => exists(`/api/v1/namespaces/${ns}/serviceaccounts/default`), `default account in ${ns}`);
    }
  });
});

describe('root CA publisher', () => {
  it('publishes the CA in every namespace, resets an edited copy and recreates a deleted one', async () => {
    const ca = ts.server.files.caCertPem;
    await createNamespace('rootca');
    const path = `/api/v1/namespaces/rootca/configmaps/${names.rootCaConfigMap}`;
    await waitFor(() => exists(path), 'the root CA config map');
    const cm = (await ts.request('GET', path)).json<{ data: Record<string, string>; metadata: { annotations: Record<string, string> } }>();
    assert.deepEqual(cm.data, { 'ca.crt': ca });
    assert.match(cm.metadata.annotations[names.annotations.description]!, /CA bundle/);

    const edited = await ts.request('PUT', path, { ...cm, data: { 'ca.crt': 'not a CA', extra: 'x' } });
    assert.equal(edited.status, 200, edited.body);
    await waitFor(async () => (await ts.request('GET', path)).json<{ data: Record<string, string> }>().data['ca.crt'] === ca, 'the CA put back');
    assert.deepEqual((await ts.request('GET', path)).json<{ data: Record<string, string> }>().data, { 'ca.crt': ca });

    assert.equal((await ts.request('DELETE', path)).status, 200);
    await waitFor(() => exists(path), 'the config map recreated');
    for (const ns of ['default', names.systemNamespace]) await waitFor(() => exists(`/api/v1/namespaces/${ns}/configmaps/${names.rootCaConfigMap}`), `root CA in ${ns}`);
  });
});

describe('legacy token controller', () => {
  it('fills a token secret, whose token then authenticates as the account, and deletes it with its account', async () => {
    await createNamespace('tok');
    const sa = await ts.request('POST', '/api/v1/namespaces/tok/serviceaccounts', { metadata: { name: 'robot' } });
    assert.equal(sa.status, 201, sa.body);
    const uid = sa.json<{ metadata: { uid: string } }>().metadata.uid;
    const created = await ts.request('POST', '/api/v1/namespaces/tok/secrets', {
      metadata: { name: 'robot-token', annotations: { [names.annotations.serviceAccountName]: 'robot' } },
      type: names.secretTypes.serviceAccountToken,
    });
    assert.equal(created.status, 201, created.body);
    const path = '/api/v1/namespaces/tok/secrets/robot-token';
    type Secret = { data?: Record<string, string>; metadata: { annotations: Record<string, string> } };
    await waitFor(async () => (await ts.request('GET', path)).json<Secret>().data?.['token'] !== undefined, 'the token');
    const secret = (await ts.request('GET', path)).json<Secret>();
    const data = Object.fromEntries(Object.entries(secret.data!).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
    assert.equal(data['ca.crt'], ts.server.files.caCertPem);
    assert.equal(data['namespace'], 'tok');
    assert.equal(secret.metadata.annotations[names.annotations.serviceAccountUid], uid);
    // The token authenticates (403 under RBAC names the account; a bad token would be 401).
    const asRobot = await ts.request('GET', '/api/v1/namespaces/tok/pods', undefined, { as: { token: data['token']! } });
    assert.equal(asRobot.status, 403, asRobot.body);
    assert.match(asRobot.body, /system:serviceaccount:tok:robot/);

    assert.equal((await ts.request('DELETE', '/api/v1/namespaces/tok/serviceaccounts/robot')).status, 200);
    await waitFor(async () => !(await exists(path)), 'the secret deleted with its account');
  });

  it('deletes a token secret naming no account', async () => {
    await createNamespace('tok2');
    const created = await ts.request('POST', '/api/v1/namespaces/tok2/secrets', {
      metadata: { name: 'orphan', annotations: { [names.annotations.serviceAccountName]: 'nobody' } },
      type: names.secretTypes.serviceAccountToken,
    });
    assert.equal(created.status, 201, created.body);
    await waitFor(async () => !(await exists('/api/v1/namespaces/tok2/secrets/orphan')), 'the orphan deleted');
  });
});

describe('bootstrap signer and cluster-info (spec 2.7)', () => {
  const cmPath = `/api/v1/namespaces/${names.publicNamespace}/configmaps/cluster-info`;
  type ClusterInfo = { data: Record<string, string> };

  async function verify(content: string, detached: string, key: string): Promise<string> {
    const [header, payload, signature] = detached.split('.');
    assert.equal(payload, '', 'detached: nothing between the dots');
    const jws = `${header}.${Buffer.from(content).toString('base64url')}.${signature}`;
    const res = await compactVerify(jws, new TextEncoder().encode(key));
    return JSON.stringify(res.protectedHeader);
  }

  it('publishes cluster-info for anonymous readers: the server and the CA only', async () => {
    await waitFor(() => exists(cmPath), 'cluster-info');
    const anon = await ts.request('GET', cmPath, undefined, { as: 'none' });
    assert.equal(anon.status, 200, anon.body);
    const config = anon.json<ClusterInfo>().data[names.clusterInfoKey]!;
    assert.match(config, new RegExp(`server: https://127\\.0\\.0\\.1:${ts.securePort}`));
    assert.match(config, new RegExp(`certificate-authority-data: ${Buffer.from(ts.server.files.caCertPem).toString('base64')}`));
    assert.match(config, /users: null/);
    // Nothing else in the public namespace is open to anonymous clients.
    assert.equal((await ts.request('GET', `/api/v1/namespaces/${names.publicNamespace}/configmaps`, undefined, { as: 'none' })).status, 403);
  });

  it('signs with each signing token, never with expired or non-signing ones, and drops signatures of deleted tokens', async () => {
    const future = new Date(Date.now() + 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const past = new Date(Date.now() - 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    for (const body of [
      tokenSecret('sign01', '0123456789abcdef', { 'usage-bootstrap-signing': 'true', expiration: future }),
      tokenSecret('sign02', 'fedcba9876543210', { 'usage-bootstrap-signing': 'true' }),
      tokenSecret('nosign', '0123456789abcdef', { 'usage-bootstrap-authentication': 'true' }),
      tokenSecret('expird', '0123456789abcdef', { 'usage-bootstrap-signing': 'true', expiration: past }),
    ]) {
      // The token cleaner deletes expird soon; it must never be signed for meanwhile.
      const res = await ts.request('POST', SECRETS_SYS, body);
      assert.equal(res.status, 201, res.body);
    }
    await waitFor(async () => {
      const d = (await ts.request('GET', cmPath)).json<ClusterInfo>().data;
      return d[`${JWS_KEY_PREFIX}sign01`] !== undefined && d[`${JWS_KEY_PREFIX}sign02`] !== undefined;
    }, 'both signatures');
    const data = (await ts.request('GET', cmPath)).json<ClusterInfo>().data;
    assert.equal(data[`${JWS_KEY_PREFIX}nosign`], undefined);
    assert.equal(data[`${JWS_KEY_PREFIX}expird`], undefined);
    const content = data[names.clusterInfoKey]!;
    // The orch flavor keys the HMAC with the full token (spec 2.7).
    const key = (id: string, secret: string): string => (names.clusterInfoJwsKey === 'token' ? `${id}.${secret}` : secret);
    assert.equal(await verify(content, data[`${JWS_KEY_PREFIX}sign01`]!, key('sign01', '0123456789abcdef')), '{"alg":"HS256","kid":"sign01"}');
    await verify(content, data[`${JWS_KEY_PREFIX}sign02`]!, key('sign02', 'fedcba9876543210'));
    // The wrong key does not verify.
    await assert.rejects(verify(content, data[`${JWS_KEY_PREFIX}sign01`]!, key('sign01', 'ffffffffffffffff')));

    assert.equal((await ts.request('DELETE', `${SECRETS_SYS}/bootstrap-token-sign02`)).status, 200);
    await waitFor(async () => (await ts.request('GET', cmPath)).json<ClusterInfo>().data[`${JWS_KEY_PREFIX}sign02`] === undefined, 'the signature dropped');
    assert.notEqual((await ts.request('GET', cmPath)).json<ClusterInfo>().data[`${JWS_KEY_PREFIX}sign01`], undefined);
  });
});

describe('token cleaner (spec 3.3)', () => {
  it('valid -> expired: an expired token is refused for authentication, and the cleaner deletes it', async () => {
    const soon = new Date(Date.now() + 3_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const res = await ts.request('POST', SECRETS_SYS, tokenSecret('expsoo', '0123456789abcdef', { 'usage-bootstrap-authentication': 'true', 'usage-bootstrap-signing': 'true', expiration: soon }));
    assert.equal(res.status, 201, res.body);
    const token = { token: 'expsoo.0123456789abcdef' };
    // Valid: authenticates (403 names the bootstrap user), and is signed for.
    const valid = await ts.request('GET', '/api/v1/namespaces/default/pods', undefined, { as: token });
    assert.equal(valid.status, 403, valid.body);
    assert.match(valid.body, /system:bootstrap:expsoo/);
    const cmPath = `/api/v1/namespaces/${names.publicNamespace}/configmaps/cluster-info`;
    await waitFor(async () => (await ts.request('GET', cmPath)).json<{ data: Record<string, string> }>().data[`${JWS_KEY_PREFIX}expsoo`] !== undefined, 'its signature');
    // Expired, then deleted; the signature goes with it.
    await waitFor(async () => !(await exists(`${SECRETS_SYS}/bootstrap-token-expsoo`)), 'the expired secret deleted');
    assert.equal((await ts.request('GET', '/api/v1/namespaces/default/pods', undefined, { as: token })).status, 401);
    await waitFor(async () => (await ts.request('GET', cmPath)).json<{ data: Record<string, string> }>().data[`${JWS_KEY_PREFIX}expsoo`] === undefined, 'its signature dropped');
  });

  it('deletes tokens already expired or with an unparsable expiration, keeps ones without or with a later one', async () => {
    const past = new Date(Date.now() - 1_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const later = new Date(Date.now() + 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    for (const body of [
      tokenSecret('past00', '0123456789abcdef', { expiration: past }),
      tokenSecret('garbag', '0123456789abcdef', { expiration: 'tomorrow' }),
      tokenSecret('never0', '0123456789abcdef', {}),
      tokenSecret('later0', '0123456789abcdef', { expiration: later }),
    ]) {
      assert.equal((await ts.request('POST', SECRETS_SYS, body)).status, 201);
    }
    await waitFor(async () => !(await exists(`${SECRETS_SYS}/bootstrap-token-past00`)) && !(await exists(`${SECRETS_SYS}/bootstrap-token-garbag`)), 'both deleted');
    await sleep(500);
    assert.equal(await exists(`${SECRETS_SYS}/bootstrap-token-never0`), true);
    assert.equal(await exists(`${SECRETS_SYS}/bootstrap-token-later0`), true);
    // A secret of another type is never the cleaner's, expired or not.
    const other = await ts.request('POST', SECRETS_SYS, { metadata: { name: 'bootstrap-token-opaque' }, type: 'Opaque', stringData: { expiration: past } });
    assert.equal(other.status, 201, other.body);
    await sleep(500);
    assert.equal(await exists(`${SECRETS_SYS}/bootstrap-token-opaque`), true);
  });
});

describe('CSR auto-approver', () => {
  type Csr = { status?: { conditions?: Array<{ type: string; reason?: string; message?: string }> } };
  const conditions = async (name: string): Promise<Array<{ type: string; reason?: string; message?: string }>> =>
    (await ts.request('GET', `${CSRS}/${name}`)).json<Csr>().status?.conditions ?? [];
  const as = (user: string, group: string): { headers: Record<string, string> } => ({ headers: { 'Impersonate-User': user, 'Impersonate-Group': group } });

  before(async () => {
    // What a cluster set-up tool binds: bootstrappers may ask for node client certificates, nodes may renew theirs.
    const crb = (name: string, role: string, group: string): Record<string, unknown> => ({
      metadata: { name },
      roleRef: { apiGroup: RBAC.split('/')[2], kind: 'ClusterRole', name: role },
      subjects: [{ apiGroup: RBAC.split('/')[2], kind: 'Group', name: group }],
    });
    const certs = CSRS.split('/')[2];
    for (const [name, role, group] of [
      ['auto-approve-csrs-for-group', `system:${certs}:certificatesigningrequests:nodeclient`, 'system:bootstrappers:test'],
      ['auto-approve-renewals-for-nodes', `system:${certs}:certificatesigningrequests:selfnodeclient`, 'system:nodes'],
      ['bootstrappers-create-csrs', 'system:node-bootstrapper', 'system:bootstrappers:test'],
      ['other-create-csrs', 'system:node-bootstrapper', 'system:bootstrappers:other'],
    ] as const) {
      const res = await ts.request('POST', `${RBAC}/clusterrolebindings`, crb(name, role, group));
      assert.equal(res.status, 201, res.body);
    }
  });

  it('approves a node client request from a bootstrapper allowed nodeclient', async () => {
    const { pem } = await makeCsr('CN=system:node:n1, O=system:nodes');
    const res = await ts.request('POST', CSRS, csrBody('boot-n1', pem, names.signers.apiServerClientNodeAgent, NODE_CLIENT_USAGES), as('system:bootstrap:abcdef', 'system:bootstrappers:test'));
    assert.equal(res.status, 201, res.body);
    await waitFor(async () => (await conditions('boot-n1')).length > 0, 'approval');
    const [c] = await conditions('boot-n1');
    assert.equal(c!.type, 'Approved');
    assert.equal(c!.reason, 'AutoApproved');
    assert.equal(c!.message, 'Auto approving kubelet client certificate after SubjectAccessReview.');
  });

  it('approves a node renewing its own certificate (selfnodeclient)', async () => {
    const { pem } = await makeCsr('CN=system:node:n2, O=system:nodes');
    const res = await ts.request('POST', CSRS, csrBody('self-n2', pem, names.signers.apiServerClientNodeAgent, NODE_CLIENT_USAGES), as('system:node:n2', 'system:nodes'));
    assert.equal(res.status, 201, res.body);
    await waitFor(async () => (await conditions('self-n2')).length > 0, 'approval');
    assert.equal((await conditions('self-n2'))[0]!.message, 'Auto approving self kubelet client certificate after SubjectAccessReview.');
  });

  it('leaves pending: a requester without the permission, a node asking for another node, other signers, other shapes', async () => {
    const cases: Array<[string, string, string, string[], string, string]> = [
      ['deny-perm', 'CN=system:node:n3, O=system:nodes', names.signers.apiServerClientNodeAgent, NODE_CLIENT_USAGES, 'system:bootstrap:zzzzzz', 'system:bootstrappers:other'],
      ['deny-other-node', 'CN=system:node:n9, O=system:nodes', names.signers.apiServerClientNodeAgent, NODE_CLIENT_USAGES, 'system:node:n4', 'system:nodes'],
      ['deny-org', 'CN=system:node:n5, O=system:masters', names.signers.apiServerClientNodeAgent, NODE_CLIENT_USAGES, 'system:bootstrap:abcdef', 'system:bootstrappers:test'],
      ['deny-cn', 'CN=n6, O=system:nodes', names.signers.apiServerClientNodeAgent, NODE_CLIENT_USAGES, 'system:bootstrap:abcdef', 'system:bootstrappers:test'],
      ['deny-usages', 'CN=system:node:n7, O=system:nodes', names.signers.apiServerClientNodeAgent, ['digital signature', 'key encipherment', 'client auth', 'server auth'], 'system:bootstrap:abcdef', 'system:bootstrappers:test'],
      ['deny-signer', 'CN=system:node:n8, O=system:nodes', names.signers.nodeAgentServing, ['digital signature', 'key encipherment', 'server auth'], 'system:node:n8', 'system:nodes'],
    ];
    for (const [name, subject, signer, usages, user, group] of cases) {
      const { pem } = await makeCsr(subject, name === 'deny-signer' ? ['n8.example'] : []);
      const res = await ts.request('POST', CSRS, csrBody(name, pem, signer, usages), as(user, group));
      assert.equal(res.status, 201, `${name}: ${res.body}`);
    }
    const { pem } = await makeCsr('CN=system:node:n10, O=system:nodes', ['n10.example']);
    assert.equal((await ts.request('POST', CSRS, csrBody('deny-san', pem, names.signers.apiServerClientNodeAgent, NODE_CLIENT_USAGES), as('system:bootstrap:abcdef', 'system:bootstrappers:test'))).status, 201);
    // A request made after them all is approved: the approver has looked at the earlier ones by then.
    const probe = await makeCsr('CN=system:node:probe, O=system:nodes');
    await ts.request('POST', CSRS, csrBody('probe', probe.pem, names.signers.apiServerClientNodeAgent, NODE_CLIENT_USAGES), as('system:bootstrap:abcdef', 'system:bootstrappers:test'));
    await waitFor(async () => (await conditions('probe')).length > 0, 'the probe approved');
    await sleep(300);
    for (const name of [...cases.map((c) => c[0]), 'deny-san']) assert.deepEqual(await conditions(name), [], name);
  });
});
