import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildAuthorizer, parseAuthorizationModes, AuthorizationConfigError } from '../../src/authz/mode.ts';
import type { Authorizer } from '../../src/authz/types.ts';
import { attrs } from './support.ts';

describe('--authorization-mode', () => {
  it('defaults to AlwaysAllow', async () => {
    assert.deepEqual(parseAuthorizationModes(undefined), ['AlwaysAllow']);
    assert.equal((await buildAuthorizer(undefined).authorize(attrs())).decision, 'allow');
  });

  it('reads a comma list in order, tolerating spaces', () => {
    assert.deepEqual(parseAuthorizationModes('AlwaysDeny, AlwaysAllow'), ['AlwaysDeny', 'AlwaysAllow']);
    assert.deepEqual(parseAuthorizationModes(['Node,RBAC', 'Webhook']), ['Node', 'RBAC', 'Webhook']);
  });

  it('rejects unknown, repeated and missing modes', () => {
    assert.throws(() => parseAuthorizationModes('rbac'), { message: 'authorization-mode "rbac" is not a valid mode' });
    assert.throws(() => parseAuthorizationModes('AlwaysAllow,AlwaysAllow'), { message: 'authorization-mode "AlwaysAllow" has mode specified more than once' });
    assert.throws(() => parseAuthorizationModes(''), { message: 'at least one authorization-mode must be passed' });
    assert.throws(() => parseAuthorizationModes('AlwaysAllow,,AlwaysDeny'), /empty entry/);
    assert.throws(() => parseAuthorizationModes('Foo,Bar'), (err: unknown) => err instanceof AuthorizationConfigError && err.problems.length === 2);
  });

  it('refuses to start with a mode not built yet, even behind AlwaysAllow', () => {
    assert.throws(() => buildAuthorizer('RBAC'), { message: 'authorization mode RBAC is not supported yet' });
    assert.throws(() => buildAuthorizer('AlwaysAllow,Node'), { message: 'authorization mode Node is not supported yet' });
    assert.throws(() => buildAuthorizer('ABAC,Webhook'), { message: '[authorization mode ABAC is not supported yet, authorization mode Webhook is not supported yet]' });
  });

  it('evaluates the modes in the order given', async () => {
    assert.deepEqual(await buildAuthorizer('AlwaysDeny').authorize(attrs()), { decision: 'deny', reason: 'Everything is forbidden.' });
    // As the original: AlwaysDeny has no opinion, so a later mode may allow.
    assert.equal((await buildAuthorizer('AlwaysDeny,AlwaysAllow').authorize(attrs())).decision, 'allow');
  });

  it('builds modes supplied by their owners, but never replaces a built-in', async () => {
    const rbac: Authorizer = { name: 'RBAC', authorize: () => ({ decision: 'noOpinion', reason: 'no binding' }) };
    const fakeAllow: Authorizer = { name: 'fake', authorize: () => ({ decision: 'deny', reason: 'fake' }) };
    const a = buildAuthorizer('RBAC,AlwaysAllow', { RBAC: () => rbac, AlwaysAllow: () => fakeAllow });
    assert.deepEqual(await a.authorize(attrs()), { decision: 'allow', reason: '' });
    assert.deepEqual(await buildAuthorizer('RBAC', { RBAC: () => rbac }).authorize(attrs()), { decision: 'deny', reason: 'no binding' });
  });

  it('always admits system:masters first, whatever the modes (the original\'s privileged-group authorizer)', async () => {
    const masters = attrs({ user: { name: 'admin', groups: ['system:masters', 'system:authenticated'] } });
    assert.deepEqual(await buildAuthorizer('AlwaysDeny').authorize(masters), { decision: 'allow', reason: '' });
    const rbac: Authorizer = { name: 'RBAC', authorize: () => ({ decision: 'deny', reason: 'explicit deny' }) };
    assert.equal((await buildAuthorizer('RBAC', { RBAC: () => rbac }).authorize(masters)).decision, 'allow');
    // Everyone else still goes through the modes.
    assert.equal((await buildAuthorizer('AlwaysDeny').authorize(attrs())).decision, 'deny');
  });
});
