/**
 * The service-account token authenticator on its own, with an in-memory
 * object source: what it accepts and rejects (and with which message), what
 * user it makes, and that its decision cache is revoked by changes alone.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { SignJWT } from 'jose';
import { ServiceAccountTokenAuthenticator } from '../../../src/authn/service-account/authenticator.ts';
import { TokenSigner } from '../../../src/authn/service-account/issuer.ts';
import { boundClaims, legacyClaims } from '../../../src/authn/service-account/claims.ts';
import { keyId, parsePublicKeysPem, type VerificationKey } from '../../../src/authn/service-account/keys.ts';
import type { AuthResult } from '../../../src/authn/types.ts';
import { names } from '../../../src/naming/index.ts';
import { MemoryObjectSource, ecPair, object, rsaPair } from './support.ts';

const ISSUER = 'https://issuer.example';
const OTHER_ISSUER = 'https://old-issuer.example';
const AUD = ['api'];
const key = rsaPair();
const otherKey = rsaPair();

interface Setup {
  objects: MemoryObjectSource;
  auth: ServiceAccountTokenAuthenticator;
  clock: { now: number };
}

function setup(options: { keys?: VerificationKey[]; lookup?: boolean; issuers?: string[] } = {}): Setup {
  const objects = new MemoryObjectSource();
  objects.put('serviceaccounts', object('bot', 'sa-uid'));
  objects.put('pods', object('web', 'pod-uid', { spec: { serviceAccountName: 'bot' } }));
  objects.put('secrets', object('bound', 'secret-uid'));
  const clock = { now: Date.UTC(2030, 0, 1) };
  const auth = new ServiceAccountTokenAuthenticator({
    issuers: options.issuers ?? [ISSUER, OTHER_ISSUER],
    apiAudiences: AUD,
    keys: options.keys ?? [key.verification],
    lookup: options.lookup ?? true,
    objects,
    now: () => clock.now,
  });
  return { objects, auth, clock };
}

function token(s: Setup, opts: { issuer?: string; pod?: boolean; secret?: boolean; exp?: number; audiences?: string[]; signer?: TokenSigner; nbfOffset?: number } = {}): Promise<string> {
  const now = Math.floor(s.clock.now / 1000);
  const claims = boundClaims({
    issuer: opts.issuer ?? ISSUER,
    namespace: 'ns1',
    serviceAccount: { name: 'bot', uid: 'sa-uid' },
    pod: opts.pod ? { name: 'web', uid: 'pod-uid' } : undefined,
    secret: opts.secret ? { name: 'bound', uid: 'secret-uid' } : undefined,
    audiences: opts.audiences ?? AUD,
    now,
    expirationSeconds: opts.exp ?? 3600,
    warnAfterSeconds: 0,
  });
  if (opts.nbfOffset !== undefined) claims['nbf'] = now + opts.nbfOffset;
  return (opts.signer ?? new TokenSigner(key.signing)).sign(claims);
}

async function check(s: Setup, t: string, audiences?: string[]): Promise<AuthResult> {
  return s.auth.authenticateToken(t, undefined, audiences);
}

function assertInvalid(result: AuthResult, message: RegExp | string, t: string): void {
  assert.equal(result.kind, 'invalid', JSON.stringify(result));
  if (result.kind !== 'invalid') return;
  if (typeof message === 'string') assert.equal(result.message, message);
  else assert.match(result.message, message);
  assert.ok(!result.message.includes(t.split('.')[2]!), 'the message must not contain the token');
}

describe('service-account tokens: what is accepted', () => {
  it('a bound token names the service account, its uid and groups', async () => {
    const s = setup();
    const r = await check(s, await token(s));
    assert.equal(r.kind, 'user');
    if (r.kind !== 'user') return;
    assert.equal(r.method, 'service-account');
    assert.deepEqual(r.user, { name: 'system:serviceaccount:ns1:bot', uid: 'sa-uid', groups: ['system:serviceaccounts', 'system:serviceaccounts:ns1'] });
  });

  it('a pod-bound token carries the pod extras (and no others, as v1.25)', async () => {
    const s = setup();
    const r = await check(s, await token(s, { pod: true }));
    assert.equal(r.kind, 'user');
    if (r.kind !== 'user') return;
    assert.deepEqual(r.user.extra, { [names.serviceAccountTokens.podNameExtra]: ['web'], [names.serviceAccountTokens.podUidExtra]: ['pod-uid'] });
  });

  it('every configured issuer is accepted', async () => {
    const s = setup();
    assert.equal((await check(s, await token(s, { issuer: OTHER_ISSUER }))).kind, 'user');
  });

  it('any verification key may have signed (the kid picks the first tried, the others still count)', async () => {
    const s = setup({ keys: [otherKey.verification, key.verification] });
    assert.equal((await check(s, await token(s))).kind, 'user');
    // No kid at all: every key is tried.
    const now = Math.floor(s.clock.now / 1000);
    const claims = boundClaims({ issuer: ISSUER, namespace: 'ns1', serviceAccount: { name: 'bot', uid: 'sa-uid' }, audiences: AUD, now, expirationSeconds: 3600, warnAfterSeconds: 0 });
    const noKid = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256' }).sign(key.privateKey);
    assert.equal((await check(s, noKid)).kind, 'user');
  });

  it('ECDSA keys sign and verify (ES256, ES384)', async () => {
    for (const curve of ['prime256v1', 'secp384r1'] as const) {
      const ec = ecPair(curve);
      const s = setup({ keys: [ec.verification] });
      const t = await token(s, { signer: new TokenSigner(ec.signing) });
      assert.equal(JSON.parse(Buffer.from(t.split('.')[0]!, 'base64url').toString()).alg, curve === 'prime256v1' ? 'ES256' : 'ES384');
      assert.equal((await check(s, t)).kind, 'user', curve);
    }
  });

  it('expiry and not-before have a minute of leeway', async () => {
    const s = setup();
    const t = await token(s, { exp: 600 });
    s.clock.now += 630_000;
    assert.equal((await check(s, t)).kind, 'user', '30 s past exp is inside the leeway');
    const early = await token(s, { nbfOffset: 50 });
    assert.equal((await check(s, early)).kind, 'user', 'nbf 50 s ahead is inside the leeway');
  });

  it('a TokenReview may ask for other audiences', async () => {
    const s = setup();
    const t = await token(s, { audiences: ['vault'] });
    const r = await check(s, t, ['vault', 'other']);
    assert.equal(r.kind, 'user');
    if (r.kind === 'user') assert.deepEqual(r.audiences, ['vault'], 'the audiences the token is valid for, of those asked');
    const cached = await check(s, t, ['vault', 'other']);
    assert.ok(cached.kind === 'user' && cached.audiences?.join() === 'vault', 'the cached answer keeps them');
    assertInvalid(await check(s, t), 'token audiences ["vault"] is invalid for the target audiences ["api"]', t);
  });
});

describe('service-account tokens: what is rejected, and how', () => {
  it('malformed tokens and foreign issuers are not ours (none), so other authenticators may judge them', async () => {
    const s = setup();
    for (const t of ['', 'abc', 'a.b', 'a.b.c.d', 'x.!!!.y', `x.${Buffer.from('[1]').toString('base64url')}.y`, `x.${Buffer.from('{"iss":5}').toString('base64url')}.y`]) {
      assert.deepEqual(await check(s, t), { kind: 'none' }, t);
    }
    assert.deepEqual(await check(s, await token(s, { issuer: 'https://someone.else' })), { kind: 'none' });
    assert.equal(s.objects.gets, 0);
  });

  it('a bad signature is invalid', async () => {
    const s = setup();
    const t = await token(s, { signer: new TokenSigner(otherKey.signing) });
    assertInvalid(await check(s, t), 'invalid signature', t);
    // A payload swapped under a good signature.
    const good = await token(s);
    const [h, , sig] = good.split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify({ iss: ISSUER, sub: 'x' })).toString('base64url')}.${sig}`;
    assertInvalid(await check(s, forged), 'invalid signature', forged);
    // alg none is never accepted.
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${good.split('.')[1]}.`;
    assert.equal((await check(s, none)).kind, 'invalid');
    assert.equal(s.objects.gets, 0, 'nothing is looked up for a token that does not verify');
  });

  it('an expired token is invalid', async () => {
    const s = setup();
    const t = await token(s, { exp: 600 });
    s.clock.now += 661_000;
    assertInvalid(await check(s, t), 'token has expired', t);
  });

  it('a token not valid yet is invalid', async () => {
    const s = setup();
    const t = await token(s, { nbfOffset: 120 });
    assertInvalid(await check(s, t), 'token could not be validated', t);
  });

  it('a token for other audiences is invalid', async () => {
    const s = setup();
    const t = await token(s, { audiences: ['elsewhere'] });
    assertInvalid(await check(s, t), /token audiences \["elsewhere"\] is invalid/, t);
  });

  it('a missing or replaced service account, pod or secret invalidates the token', async () => {
    let s = setup();
    let t = await token(s);
    s.objects.remove('serviceaccounts', 'ns1', 'bot');
    assertInvalid(await check(s, t), 'serviceaccounts "bot" not found', t);
    s.objects.put('serviceaccounts', object('bot', 'new-uid'));
    assertInvalid(await check(s, t), 'service account UID (new-uid) does not match claim (sa-uid)', t);

    s = setup();
    t = await token(s, { pod: true });
    s.objects.remove('pods', 'ns1', 'web');
    assertInvalid(await check(s, t), 'service account token has been invalidated', t);
    s.objects.put('pods', object('web', 'pod-2'));
    assertInvalid(await check(s, t), 'pod UID (pod-2) does not match claim (pod-uid)', t);

    s = setup();
    t = await token(s, { secret: true });
    s.objects.put('secrets', object('bound', 'secret-2'), 'MODIFIED');
    assertInvalid(await check(s, t), 'secret UID (secret-2) does not match claim (secret-uid)', t);
  });

  it('an object marked for deletion more than the leeway ago counts as gone; a fresh mark does not', async () => {
    const s = setup();
    const t = await token(s, { pod: true });
    const marked = (msAgo: number) => object('web', 'pod-uid', { metadata: { name: 'web', namespace: 'ns1', uid: 'pod-uid', deletionTimestamp: new Date(s.clock.now - msAgo).toISOString() } });
    s.objects.put('pods', marked(10_000), 'MODIFIED');
    assert.equal((await check(s, t)).kind, 'user');
    s.objects.put('pods', marked(61_000), 'MODIFIED');
    assertInvalid(await check(s, t), 'service account token has been invalidated', t);
  });
});

describe('service-account tokens: the decision cache', () => {
  it('a cached token is answered without lookups', async () => {
    const s = setup();
    const t = await token(s, { pod: true });
    assert.equal((await check(s, t)).kind, 'user');
    const gets = s.objects.gets;
    for (let i = 0; i < 5; i++) assert.equal((await check(s, t)).kind, 'user');
    assert.equal(s.objects.gets, gets);
    assert.equal(s.auth.cachedDecisions, 1);
  });

  it('concurrent requests with a new token verify it once', async () => {
    const s = setup();
    const t = await token(s);
    const results = await Promise.all(Array.from({ length: 20 }, () => check(s, t)));
    assert.ok(results.every((r) => r.kind === 'user'));
    assert.equal(s.objects.gets, 1);
  });

  it('deleting the service account revokes the cached decision at once', async () => {
    const s = setup();
    const t = await token(s);
    assert.equal((await check(s, t)).kind, 'user');
    s.objects.remove('serviceaccounts', 'ns1', 'bot');
    assertInvalid(await check(s, t), 'serviceaccounts "bot" not found', t);
  });

  it('deleting or replacing the bound pod revokes; a status update of the same pod does not', async () => {
    const s = setup();
    const t = await token(s, { pod: true });
    assert.equal((await check(s, t)).kind, 'user');
    s.objects.put('pods', object('web', 'pod-uid', { status: { phase: 'Running' } }), 'MODIFIED');
    const gets = s.objects.gets;
    assert.equal((await check(s, t)).kind, 'user');
    assert.equal(s.objects.gets, gets, 'still cached');
    s.objects.remove('pods', 'ns1', 'web');
    assertInvalid(await check(s, t), 'service account token has been invalidated', t);
  });

  it('a change during verification keeps the decision out of the cache', async () => {
    const s = setup();
    const t = await token(s);
    let once = true;
    s.objects.onGet = () => {
      if (!once) return;
      once = false;
      // The service account is replaced while the first verification reads it.
      s.objects.emit('serviceaccounts', { type: 'MODIFIED', namespace: 'ns1', name: 'bot', uid: 'sa-uid', object: object('bot', 'sa-uid') });
    };
    assert.equal((await check(s, t)).kind, 'user');
    assert.equal(s.auth.cachedDecisions, 0);
    assert.equal((await check(s, t)).kind, 'user');
    assert.equal(s.auth.cachedDecisions, 1);
  });

  it('a feed reset drops every decision', async () => {
    const s = setup();
    assert.equal((await check(s, await token(s))).kind, 'user');
    assert.equal(s.auth.cachedDecisions, 1);
    s.objects.emit('pods', { type: 'reset' });
    assert.equal(s.auth.cachedDecisions, 0);
  });

  it('decisions do not outlive the token', async () => {
    const s = setup();
    const t = await token(s, { exp: 600 });
    assert.equal((await check(s, t)).kind, 'user');
    s.clock.now += 700_000;
    assertInvalid(await check(s, t), 'token has expired', t);
  });

  it('the cache stays bounded under many tokens', async () => {
    const objects = new MemoryObjectSource();
    objects.put('serviceaccounts', object('bot', 'sa-uid'));
    const auth = new ServiceAccountTokenAuthenticator({ issuers: [ISSUER], apiAudiences: AUD, keys: [key.verification], lookup: true, objects, cacheEntries: 8 });
    const signer = new TokenSigner(key.signing);
    const now = Math.floor(Date.now() / 1000);
    for (let i = 0; i < 30; i++) {
      const claims = boundClaims({ issuer: ISSUER, namespace: 'ns1', serviceAccount: { name: 'bot', uid: 'sa-uid' }, audiences: AUD, now: now - i, expirationSeconds: 3600, warnAfterSeconds: 0 });
      assert.equal((await auth.authenticateToken(await signer.sign(claims))).kind, 'user');
    }
    assert.equal(auth.cachedDecisions, 8);
  });
});

describe('legacy secret-based tokens', () => {
  async function legacy(secretName = 'bot-token'): Promise<string> {
    const claims = legacyClaims({ namespace: 'ns1', serviceAccount: { name: 'bot', uid: 'sa-uid' }, secretName });
    return new SignJWT(claims).setProtectedHeader({ alg: 'RS256' }).sign(key.privateKey);
  }
  function secretWith(t: string, uid = 'tok-uid') {
    return object('bot-token', uid, { type: names.secretTypes.serviceAccountToken, data: { token: Buffer.from(t).toString('base64') } });
  }

  it('authenticate while their secret holds them, and stop when it goes or changes', async () => {
    const s = setup();
    const t = await legacy();
    s.objects.put('secrets', secretWith(t));
    const r = await check(s, t);
    assert.equal(r.kind, 'user');
    if (r.kind === 'user') assert.equal(r.user.name, 'system:serviceaccount:ns1:bot');
    s.objects.put('secrets', secretWith('something else'), 'MODIFIED');
    assertInvalid(await check(s, t), "token does not match server's copy", t);
    s.objects.put('secrets', secretWith(t), 'MODIFIED');
    assert.equal((await check(s, t)).kind, 'user');
    s.objects.remove('secrets', 'ns1', 'bot-token');
    assertInvalid(await check(s, t), 'token has been invalidated', t);
  });

  it('need their service account with the claimed uid', async () => {
    const s = setup();
    const t = await legacy();
    s.objects.put('secrets', secretWith(t));
    s.objects.put('serviceaccounts', object('bot', 'other'), 'MODIFIED');
    assertInvalid(await check(s, t), 'service account UID (other) does not match claim (sa-uid)', t);
  });

  it('without --service-account-lookup nothing is looked up', async () => {
    const s = setup({ lookup: false });
    const t = await legacy();
    assert.equal((await check(s, t)).kind, 'user');
    assert.equal(s.objects.gets, 0);
  });

  it('incomplete claims are rejected with the original messages', async () => {
    const s = setup({ lookup: false });
    const claims = legacyClaims({ namespace: 'ns1', serviceAccount: { name: 'bot', uid: 'sa-uid' }, secretName: 'x' });
    claims['sub'] = 'system:serviceaccount:ns1:other';
    const t = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256' }).sign(key.privateKey);
    assertInvalid(await check(s, t), 'sub claim is invalid', t);
  });
});

describe('service-account keys', () => {
  it('key IDs are base64url SHA-256 of the DER public key', () => {
    const der = key.signing.publicKey.export({ type: 'spki', format: 'der' });
    assert.equal(keyId(key.signing.publicKey), createHash('sha256').update(der).digest('base64url'));
    assert.match(keyId(key.signing.publicKey), /^[A-Za-z0-9_-]{43}$/);
  });

  it('a PEM bundle gives every RSA and ECDSA key, from public keys, private keys and certificates; other blocks are skipped', () => {
    const ec = ecPair();
    const text = [
      key.signing.publicKey.export({ type: 'spki', format: 'pem' }),
      ec.privateKey.export({ type: 'sec1', format: 'pem' }),
      '-----BEGIN JUNK-----\nAAAA\n-----END JUNK-----\n',
      otherKey.privateKey.export({ type: 'pkcs1', format: 'pem' }),
    ].join('');
    const keys = parsePublicKeysPem(text, 'bundle.pem');
    assert.deepEqual(keys.map((k) => k.alg), ['RS256', 'ES256', 'RS256']);
    assert.deepEqual(keys.map((k) => k.kid), [key.verification.kid, ec.verification.kid, otherKey.verification.kid]);
    assert.throws(() => parsePublicKeysPem('nothing here', 'empty.pem'), /empty.pem: data does not contain any valid RSA or ECDSA public keys/);
  });
});

describe('the token file prefilter', () => {
  it('asks the token file only for tokens of a length it has, with the same answers', async () => {
    const { LengthPrefilteredTokenAuthenticator } = await import('../../../src/authn/service-account/static-token-prefilter.ts');
    const { StaticTokenAuthenticator } = await import('../../../src/authn/token-file.ts');
    const asked: string[] = [];
    const inner = new StaticTokenAuthenticator([{ token: 'abcdefgh12345678', user: { name: 'alice', groups: [] } }]);
    const spy = { name: inner.name, authenticateToken: (t: string) => (asked.push(t), inner.authenticateToken(t)) };
    const filtered = new LengthPrefilteredTokenAuthenticator(spy, ['abcdefgh12345678']);
    assert.equal((await filtered.authenticateToken('abcdefgh12345678')).kind, 'user');
    assert.equal((await filtered.authenticateToken('abcdefgh1234567X')).kind, 'none');
    assert.equal((await filtered.authenticateToken('a.much.longer-token-of-another-length')).kind, 'none');
    assert.deepEqual(asked, ['abcdefgh12345678', 'abcdefgh1234567X']);
  });
});
