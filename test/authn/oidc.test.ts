/**
 * The OIDC authenticator against a real identity provider on loopback
 * (HTTPS with a throwaway CA, discovery, JWKS, jose-signed tokens): claim
 * checks and user mapping, key rotation and its rate limit, caching, a
 * provider that is not reachable, and the flags.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import { OidcTokenAuthenticator } from '../../src/authn/oidc/authenticator.ts';
import { JsonGetter } from '../../src/authn/oidc/https-get.ts';
import { OidcProvider } from '../../src/authn/oidc/provider.ts';
import { defaultOidcOptions, effectiveUsernamePrefix, oidcOptionProblems, type OidcOptions } from '../../src/authn/oidc/config.ts';
import { parseArgs, OptionsError } from '../../src/server/options.ts';
import type { AuthResult } from '../../src/authn/types.ts';
import { createTestIdp, type TestIdp } from './support/idp.ts';

const CLIENT = 'orch-test';
const silent = { info: () => {}, warn: () => {} };

let idp: TestIdp;
let caPem: string;

before(async () => {
  idp = await createTestIdp({ clientId: CLIENT });
  caPem = await fs.readFile(idp.tls.caFile, 'utf8');
});
after(async () => {
  await idp.close();
});

interface Built {
  readonly authn: OidcTokenAuthenticator;
  readonly provider: OidcProvider;
}

async function build(overrides: Partial<OidcOptions> = {}, provider: Partial<ConstructorParameters<typeof OidcProvider>[0]> = {}, now?: () => number): Promise<Built> {
  const options = { ...defaultOidcOptions(), issuerUrl: idp.issuer, clientId: CLIENT, ...overrides };
  const p = new OidcProvider({ issuerUrl: options.issuerUrl!, getter: new JsonGetter({ ca: caPem }), logger: silent, ...provider });
  await p.start();
  const authn = new OidcTokenAuthenticator(options as OidcOptions & { issuerUrl: string; clientId: string }, { provider: p, ...(now ? { now } : {}) });
  return { authn, provider: p };
}

async function check(a: OidcTokenAuthenticator, token: string): Promise<AuthResult> {
  return a.authenticateToken(token);
}

function assertInvalid(r: AuthResult, includes: string, token: string): void {
  assert.equal(r.kind, 'invalid', JSON.stringify(r));
  if (r.kind !== 'invalid') return;
  assert.ok(r.message.includes(includes), `${r.message} should mention ${includes}`);
  assert.ok(!r.message.includes(token) && !r.message.includes(token.split('.')[2]!), 'message must not carry the token');
}

describe('oidc: flags and prefix rule', () => {
  it('prefixes claims other than email with <issuer>#, honours an explicit prefix and - for none', () => {
    const o = { ...defaultOidcOptions(), issuerUrl: 'https://idp.example', clientId: 'c' };
    assert.equal(effectiveUsernamePrefix(o), 'https://idp.example#');
    assert.equal(effectiveUsernamePrefix({ ...o, usernameClaim: 'email' }), '');
    assert.equal(effectiveUsernamePrefix({ ...o, usernamePrefix: 'oidc:' }), 'oidc:');
    assert.equal(effectiveUsernamePrefix({ ...o, usernameClaim: 'email', usernamePrefix: 'oidc:' }), 'oidc:');
    assert.equal(effectiveUsernamePrefix({ ...o, usernamePrefix: '-' }), '');
  });

  it('parses every --oidc-* flag with its default', () => {
    const d = parseArgs([]).oidc;
    assert.equal(d.usernameClaim, 'sub');
    assert.deepEqual(d.signingAlgs, ['RS256']);
    assert.equal(d.issuerUrl, undefined);
    const o = parseArgs([
      '--oidc-issuer-url=https://idp.example/realms/x',
      '--oidc-client-id=kube',
      '--oidc-username-claim=email',
      '--oidc-username-prefix=-',
      '--oidc-groups-claim=groups',
      '--oidc-groups-prefix=oidc:',
      '--oidc-signing-algs=RS256,ES256',
      '--oidc-required-claim=hd=example.com',
      '--oidc-required-claim',
      'tier=a=b',
    ]).oidc;
    assert.equal(o.issuerUrl, 'https://idp.example/realms/x');
    assert.equal(o.clientId, 'kube');
    assert.equal(o.usernameClaim, 'email');
    assert.equal(o.usernamePrefix, '-');
    assert.equal(o.groupsClaim, 'groups');
    assert.equal(o.groupsPrefix, 'oidc:');
    assert.deepEqual(o.signingAlgs, ['RS256', 'ES256']);
    assert.deepEqual([...o.requiredClaims], [['hd', 'example.com'], ['tier', 'a=b']]);
  });

  it('refuses at start: http issuer, issuer without client id (and back), unknown algorithm, bad required claim', () => {
    assert.throws(() => parseArgs(['--oidc-issuer-url=http://idp.example', '--oidc-client-id=c']), /require 'https'/);
    assert.throws(() => parseArgs(['--oidc-issuer-url=https://idp.example']), /specified together/);
    assert.throws(() => parseArgs(['--oidc-client-id=c']), /specified together/);
    assert.throws(() => parseArgs(['--oidc-issuer-url=https://idp.example', '--oidc-client-id=c', '--oidc-signing-algs=HS256']), /unsupported signing alg/);
    assert.throws(() => parseArgs(['--oidc-required-claim=novalue']), OptionsError);
    assert.throws(() => parseArgs(['--oidc-ca-file=/nonexistent/ca.crt']), /oidc-ca-file/);
    assert.deepEqual(oidcOptionProblems(defaultOidcOptions()), []);
  });
});

describe('oidc: tokens from a real provider', () => {
  it('recognises a good token: default prefix, groups as a list with prefix', async () => {
    const { authn } = await build({ groupsClaim: 'groups', groupsPrefix: 'oidc:' });
    const r = await check(authn, await idp.sign({ groups: ['dev', 'ops'] }));
    assert.deepEqual(r, { kind: 'user', user: { name: `${idp.issuer}#alice`, groups: ['oidc:dev', 'oidc:ops'] }, method: 'oidc' });
    authn.close();
  });

  it('takes a groups claim that is a single string, and no groups when it is absent', async () => {
    const { authn } = await build({ groupsClaim: 'role', usernamePrefix: '-' });
    assert.deepEqual(await check(authn, await idp.sign({ role: 'admins' })), { kind: 'user', user: { name: 'alice', groups: ['admins'] }, method: 'oidc' });
    assert.deepEqual(await check(authn, await idp.sign({ sub: 'bob' })), { kind: 'user', user: { name: 'bob', groups: [] }, method: 'oidc' });
    const bad = await idp.sign({ role: [1, 2] });
    assertInvalid(await check(authn, bad), 'groups claim', bad);
    authn.close();
  });

  it('uses email unprefixed, and rejects it when email_verified is false', async () => {
    const { authn } = await build({ usernameClaim: 'email' });
    assert.deepEqual(await check(authn, await idp.sign({ email: 'a@example.com', email_verified: true })), {
      kind: 'user',
      user: { name: 'a@example.com', groups: [] },
      method: 'oidc',
    });
    assert.equal((await check(authn, await idp.sign({ email: 'b@example.com' }))).kind, 'user', 'email_verified absent is accepted');
    const unverified = await idp.sign({ email: 'c@example.com', email_verified: false });
    assertInvalid(await check(authn, unverified), 'email not verified', unverified);
    const missing = await idp.sign({});
    assertInvalid(await check(authn, missing), 'claim not present', missing);
    authn.close();
  });

  it('checks required claims for presence and value', async () => {
    const { authn } = await build({ requiredClaims: new Map([['hd', 'example.com']]) });
    assert.equal((await check(authn, await idp.sign({ hd: 'example.com' }))).kind, 'user');
    const absent = await idp.sign({});
    assertInvalid(await check(authn, absent), 'required claim hd not present', absent);
    const other = await idp.sign({ hd: 'evil.com' });
    assertInvalid(await check(authn, other), 'required claim hd value does not match', other);
    authn.close();
  });

  it('rejects expired tokens, tokens without exp, and nbf beyond the one-minute leeway', async () => {
    const { authn } = await build();
    const now = Math.floor(Date.now() / 1000);
    const expired = await idp.sign({ exp: now - 5 });
    assertInvalid(await check(authn, expired), 'token is expired', expired);
    const noExp = await idp.sign({ exp: undefined });
    assertInvalid(await check(authn, noExp), 'no valid exp', noExp);
    const future = await idp.sign({ nbf: now + 300 });
    assertInvalid(await check(authn, future), 'nbf', future);
    assert.equal((await check(authn, await idp.sign({ nbf: now + 30 }))).kind, 'user', 'within the leeway');
    authn.close();
  });

  it('checks the audience: our client id must be among them (azp for other clients)', async () => {
    const { authn } = await build();
    const wrong = await idp.sign({ aud: 'someone-else' });
    assertInvalid(await check(authn, wrong), 'expected audience', wrong);
    assert.equal((await check(authn, await idp.sign({ aud: ['web-ui', CLIENT], azp: 'web-ui' }))).kind, 'user');
    authn.close();
  });

  it('has no opinion on tokens of another issuer or non-JWTs; rejects a tampered issuer', async () => {
    const { authn } = await build();
    assert.deepEqual(await check(authn, await idp.sign({ iss: 'https://other.example' })), { kind: 'none' });
    assert.deepEqual(await check(authn, 'not-a-jwt'), { kind: 'none' });
    assert.deepEqual(await check(authn, 'a.%%%.c'), { kind: 'none' });
    // Our iss in the payload, but the signature is over something else.
    const good = await idp.sign({});
    const [h, , s] = good.split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify({ iss: idp.issuer, aud: CLIENT, sub: 'root', exp: 9e9 })).toString('base64url')}.${s}`;
    assertInvalid(await check(authn, forged), 'failed to verify signature', forged);
    const garbage = `${h}.${Buffer.from(JSON.stringify({ iss: idp.issuer })).toString('base64url')}.!!`;
    assert.equal((await check(authn, garbage)).kind, 'invalid');
    authn.close();
  });

  it('rejects a bad signature and an algorithm not allowed', async () => {
    const { authn } = await build();
    const stranger = await idp.newKey();
    const bad = await idp.sign({}, { key: stranger, kid: idp.current.kid });
    assertInvalid(await check(authn, bad), 'failed to verify signature', bad);
    const ec = await idp.newKey('ES256');
    const es = await idp.sign({}, { key: ec, kid: idp.current.kid });
    assertInvalid(await check(authn, es), 'algorithm not allowed', es);
    authn.close();
  });

  it('caches a verified user until exp: the second answer is synchronous and needs no key', async () => {
    let now = Date.now();
    const { authn } = await build({}, {}, () => now);
    const token = await idp.sign({ exp: Math.floor(now / 1000) + 60 });
    assert.equal((await check(authn, token)).kind, 'user');
    const second = authn.authenticateToken(token);
    assert.ok(!(second instanceof Promise), 'a cached answer is not a promise');
    assert.equal((second as AuthResult).kind, 'user');
    now += 61_000;
    const third = await authn.authenticateToken(token);
    assert.equal(third.kind, 'invalid', 'past exp the cache no longer answers and the token is expired');
    authn.close();
  });

  it('picks up a rotated key without restart, fetching the key set once, and rate-limits refetches', async () => {
    let now = Date.now();
    const { authn } = await build({}, { minKeyRefreshIntervalMs: 10_000, now: () => now });
    const before = idp.hits.jwks;
    const old = await idp.sign({});
    assert.equal((await check(authn, old)).kind, 'user');
    assert.equal(idp.hits.jwks, before, 'known keys need no fetch');
    await idp.rotate();
    const rotated = await Promise.all([idp.sign({ sub: 'r1' }), idp.sign({ sub: 'r2' }), idp.sign({ sub: 'r3' })]);
    const results = await Promise.all(rotated.map((t) => check(authn, t)));
    assert.deepEqual(results.map((r) => r.kind), ['user', 'user', 'user']);
    assert.equal(idp.hits.jwks, before + 1, 'concurrent misses share one fetch');
    // Made-up key ids: the next refetch waits for the interval.
    const unknown = await idp.sign({}, { kid: 'made-up-1' });
    assertInvalid(await check(authn, unknown), 'no signing key', unknown);
    assert.equal(idp.hits.jwks, before + 1, 'no refetch within the interval');
    now += 10_001;
    assertInvalid(await check(authn, await idp.sign({}, { kid: 'made-up-2' })), 'no signing key', 'x'.repeat(40));
    assert.equal(idp.hits.jwks, before + 2, 'one refetch after the interval');
    // A token without kid is tried against every matching key.
    assert.equal((await check(authn, await idp.sign({ sub: 'nokid' }, { kid: null }))).kind, 'user');
    authn.close();
  });

  it('forgets cached users when the provider withdraws a key', async () => {
    const { authn } = await build({}, { minKeyRefreshIntervalMs: 0 });
    const oldKey = idp.current;
    const old = await idp.sign({ sub: 'before-withdrawal' });
    assert.equal((await check(authn, old)).kind, 'user');
    assert.equal((authn.authenticateToken(old) as AuthResult).kind, 'user', 'cached');
    const fresh = await idp.rotate();
    idp.withdraw(oldKey);
    // A token with the new kid makes the provider refetch, and the refetched set lacks the old key.
    assert.equal((await check(authn, await idp.sign({ sub: 'after' }, { key: fresh }))).kind, 'user');
    assertInvalid(await check(authn, old), 'no signing key', old);
    authn.close();
  });

  it('rejects tokens while the provider is unreachable, and recovers in the background', async () => {
    const down = await createTestIdp({ clientId: CLIENT, listen: false });
    try {
      const p = new OidcProvider({ issuerUrl: down.issuer, getter: new JsonGetter({ ca: await fs.readFile(down.tls.caFile, 'utf8') }), logger: silent, retryDelaysMs: [50] });
      const authn = new OidcTokenAuthenticator({ ...defaultOidcOptions(), issuerUrl: down.issuer, clientId: CLIENT }, { provider: p });
      await p.start();
      assert.equal(p.ready, false);
      const token = await down.sign({});
      assertInvalid(await check(authn, token), 'not initialized', token);
      await down.listen();
      for (let i = 0; i < 200 && !p.ready; i++) await new Promise((r) => setTimeout(r, 25));
      assert.equal(p.ready, true);
      assert.equal((await check(authn, token)).kind, 'user');
      authn.close();
    } finally {
      await down.close();
    }
  });

  it('does not trust a provider whose certificate our CA did not sign, nor a discovery with another issuer', async () => {
    const other = await createTestIdp({ clientId: CLIENT });
    try {
      const p = new OidcProvider({ issuerUrl: other.issuer, getter: new JsonGetter({ ca: caPem }), logger: silent, retryDelaysMs: [60_000] });
      await p.start();
      assert.equal(p.ready, false, 'TLS verification failed');
      p.close();
      const q = new OidcProvider({ issuerUrl: `${idp.issuer}/`, getter: new JsonGetter({ ca: caPem }), logger: silent, retryDelaysMs: [60_000] });
      await q.start();
      assert.equal(q.ready, false, 'issuer mismatch (trailing slash)');
      q.close();
    } finally {
      await other.close();
    }
  });
});
