/**
 * Impersonation headers are refused (not implemented yet) instead of being
 * ignored: in the chain, and end to end on both front ends. The server runs
 * with --authorization-mode=AlwaysDeny, so it also shows system:masters
 * admitted whatever the mode, as in the original.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness } from './harness.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

describe('impersonation in the chain', () => {
  it('answers 403 naming the impersonated user, and the handler never runs', async () => {
    const h = createHarness();
    const res = await h.send('GET', '/api/v1/namespaces/default/pods', { token: 'alice-token', headers: { 'impersonate-user': 'jane' } });
    assert.equal(res.status, 403);
    const body = res.json();
    assert.equal(body['reason'], 'Forbidden');
    assert.equal(
      body['message'],
      'users "jane" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope: impersonation is not supported by this server',
    );
    assert.deepEqual(body['details'], { name: 'jane', kind: 'users' });
    assert.equal(h.seen.length, 0);
  });

  it('names a service account as the original does', async () => {
    const h = createHarness();
    const res = await h.send('GET', '/api/v1/pods', { token: 'admin-token', headers: { 'Impersonate-User': 'system:serviceaccount:kube-x:builder', 'Impersonate-Group': ['a', 'b'] } });
    assert.equal(res.status, 403);
    assert.match(String(res.json()['message']), /^serviceaccounts "builder" is forbidden: User "admin" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "kube-x"/);
  });

  it('refuses groups, uid or extras without a user as a bad request', async () => {
    const h = createHarness();
    const cases: Array<Record<string, string>> = [{ 'impersonate-group': 'system:masters' }, { 'impersonate-uid': '1' }, { 'Impersonate-Extra-Scopes': 'view' }];
    for (const headers of cases) {
      const res = await h.send('GET', '/api/v1/pods', { token: 'alice-token', headers });
      assert.equal(res.status, 400, JSON.stringify(headers));
      assert.equal(res.json()['reason'], 'BadRequest');
    }
    assert.equal(h.seen.length, 0);
  });

  it('runs after authentication: an unauthenticated request is still 401', async () => {
    const h = createHarness();
    const res = await h.send('GET', '/api/v1/pods', { headers: { 'impersonate-user': 'jane' } });
    assert.equal(res.status, 401);
  });

  it('leaves requests without impersonation headers alone (an empty user or uid counts as none, as in the original)', async () => {
    const h = createHarness();
    assert.equal((await h.send('GET', '/api/v1/pods', { token: 'alice-token', headers: { 'x-impersonate-user': 'jane' } })).status, 200);
    assert.equal((await h.send('GET', '/api/v1/pods', { token: 'alice-token', headers: { 'impersonate-user': '', 'impersonate-uid': '' } })).status, 200);
    const emptyUserWithGroup = await h.send('GET', '/api/v1/pods', { token: 'alice-token', headers: { 'impersonate-user': '', 'impersonate-group': 'g' } });
    assert.equal(emptyUserWithGroup.status, 400);
  });
});

describe('impersonation end to end, AlwaysDeny', () => {
  let ts: TestServer;
  before(async () => {
    ts = await startTestServer(['--authorization-mode=AlwaysDeny']);
  });
  after(async () => {
    await ts?.stop();
  });

  it('admits system:masters under AlwaysDeny (client certificate and token)', async () => {
    assert.equal((await ts.request('GET', '/api/v1/namespaces/default/configmaps')).status, 200);
    assert.equal((await ts.request('GET', '/api/v1/namespaces/default/configmaps', undefined, { as: 'token' })).status, 200);
  });

  it('refuses impersonation on the node front end and on uWS', async () => {
    const targets = [{ as: 'admin' as const }, { as: 'token' as const }, ...(ts.uwsPort !== null ? [{ as: 'token' as const, uws: true }] : [])];
    for (const t of targets) {
      const res = await ts.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'imp' } }, { ...t, headers: { 'Impersonate-User': 'jane' } });
      assert.equal(res.status, 403, JSON.stringify(t));
      assert.match(String(res.json()['message']), /cannot impersonate resource "users".*impersonation is not supported by this server$/);
    }
    // Nothing was created as the caller.
    assert.equal((await ts.request('GET', '/api/v1/namespaces/default/configmaps/imp')).status, 404);
  });
});
