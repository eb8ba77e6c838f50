import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BearerTokenAuthenticator, extractBearerToken } from '../../src/authn/bearer.ts';
import { StaticTokenAuthenticator } from '../../src/authn/token-file.ts';
import { LengthPrefilteredTokenAuthenticator } from '../../src/authn/service-account/static-token-prefilter.ts';
import type { TokenAuthenticator } from '../../src/authn/token.ts';
import type { AuthResult } from '../../src/authn/types.ts';
import { fakeRequest } from './support/request.ts';

const TOKEN = 'abcdef0123456789';

function withAuth(value: string | undefined) {
  return fakeRequest(value === undefined ? {} : { headers: { Authorization: value } });
}

function fixed(name: string, result: AuthResult, calls?: string[]): TokenAuthenticator {
  return {
    name,
    authenticateToken: () => {
      calls?.push(name);
      return result;
    },
  };
}

describe('extractBearerToken', () => {
  it('ignores a missing header and other schemes', () => {
    for (const v of [undefined, '', '   ', 'Basic YWxpY2U6cHc=', 'Bearerabc', 'Negotiate x']) {
      assert.deepEqual(extractBearerToken(v), { kind: 'absent' }, String(v));
    }
  });

  it('takes the token after a case-insensitive scheme, trimming whitespace', () => {
    assert.deepEqual(extractBearerToken(`Bearer ${TOKEN}`), { kind: 'token', token: TOKEN });
    assert.deepEqual(extractBearerToken(`  bEaReR \t ${TOKEN}  `), { kind: 'token', token: TOKEN });
  });

  it('calls an empty token or one with inner whitespace malformed', () => {
    for (const v of ['Bearer', 'Bearer ', 'bearer    ', `Bearer ${TOKEN} extra`, `Bearer ${TOKEN}, Bearer other`]) {
      assert.deepEqual(extractBearerToken(v), { kind: 'malformed' }, v);
    }
  });

  it('reads "Bearer <printable ASCII>" directly and leaves anything else to the general rules', () => {
    // Extra spaces, a tab, a trailing space, non-ASCII and control characters: not the direct form.
    assert.deepEqual(extractBearerToken(`Bearer  ${TOKEN}`), { kind: 'token', token: TOKEN });
    assert.deepEqual(extractBearerToken(`Bearer\t${TOKEN}`), { kind: 'token', token: TOKEN });
    assert.deepEqual(extractBearerToken(`Bearer ${TOKEN} `), { kind: 'token', token: TOKEN });
    assert.deepEqual(extractBearerToken('Bearer tökén'), { kind: 'token', token: 'tökén' });
    assert.deepEqual(extractBearerToken('Bearer a\u0000b'), { kind: 'token', token: 'a\u0000b' });
    assert.deepEqual(extractBearerToken('Bearer a\u00a0b'), { kind: 'malformed' });
    const long = 'x'.repeat(1 << 20);
    assert.deepEqual(extractBearerToken(`Bearer ${long}`), { kind: 'token', token: long });
  });
});

describe('BearerTokenAuthenticator', () => {
  const file = new StaticTokenAuthenticator([{ token: TOKEN, user: { name: 'alice', groups: ['dev'] } }]);

  it('has no opinion when no bearer token is sent', async () => {
    const a = new BearerTokenAuthenticator([file]);
    assert.deepEqual(await a.authenticate(withAuth(undefined)), { kind: 'none' });
    assert.deepEqual(await a.authenticate(withAuth('Basic Zm9vOmJhcg==')), { kind: 'none' });
  });

  it('recognises a known token', async () => {
    const r = await new BearerTokenAuthenticator([file]).authenticate(withAuth(`Bearer ${TOKEN}`));
    assert.deepEqual(r, { kind: 'user', user: { name: 'alice', groups: ['dev'] }, method: 'token-file' });
  });

  it('rejects an unknown token and an empty one as invalid, never none', async () => {
    const a = new BearerTokenAuthenticator([file]);
    assert.deepEqual(await a.authenticate(withAuth('Bearer nope')), { kind: 'invalid', message: 'invalid bearer token' });
    assert.deepEqual(await a.authenticate(withAuth('Bearer ')), { kind: 'invalid', message: 'invalid bearer token' });
    assert.deepEqual(await new BearerTokenAuthenticator([]).authenticate(withAuth(`Bearer ${TOKEN}`)), {
      kind: 'invalid',
      message: 'invalid bearer token',
    });
  });

  it('asks token authenticators in order and stops at the first user', async () => {
    const calls: string[] = [];
    const user: AuthResult = { kind: 'user', user: { name: 'bob', groups: [] }, method: 'b' };
    const a = new BearerTokenAuthenticator([
      fixed('a', { kind: 'none' }, calls),
      fixed('b', user, calls),
      fixed('c', { kind: 'user', user: { name: 'carol', groups: [] }, method: 'c' }, calls),
    ]);
    assert.deepEqual(await a.authenticate(withAuth(`Bearer ${TOKEN}`)), user);
    assert.deepEqual(calls, ['a', 'b']);
  });

  it('lets a later authenticator recognise a token an earlier one rejected', async () => {
    const a = new BearerTokenAuthenticator([fixed('sa', { kind: 'invalid', message: 'bad signature' }), file]);
    assert.equal((await a.authenticate(withAuth(`Bearer ${TOKEN}`))).kind, 'user');
  });

  it('reports the rejections when nobody recognises the token', async () => {
    const a = new BearerTokenAuthenticator([
      fixed('sa', { kind: 'invalid', message: 'token expired' }),
      fixed('oidc', { kind: 'invalid', message: 'bad issuer' }),
      fixed('x', { kind: 'invalid', message: 'token expired' }),
    ]);
    assert.deepEqual(await a.authenticate(withAuth('Bearer zzz')), { kind: 'invalid', message: '[token expired, bad issuer]' });
  });

  it('turns a failing token authenticator into a rejection without echoing the token', async () => {
    const throwing: TokenAuthenticator = {
      name: 'webhook',
      authenticateToken: async (t) => {
        throw new Error(`remote said no to ${t}`);
      },
    };
    const r = await new BearerTokenAuthenticator([throwing]).authenticate(withAuth(`Bearer ${TOKEN}`));
    assert.deepEqual(r, { kind: 'invalid', message: 'webhook: remote said no to [redacted]' });
  });

  it('passes the request abort signal to token authenticators', async () => {
    let seen: AbortSignal | undefined;
    const spy: TokenAuthenticator = {
      name: 'spy',
      authenticateToken: (_t, signal) => {
        seen = signal;
        return { kind: 'none' };
      },
    };
    const req = withAuth(`Bearer ${TOKEN}`);
    await new BearerTokenAuthenticator([spy]).authenticate(req);
    assert.equal(seen, req.signal);
  });

  it('does not read the request signal for the token file, also behind the length prefilter', async () => {
    const file = new StaticTokenAuthenticator([{ token: TOKEN, user: { name: 'alice', groups: [] } }]);
    const prefiltered = new LengthPrefilteredTokenAuthenticator(file, [TOKEN]);
    assert.equal(prefiltered.inMemory, true);
    const req = withAuth(`Bearer ${TOKEN}`);
    // Creating a request's AbortSignal costs microseconds: an in-memory check must not ask for it.
    Object.defineProperty(req, 'signal', { get: () => assert.fail('the signal was read') });
    const r = await new BearerTokenAuthenticator([prefiltered]).authenticate(req);
    assert.equal(r.kind, 'user');
  });
});
