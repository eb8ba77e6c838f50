import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRequestAuthenticator, UnionAuthenticator } from '../../src/authn/union.ts';
import { addAuthenticatedGroup } from '../../src/authn/group-adder.ts';
import { AnonymousAuthenticator, effectiveAnonymousAuth } from '../../src/authn/anonymous.ts';
import { StaticTokenAuthenticator } from '../../src/authn/token-file.ts';
import type { AuthResult, Authenticator } from '../../src/authn/types.ts';
import { fakeRequest } from './support/request.ts';

const TOKEN = 'tok-0123456789';
const tokens = new StaticTokenAuthenticator([{ token: TOKEN, user: { name: 'tina', groups: ['dev'] } }]);

/** Stands in for the x509 authenticator: answers from whether a chain is present. */
function fakeX509(result: AuthResult): Authenticator & { calls: number } {
  const a = {
    name: 'x509',
    calls: 0,
    authenticate(req: Parameters<Authenticator['authenticate']>[0]): AuthResult {
      a.calls++;
      return req.peerCertificates === undefined ? { kind: 'none' } : result;
    },
  };
  return a;
}

const CERT = [new Uint8Array([1])];
const certUser: AuthResult = { kind: 'user', user: { name: 'cert-user', groups: ['ops'] }, method: 'x509' };
const certBad: AuthResult = { kind: 'invalid', message: 'x509: certificate signed by unknown authority' };

describe('request authenticator composition', () => {
  it('prefers the client certificate over a bearer token', async () => {
    const a = createRequestAuthenticator({ x509: fakeX509(certUser), tokens: [tokens], anonymous: true });
    const r = await a.authenticate(fakeRequest({ peerCertificates: CERT, headers: { authorization: `Bearer ${TOKEN}` } }));
    assert.deepEqual(r, { kind: 'user', user: { name: 'cert-user', groups: ['ops', 'system:authenticated'] }, method: 'x509' });
  });

  it('uses a good token when the certificate is rejected', async () => {
    const a = createRequestAuthenticator({ x509: fakeX509(certBad), tokens: [tokens], anonymous: false });
    const r = await a.authenticate(fakeRequest({ peerCertificates: CERT, headers: { authorization: `Bearer ${TOKEN}` } }));
    assert.deepEqual(r, { kind: 'user', user: { name: 'tina', groups: ['dev', 'system:authenticated'] }, method: 'token-file' });
  });

  it('answers 401 (invalid) for an unknown bearer token even with anonymous access on', async () => {
    const a = createRequestAuthenticator({ x509: fakeX509(certUser), tokens: [tokens], anonymous: true });
    assert.deepEqual(await a.authenticate(fakeRequest({ headers: { authorization: 'Bearer wrong' } })), {
      kind: 'invalid',
      message: 'invalid bearer token',
    });
    assert.equal((await a.authenticate(fakeRequest({ headers: { authorization: 'Bearer' } }))).kind, 'invalid');
  });

  it('rejects a bearer token when no token authenticator is configured, instead of going anonymous', async () => {
    const a = createRequestAuthenticator({ anonymous: true });
    assert.equal((await a.authenticate(fakeRequest({ headers: { authorization: `Bearer ${TOKEN}` } }))).kind, 'invalid');
  });

  it('answers 401 for a rejected certificate with no other credential, even with anonymous access on', async () => {
    const a = createRequestAuthenticator({ x509: fakeX509(certBad), tokens: [tokens], anonymous: true });
    assert.deepEqual(await a.authenticate(fakeRequest({ peerCertificates: CERT })), certBad);
  });

  it('reports every rejection when both credentials fail', async () => {
    const a = createRequestAuthenticator({ x509: fakeX509(certBad), tokens: [tokens], anonymous: true });
    const r = await a.authenticate(fakeRequest({ peerCertificates: CERT, headers: { authorization: 'Bearer wrong' } }));
    assert.deepEqual(r, { kind: 'invalid', message: '[x509: certificate signed by unknown authority, invalid bearer token]' });
  });

  it('makes a credential-less request anonymous only when enabled', async () => {
    const on = createRequestAuthenticator({ x509: fakeX509(certUser), tokens: [tokens], anonymous: true });
    assert.deepEqual(await on.authenticate(fakeRequest()), {
      kind: 'user',
      user: { name: 'system:anonymous', groups: ['system:unauthenticated'] },
      method: 'anonymous',
    });
    const off = createRequestAuthenticator({ x509: fakeX509(certUser), tokens: [tokens], anonymous: false });
    assert.deepEqual(await off.authenticate(fakeRequest()), { kind: 'none' });
  });

  it('does not consult later methods once one recognises the user', async () => {
    const first = fakeX509(certUser);
    const second = fakeX509(certUser);
    const u = new UnionAuthenticator([first, second]);
    await u.authenticate(fakeRequest({ peerCertificates: CERT }));
    assert.equal(first.calls, 1);
    assert.equal(second.calls, 0);
  });
});

describe('authenticated group adder', () => {
  const user = (name: string, groups: string[]): AuthResult => ({ kind: 'user', user: { name, uid: 'u', groups, extra: { k: ['v'] } }, method: 'm' });

  it('appends system:authenticated, keeping everything else', () => {
    assert.deepEqual(addAuthenticatedGroup(user('bob', ['dev'])), {
      kind: 'user',
      user: { name: 'bob', uid: 'u', groups: ['dev', 'system:authenticated'], extra: { k: ['v'] } },
      method: 'm',
    });
  });

  it('does not duplicate it, nor add it next to system:unauthenticated or for system:anonymous', () => {
    const already = user('bob', ['system:authenticated', 'dev']);
    assert.equal(addAuthenticatedGroup(already), already);
    const unauth = user('proxy-user', ['system:unauthenticated']);
    assert.equal(addAuthenticatedGroup(unauth), unauth);
    const anon = user('system:anonymous', []);
    assert.equal(addAuthenticatedGroup(anon), anon);
  });

  it('never mutates the input (results may be shared through caches)', () => {
    const shared = user('bob', ['dev']);
    addAuthenticatedGroup(shared);
    addAuthenticatedGroup(shared);
    assert.deepEqual(shared.kind === 'user' && shared.user.groups, ['dev']);
  });

  it('passes rejections and no-opinions through', () => {
    assert.deepEqual(addAuthenticatedGroup({ kind: 'none' }), { kind: 'none' });
    assert.deepEqual(addAuthenticatedGroup(certBad), certBad);
  });
});

describe('anonymous', () => {
  it('is system:anonymous in system:unauthenticated', () => {
    assert.deepEqual(new AnonymousAuthenticator().authenticate(), {
      kind: 'user',
      user: { name: 'system:anonymous', groups: ['system:unauthenticated'] },
      method: 'anonymous',
    });
  });

  it('is switched off next to the AlwaysAllow authorizer, with a warning', () => {
    const r = effectiveAnonymousAuth(true, ['RBAC', 'AlwaysAllow']);
    assert.equal(r.enabled, false);
    assert.match(r.warning ?? '', /AnonymousAuth is not allowed with the AlwaysAllow authorizer/);
    assert.deepEqual(effectiveAnonymousAuth(true, ['AlwaysDeny']), { enabled: true });
    assert.deepEqual(effectiveAnonymousAuth(false, ['AlwaysDeny']), { enabled: false });
  });
});
