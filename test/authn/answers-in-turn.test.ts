/**
 * The authentication and authorization unions answer in the same turn when
 * every member does (a token file, RBAC: no promise, no microtask), and go on
 * asynchronously from the first member that must wait, with the same order,
 * failures and errors as before.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BearerTokenAuthenticator } from '../../src/authn/bearer.ts';
import { createRequestAuthenticator, UnionAuthenticator } from '../../src/authn/union.ts';
import type { TokenAuthenticator } from '../../src/authn/token.ts';
import type { AuthResult, Authenticator } from '../../src/authn/types.ts';
import { GROUP_AUTHENTICATED } from '../../src/authn/types.ts';
import { AuthorizationError, UnionAuthorizer } from '../../src/authz/union.ts';
import { firstDecision, type Decider } from '../../src/api/maybe-promise.ts';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from '../../src/authz/types.ts';
import type { ApiRequest } from '../../src/server/http.ts';
import { exchange } from '../server/fake-http.ts';

const request = (authorization?: string): ApiRequest =>
  exchange('GET', '/api/v1/pods', { headers: authorization === undefined ? {} : { authorization } }).req;

const user = (name: string): AuthResult => ({ kind: 'user', user: { name, groups: [] }, method: 'token' });

/** A token authenticator that knows one token, answering at once or after a turn. */
function tokens(name: string, known: string, mode: 'sync' | 'async' | 'throws' | 'rejects'): TokenAuthenticator {
  const answer = (token: string): AuthResult => (token === known ? user(name) : { kind: 'invalid', message: `${name}: unknown token` });
  return {
    name,
    inMemory: mode === 'sync',
    authenticateToken(token) {
      if (mode === 'throws') throw new Error('backend down');
      if (mode === 'rejects') return Promise.reject(new Error('backend down'));
      return mode === 'sync' ? answer(token) : Promise.resolve(answer(token));
    },
  };
}

describe('bearer tokens', () => {
  it('answers in the same turn from authenticators that answer at once', () => {
    const bearer = new BearerTokenAuthenticator([tokens('file', 'a', 'sync'), tokens('sa', 'b', 'sync')]);
    const r = bearer.authenticate(request('Bearer b'));
    assert.ok(!(r instanceof Promise));
    assert.equal(r.kind === 'user' && r.user.name, 'sa');
    const bad = bearer.authenticate(request('Bearer zzzzzzzz'));
    assert.ok(!(bad instanceof Promise));
    assert.deepEqual(bad.kind, 'invalid');
  });

  it('goes on after one that waits, keeps every failure in order and never the token', async () => {
    const token = 'secret-token-123';
    const bearer = new BearerTokenAuthenticator([
      tokens('thrower', 'x', 'throws'),
      tokens('webhook', 'x', 'rejects'),
      tokens('oidc', 'x', 'async'),
      tokens('file', token, 'sync'),
    ]);
    const found = bearer.authenticate(request(`Bearer ${token}`));
    assert.ok(found instanceof Promise, 'an authenticator waited');
    const r = await found;
    assert.equal(r.kind === 'user' && r.user.name, 'file');

    const refused = await bearer.authenticate(request('Bearer another-long-token'));
    assert.equal(refused.kind, 'invalid');
    const message = refused.kind === 'invalid' ? refused.message : '';
    const order = ['thrower: backend down', 'webhook: backend down', 'oidc: unknown token', 'file: unknown token'].map((m) => message.indexOf(m));
    assert.ok(order.every((at) => at >= 0), message);
    assert.deepEqual([...order].sort((a, b) => a - b), order, 'failures in the authenticators\' order');
    assert.doesNotMatch(message, /another-long-token/);
  });
});

describe('the request authenticator', () => {
  it('adds system:authenticated in the same turn, and anonymous stays the fallback', async () => {
    const authn = createRequestAuthenticator({ tokens: [tokens('file', 'good', 'sync')], anonymous: true });
    const r = authn.authenticate(request('Bearer good'));
    assert.ok(!(r instanceof Promise));
    assert.ok(r.kind === 'user' && r.user.groups.includes(GROUP_AUTHENTICATED));
    const anon = await authn.authenticate(request());
    assert.equal(anon.kind === 'user' && anon.user.name, 'system:anonymous');
  });

  it('a union waits for a member that waits and still takes the first user', async () => {
    const later: Authenticator = { name: 'later', authenticate: async () => ({ kind: 'invalid', message: 'expired certificate' }) };
    const now: Authenticator = { name: 'now', authenticate: () => user('carol') };
    const union = new UnionAuthenticator([later, now]);
    const r = union.authenticate(request());
    assert.ok(r instanceof Promise);
    assert.equal((await r).kind === 'user', true);
  });
});

describe('the authorizer union', () => {
  const attrs = { user: { name: 'alice', groups: [] }, verb: 'get', resource: 'pods' } as unknown as AuthorizationAttributes;
  const module = (name: string, mode: 'sync' | 'async' | 'throws', decision: AuthorizationResult['decision'], reason = ''): Authorizer => ({
    name,
    authorize() {
      if (mode === 'throws') throw new Error(`${name} unreachable`);
      const r: AuthorizationResult = { decision, reason };
      return mode === 'sync' ? r : Promise.resolve(r);
    },
  });

  it('decides in the same turn when every module answers at once, and no opinion is a deny', () => {
    const allow = new UnionAuthorizer([module('node', 'sync', 'noOpinion'), module('rbac', 'sync', 'allow')]);
    const r = allow.authorize(attrs);
    assert.ok(!(r instanceof Promise));
    assert.equal(r.decision, 'allow');
    const none = new UnionAuthorizer([module('node', 'sync', 'noOpinion', 'not a node'), module('rbac', 'sync', 'noOpinion', 'no rule')]);
    const d = none.authorize(attrs);
    assert.ok(!(d instanceof Promise));
    assert.deepEqual(d, { decision: 'deny', reason: 'not a node\nno rule' });
    assert.deepEqual(none.decide(attrs), { decision: 'noOpinion', reason: 'not a node\nno rule' });
  });

  it('waits for a webhook in the middle and goes on after it; errors fail only when nobody decided', async () => {
    const after = new UnionAuthorizer([module('webhook', 'async', 'noOpinion', 'webhook: no'), module('rbac', 'sync', 'deny', 'rbac: no')]);
    const r = after.authorize(attrs);
    assert.ok(r instanceof Promise);
    assert.deepEqual(await r, { decision: 'deny', reason: 'rbac: no' });

    const rescued = new UnionAuthorizer([module('webhook', 'throws', 'allow'), module('rbac', 'async', 'allow')]);
    assert.equal((await rescued.authorize(attrs)).decision, 'allow');

    const broken = new UnionAuthorizer([module('webhook', 'throws', 'allow'), module('abac', 'sync', 'noOpinion')]);
    assert.throws(
      () => broken.authorize(attrs),
      (err: unknown) => err instanceof AuthorizationError && err.message === 'webhook unreachable',
    );
  });
});

describe('firstDecision', () => {
  interface Ask {
    readonly answers: readonly (number | Promise<number> | Error)[];
    readonly asked: number[];
    readonly failures: number[];
  }
  /** Decides on the first answer above 10; an Error answer is thrown by its member. */
  const decider: Decider<Ask, number, string> = {
    count: (c) => c.answers.length,
    ask: (c, i) => {
      c.asked.push(i);
      const a = c.answers[i]!;
      if (a instanceof Error) throw a;
      return a;
    },
    take: (_c, i, n) => (n > 10 ? `member ${i}: ${n}` : undefined),
    failed: (c, i) => c.failures.push(i),
    otherwise: (c) => `nobody (failed: ${c.failures.join(',')})`,
  };
  const ask = (answers: Ask['answers']): Ask => ({ answers, asked: [], failures: [] });

  it('stops at the first decision, in the same turn when nobody before it waited', () => {
    const c = ask([1, new Error('down'), 12, 50]);
    assert.equal(firstDecision(decider, c), 'member 2: 12');
    assert.deepEqual(c.asked, [0, 1, 2], 'member 3 is never asked');
    assert.deepEqual(c.failures, [1]);
  });

  it('goes on asynchronously after a member that waits, in order, rejections counted as failures', async () => {
    const c = ask([Promise.resolve(3), Promise.reject(new Error('down')), 4, Promise.resolve(11), 99]);
    const r = firstDecision(decider, c);
    assert.ok(r instanceof Promise);
    assert.equal(await r, 'member 3: 11');
    assert.deepEqual(c.asked, [0, 1, 2, 3]);
    assert.deepEqual(c.failures, [1]);
    assert.equal(await firstDecision(decider, ask([Promise.resolve(1), 2])), 'nobody (failed: )');
  });
});
