import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AlwaysAllowAuthorizer, AlwaysDenyAuthorizer } from '../../src/authz/always.ts';
import { AuthorizationError, UnionAuthorizer } from '../../src/authz/union.ts';
import type { AuthorizationResult, Authorizer, Decision } from '../../src/authz/types.ts';
import { attrs } from './support.ts';

function fixed(name: string, decision: Decision, reason: string, calls: string[]): Authorizer {
  return {
    name,
    authorize: async () => {
      calls.push(name);
      return { decision, reason };
    },
  };
}

describe('AlwaysAllow and AlwaysDeny', () => {
  it('AlwaysAllow allows anything', () => {
    assert.deepEqual(new AlwaysAllowAuthorizer().authorize(), { decision: 'allow', reason: '' });
  });

  it('AlwaysDeny has no opinion with the original reason, so alone it denies', async () => {
    assert.deepEqual(new AlwaysDenyAuthorizer().authorize(), { decision: 'noOpinion', reason: 'Everything is forbidden.' });
    assert.deepEqual(await new UnionAuthorizer([new AlwaysDenyAuthorizer()]).authorize(attrs()), {
      decision: 'deny',
      reason: 'Everything is forbidden.',
    });
  });
});

describe('UnionAuthorizer', () => {
  it('stops at the first allow', async () => {
    const calls: string[] = [];
    const u = new UnionAuthorizer([fixed('a', 'noOpinion', '', calls), fixed('b', 'allow', 'rbac said so', calls), fixed('c', 'deny', 'x', calls)]);
    assert.deepEqual(await u.authorize(attrs()), { decision: 'allow', reason: 'rbac said so' });
    assert.deepEqual(calls, ['a', 'b']);
  });

  it('stops at the first deny, even if a later module would allow', async () => {
    const calls: string[] = [];
    const u = new UnionAuthorizer([fixed('a', 'deny', 'node rule', calls), fixed('b', 'allow', '', calls)]);
    assert.deepEqual(await u.authorize(attrs()), { decision: 'deny', reason: 'node rule' });
    assert.deepEqual(calls, ['a']);
  });

  it('denies when no module has an opinion, joining their reasons', async () => {
    const calls: string[] = [];
    const u = new UnionAuthorizer([fixed('a', 'noOpinion', 'no role', calls), fixed('b', 'noOpinion', '', calls), fixed('c', 'noOpinion', 'no policy', calls)]);
    assert.deepEqual(await u.authorize(attrs()), { decision: 'deny', reason: 'no role\nno policy' });
    assert.deepEqual(calls, ['a', 'b', 'c']);
    assert.deepEqual(await new UnionAuthorizer([]).authorize(attrs()), { decision: 'deny', reason: '' });
  });

  it('lets a later module decide after one fails', async () => {
    const broken: Authorizer = { name: 'webhook', authorize: () => Promise.reject(new Error('connection refused')) };
    const calls: string[] = [];
    const u = new UnionAuthorizer([broken, fixed('rbac', 'allow', '', calls)]);
    assert.deepEqual(await u.authorize(attrs()), { decision: 'allow', reason: '' });
  });

  it('raises a module failure when nobody else decides, rather than hiding it as a plain deny', async () => {
    const broken: Authorizer = {
      name: 'webhook',
      authorize: (): AuthorizationResult => {
        throw new Error('connection refused');
      },
    };
    const u = new UnionAuthorizer([broken, fixed('rbac', 'noOpinion', '', [])]);
    await assert.rejects(async () => u.authorize(attrs()), (err: unknown) => err instanceof AuthorizationError && err.message === 'connection refused');
  });

  it('names itself after its modules', () => {
    assert.equal(new UnionAuthorizer([new AlwaysDenyAuthorizer(), new AlwaysAllowAuthorizer()]).name, 'AlwaysDeny,AlwaysAllow');
  });
});
