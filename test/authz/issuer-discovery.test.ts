/**
 * Service-account issuer discovery (`/.well-known/openid-configuration`,
 * `/openid/v1/jwks`) under RBAC, as the original serves it: to whom the
 * `system:service-account-issuer-discovery` ClusterRole is bound (by default
 * `system:serviceaccounts`). Anonymous (on by default under RBAC) gets 403
 * until an operator binds the role to `system:unauthenticated`; with
 * `--anonymous-auth=false` a request without a credential is 401 even then.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { apiGroup } from '../../src/naming/index.ts';

const RBAC = apiGroup('rbac.authorization');
const PATHS = ['/.well-known/openid-configuration', '/openid/v1/jwks'];
const NOBODY = 'nobody-token-0123456789';
const BINDING = {
  apiVersion: `${RBAC}/v1`, kind: 'ClusterRoleBinding', metadata: { name: 'oidc-reviewer' },
  roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'system:service-account-issuer-discovery' },
  subjects: [{ kind: 'Group', apiGroup: RBAC, name: 'system:unauthenticated' }],
};

async function start(extra: string[]): Promise<{ srv: TestServer; dir: string }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'orch-discovery-'));
  const tokens = path.join(dir, 'tokens.csv');
  await fs.writeFile(tokens, `${NOBODY},nobody,uid-nobody\n`, { mode: 0o600 });
  const srv = await startTestServer(['--authorization-mode=RBAC', `--token-auth-file=${tokens}`, '--service-account-issuer=https://issuer.example', ...extra]);
  return { srv, dir };
}

async function serviceAccountToken(srv: TestServer): Promise<string> {
  const sa = await srv.request('POST', '/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'verifier' } });
  assert.equal(sa.status, 201, sa.body);
  const tr = await srv.request('POST', '/api/v1/namespaces/default/serviceaccounts/verifier/token', { apiVersion: `${apiGroup('authentication')}/v1`, kind: 'TokenRequest', spec: {} });
  assert.equal(tr.status, 201, tr.body);
  return tr.json<{ status: { token: string } }>().status.token;
}

async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) assert.fail(`timed out waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('issuer discovery under RBAC with anonymous auth on (the default)', () => {
  let srv: TestServer;
  let dir: string;
  before(async () => ({ srv, dir } = await start([])));
  after(async () => {
    await srv?.stop();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('serves service accounts; anonymous and other users get 403 with the original\'s message', async () => {
    const token = await serviceAccountToken(srv);
    for (const p of PATHS) {
      const sa = await srv.request('GET', p, undefined, { as: { token } });
      assert.equal(sa.status, 200, `${p}: ${sa.body}`);
      const anon = await srv.request('GET', p, undefined, { as: 'none' });
      assert.equal(anon.status, 403, `${p}: ${anon.body}`);
      assert.equal(anon.json<{ message: string }>().message, `forbidden: User "system:anonymous" cannot get path "${p}"`);
      const user = await srv.request('GET', p, undefined, { as: { token: NOBODY } });
      assert.equal(user.status, 403, `${p}: ${user.body}`);
      // A bad credential is never taken for anonymous.
      assert.equal((await srv.request('GET', p, undefined, { as: { token: 'not-a-token-0123456789' } })).status, 401);
    }
  });

  it('serves anonymous once the operator binds the role to system:unauthenticated', async () => {
    const r = await srv.request('POST', `/apis/${RBAC}/v1/clusterrolebindings`, BINDING);
    assert.equal(r.status, 201, r.body);
    await eventually('anonymous may read the configuration', async () => (await srv.request('GET', PATHS[0]!, undefined, { as: 'none' })).status === 200);
    const jwks = await srv.request('GET', PATHS[1]!, undefined, { as: 'none' });
    assert.equal(jwks.status, 200, jwks.body);
    assert.equal(jwks.headers['content-type'], 'application/jwk-set+json');
    // The binding is for these paths only.
    assert.equal((await srv.request('GET', '/api', undefined, { as: 'none' })).status, 403);
  });
});

describe('issuer discovery under RBAC with --anonymous-auth=false', () => {
  let srv: TestServer;
  let dir: string;
  before(async () => ({ srv, dir } = await start(['--anonymous-auth=false'])));
  after(async () => {
    await srv?.stop();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('answers 401 without a credential, even with the role bound to system:unauthenticated', async () => {
    const r = await srv.request('POST', `/apis/${RBAC}/v1/clusterrolebindings`, BINDING);
    assert.equal(r.status, 201, r.body);
    const token = await serviceAccountToken(srv);
    // 401 comes from authentication, before any authorizer looks at the binding.
    await eventually('a service account may read the configuration', async () => (await srv.request('GET', PATHS[0]!, undefined, { as: { token } })).status === 200);
    for (const p of PATHS) {
      const anon = await srv.request('GET', p, undefined, { as: 'none' });
      assert.equal(anon.status, 401, `${p}: ${anon.body}`);
      assert.equal(anon.json<{ reason: string }>().reason, 'Unauthorized');
    }
  });
});
