/**
 * Impersonation (spec 5.7): in the chain with a test authorizer that allows
 * only some impersonations, and end to end on both front ends with the real
 * AlwaysAllow and AlwaysDeny modes (and kubectl --as).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildHandlerChain, DEFAULT_CHAIN_OPTIONS } from '../../src/server/chain.ts';
import type { RequestContext, UserInfo } from '../../src/server/context.ts';
import type { Authenticator, AuthResult } from '../../src/authn/types.ts';
import type { AuthorizationAttributes, Authorizer, AuthorizationResult } from '../../src/authz/types.ts';
import { createLogger } from '../../src/server/logging.ts';
import { createMetrics } from '../../src/server/metrics.ts';
import { apiGroup } from '../../src/naming/index.ts';
import { exchange } from './fake-http.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

const AUTHN_GROUP = apiGroup('authentication');

const USERS: Record<string, UserInfo> = {
  alice: { name: 'alice', groups: ['system:authenticated'] },
  bob: { name: 'bob', groups: ['system:authenticated'] },
};

const authenticator: Authenticator = {
  name: 'fake',
  authenticate(req): AuthResult {
    const token = req.header('authorization')?.replace(/^Bearer /, '');
    if (token === undefined) return { kind: 'none' };
    const user = USERS[token];
    return user === undefined ? { kind: 'invalid', message: 'invalid bearer token' } : { kind: 'user', user, method: 'fake' };
  },
};

/** alice may impersonate exactly these; jane may only get/list; bob nothing. */
const ALLOWED_IMPERSONATIONS = new Set([
  'users//jane',
  'users//system:anonymous',
  'groups//devs',
  'groups//system:unauthenticated',
  `uids/${AUTHN_GROUP}/42`,
  `userextras/scopes/${AUTHN_GROUP}/view`,
  `userextras/example.com/team/${AUTHN_GROUP}/blue`,
  'serviceaccounts/ns1//builder',
]);

function createChain() {
  const asked: AuthorizationAttributes[] = [];
  const authorizer: Authorizer = {
    name: 'test',
    authorize(a): AuthorizationResult {
      asked.push(a);
      if (a.verb === 'impersonate') {
        const key = a.resource === 'serviceaccounts' ? `serviceaccounts/${a.namespace}//${a.name}` : `${a.subresource === '' ? a.resource : `${a.resource}/${a.subresource}`}/${a.apiGroup}/${a.name}`;
        return a.user.name === 'alice' && ALLOWED_IMPERSONATIONS.has(key) ? { decision: 'allow', reason: '' } : { decision: 'noOpinion', reason: '' };
      }
      if (a.user.name === 'alice') return { decision: 'allow', reason: '' };
      if (a.verb === 'get' || a.verb === 'list') return { decision: 'allow', reason: '' };
      return { decision: 'noOpinion', reason: 'only reads' };
    },
  };
  const logs: Record<string, unknown>[] = [];
  const logger = createLogger({ level: 'info', destination: { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) } });
  const seen: RequestContext[] = [];
  const handle = buildHandlerChain({
    authenticator,
    authorizer,
    handler: async (ctx) => {
      seen.push(ctx);
      ctx.res.writeHead(200, { 'content-type': 'application/json' });
      ctx.res.end(JSON.stringify({ user: ctx.user, headers: ctx.req.headerNames() }));
    },
    logger,
    metrics: createMetrics(),
    options: DEFAULT_CHAIN_OPTIONS,
  });
  const send = async (method: string, url: string, token: string | undefined, headers: Record<string, string | string[]> = {}) => {
    const ex = exchange(method, url, { headers: { ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}), ...headers } });
    await handle(ex.req, ex.res);
    return ex.res;
  };
  return { send, asked, logs, seen };
}

describe('impersonation in the chain', () => {
  it('runs as the impersonated user, with system:authenticated, and hides the headers from the handler', async () => {
    const c = createChain();
    const res = await c.send('GET', '/api/v1/namespaces/default/pods', 'alice', { 'Impersonate-User': 'jane' });
    assert.equal(res.status, 200, res.text);
    const ctx = c.seen[0]!;
    assert.deepEqual(ctx.user, { name: 'jane', groups: ['system:authenticated'] });
    assert.equal(ctx.impersonator?.name, 'alice');
    assert.ok(!ctx.req.headerNames().some((h) => h.startsWith('impersonate-')), 'Impersonate-* headers removed');
    assert.equal(ctx.req.header('impersonate-user'), undefined);
    // The request itself was then authorized as jane.
    const last = c.asked.at(-1)!;
    assert.equal(last.user.name, 'jane');
    assert.equal(last.verb, 'list');
    // The log line names both identities.
    const line = c.logs.find((l) => l['msg'] === 'HTTP')!;
    assert.equal(line['user'], 'alice');
    assert.equal(line['impersonatedUser'], 'jane');
  });

  it('impersonates groups, uid and (percent-decoded, lower-cased) extras, each authorized as the original asks', async () => {
    const c = createChain();
    const res = await c.send('GET', '/api/v1/pods', 'alice', {
      'Impersonate-User': 'jane',
      'Impersonate-Group': ['devs', 'system:unauthenticated'],
      'Impersonate-Uid': '42',
      'Impersonate-Extra-Scopes': 'view',
      'Impersonate-Extra-Example.com%2FTeam': 'blue',
    });
    assert.equal(res.status, 200, res.text);
    const user = c.seen[0]!.user!;
    assert.equal(user.name, 'jane');
    assert.equal(user.uid, '42');
    // system:unauthenticated given explicitly: system:authenticated is not added.
    assert.deepEqual(user.groups, ['devs', 'system:unauthenticated']);
    assert.deepEqual(user.extra, { scopes: ['view'], 'example.com/team': ['blue'] });
    const imp = c.asked.filter((a) => a.verb === 'impersonate');
    assert.deepEqual(
      imp.map((a) => [a.resource, a.subresource, a.apiGroup, a.namespace, a.name]),
      [
        ['users', '', '', '', 'jane'],
        ['groups', '', '', '', 'devs'],
        ['groups', '', '', '', 'system:unauthenticated'],
        ['userextras', 'scopes', AUTHN_GROUP, '', 'view'],
        ['userextras', 'example.com/team', AUTHN_GROUP, '', 'blue'],
        ['uids', '', AUTHN_GROUP, '', '42'],
      ],
    );
    assert.ok(imp.every((a) => a.user.name === 'alice' && a.isResourceRequest));
  });

  it('a service account user is checked as serviceaccounts in its namespace and gets its groups', async () => {
    const c = createChain();
    const res = await c.send('GET', '/api/v1/pods', 'alice', { 'Impersonate-User': 'system:serviceaccount:ns1:builder' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(c.seen[0]!.user, {
      name: 'system:serviceaccount:ns1:builder',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:ns1', 'system:authenticated'],
    });
    const a = c.asked.find((x) => x.verb === 'impersonate')!;
    assert.deepEqual([a.resource, a.namespace, a.name, a.apiGroup], ['serviceaccounts', 'ns1', 'builder', '']);
  });

  it('with explicit groups a service account gets only those (and system:authenticated)', async () => {
    const c = createChain();
    const res = await c.send('GET', '/api/v1/pods', 'alice', { 'Impersonate-User': 'system:serviceaccount:ns1:builder', 'Impersonate-Group': 'devs' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(c.seen[0]!.user!.groups, ['devs', 'system:authenticated']);
  });

  it('system:anonymous is impersonated into system:unauthenticated, never system:authenticated', async () => {
    const c = createChain();
    const res = await c.send('GET', '/api/v1/pods', 'alice', { 'Impersonate-User': 'system:anonymous' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(c.seen[0]!.user, { name: 'system:anonymous', groups: ['system:unauthenticated'] });
  });

  it('refuses with the original 403 at the first item the caller may not impersonate; the handler never runs', async () => {
    const c = createChain();
    const user = await c.send('GET', '/api/v1/pods', 'bob', { 'Impersonate-User': 'jane' });
    assert.equal(user.status, 403);
    assert.equal(user.json()['message'], 'users "jane" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope');
    const group = await c.send('GET', '/api/v1/pods', 'alice', { 'Impersonate-User': 'jane', 'Impersonate-Group': ['devs', 'system:masters'] });
    assert.equal(group.status, 403);
    assert.equal(group.json()['message'], 'groups "system:masters" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope');
    const extra = await c.send('GET', '/api/v1/pods', 'alice', { 'Impersonate-User': 'jane', 'Impersonate-Extra-Scopes': 'admin' });
    assert.equal(extra.status, 403);
    assert.equal(
      extra.json()['message'],
      `userextras.${AUTHN_GROUP} "admin" is forbidden: User "alice" cannot impersonate resource "userextras/scopes" in API group "${AUTHN_GROUP}" at the cluster scope`,
    );
    const uid = await c.send('GET', '/api/v1/pods', 'alice', { 'Impersonate-User': 'jane', 'Impersonate-Uid': '7' });
    assert.equal(uid.status, 403);
    assert.match(String(uid.json()['message']), /cannot impersonate resource "uids"/);
    const sa = await c.send('GET', '/api/v1/pods', 'alice', { 'Impersonate-User': 'system:serviceaccount:kube-x:builder' });
    assert.equal(sa.status, 403);
    assert.match(String(sa.json()['message']), /^serviceaccounts "builder" is forbidden: User "alice" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "kube-x"$/);
    assert.equal(c.seen.length, 0);
  });

  it('authorizes the request itself as the impersonated user', async () => {
    const c = createChain();
    const res = await c.send('POST', '/api/v1/namespaces/default/configmaps', 'alice', { 'Impersonate-User': 'jane' });
    assert.equal(res.status, 403);
    assert.match(String(res.json()['message']), /User "jane" cannot create resource "configmaps"/);
    assert.equal(c.seen.length, 0);
  });

  it('refuses groups, uid or extras without a user as a bad request', async () => {
    const c = createChain();
    const cases: Array<Record<string, string>> = [
      { 'impersonate-group': 'system:masters' },
      { 'impersonate-uid': '1' },
      { 'Impersonate-Extra-Scopes': 'view' },
      { 'impersonate-user': '', 'impersonate-group': 'g' },
    ];
    for (const headers of cases) {
      const res = await c.send('GET', '/api/v1/pods', 'alice', headers);
      assert.equal(res.status, 400, JSON.stringify(headers));
      assert.equal(res.json()['reason'], 'BadRequest');
    }
    assert.equal(c.seen.length, 0);
  });

  it('runs after authentication: an unauthenticated request is still 401', async () => {
    const c = createChain();
    assert.equal((await c.send('GET', '/api/v1/pods', 'nobody', { 'impersonate-user': 'jane' })).status, 401);
  });

  it('leaves requests without impersonation alone (an empty user or uid counts as none, as in the original)', async () => {
    const c = createChain();
    assert.equal((await c.send('GET', '/api/v1/pods', 'alice', { 'x-impersonate-user': 'jane' })).status, 200);
    assert.equal((await c.send('GET', '/api/v1/pods', 'alice', { 'impersonate-user': '', 'impersonate-uid': '' })).status, 200);
    assert.ok(c.seen.every((ctx) => ctx.user?.name === 'alice' && ctx.impersonator === undefined));
  });
});

describe('impersonation end to end', () => {
  let allow: TestServer;
  let deny: TestServer;
  before(async () => {
    [allow, deny] = await Promise.all([startTestServer(), startTestServer(['--authorization-mode=AlwaysDeny'])]);
  });
  after(async () => {
    await Promise.all([allow?.stop(), deny?.stop()]);
  });

  const targets = (ts: TestServer) => [{ as: 'admin' as const }, { as: 'token' as const }, ...(ts.uwsPort !== null ? [{ as: 'token' as const, uws: true }] : [])];

  it('AlwaysAllow: the write is made as the impersonated user (managed fields name no one else), on every front end', async () => {
    for (const [i, t] of targets(allow).entries()) {
      const name = `imp-${i}`;
      const res = await allow.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name } }, { ...t, headers: { 'Impersonate-User': 'jane', 'Impersonate-Group': 'devs' } });
      assert.equal(res.status, 201, `${JSON.stringify(t)} ${res.body}`);
    }
    const bad = await allow.request('GET', '/api/v1/namespaces', undefined, { as: 'token', headers: { 'Impersonate-Group': 'devs' } });
    assert.equal(bad.status, 400);
  });

  it('AlwaysDeny: system:masters may impersonate, and the request is then denied as the impersonated user', async () => {
    for (const t of targets(deny)) {
      const res = await deny.request('GET', '/api/v1/namespaces/default/configmaps', undefined, { ...t, headers: { 'Impersonate-User': 'jane' } });
      assert.equal(res.status, 403, JSON.stringify(t));
      assert.equal(
        res.json()['message'],
        'configmaps is forbidden: User "jane" cannot list resource "configmaps" in API group "" in the namespace "default": Everything is forbidden.',
      );
    }
    // Impersonating system:masters itself is allowed to masters, and then everything is.
    const masters = await deny.request('GET', '/api/v1/namespaces/default/configmaps', undefined, { as: 'token', headers: { 'Impersonate-User': 'jane', 'Impersonate-Group': 'system:masters' } });
    assert.equal(masters.status, 200, masters.body);
  });

  it('kubectl --as and --as-group work', async () => {
    const ok = await allow.kubectl(['--as=jane', '--as-group=devs', 'get', 'configmaps', '-n', 'default', '-o', 'name']);
    assert.equal(ok.code, 0, ok.stderr);
    const denied = await deny.kubectl(['--as=jane', 'get', 'configmaps', '-n', 'default']);
    // As jane even discovery is forbidden under AlwaysDeny (as in the original): kubectl reports Forbidden.
    assert.notEqual(denied.code, 0);
    assert.match(denied.stderr, /Forbidden/);
  });
});
