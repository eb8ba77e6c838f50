/**
 * Service-account tokens against a real server: TokenRequest tokens work on
 * both front ends; bad, expired, wrong-audience, wrong-issuer and malformed
 * tokens are 401 Statuses and never reach the log; deleting the service
 * account or the bound pod revokes a cached token; legacy secret tokens work
 * while their secret does; several issuers are accepted, the first signs;
 * TokenRequest validation answers as the original; and an external verifier
 * (jose's remote JWKS over HTTPS) accepts our tokens from the issuer
 * discovery documents.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import { readFile } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { SignJWT, createRemoteJWKSet, customFetch, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { startTestServer, type HttpAnswer, type TestServer } from '../support/test-server.ts';
import { SKIP_WITHOUT_UWS } from '../support/uws-toggle.ts';
import { apiGroup, names } from '../../src/naming/index.ts';
import { boundClaims, legacyClaims } from '../../src/authn/service-account/claims.ts';
import { keyId } from '../../src/authn/service-account/keys.ts';
import { createPublicKey } from 'node:crypto';

const ISSUER = 'https://issuer-one.example';
const SECOND_ISSUER = 'https://issuer-two.example';
const NS = '/api/v1/namespaces/default';
const TR_VERSION = `${apiGroup('authentication')}/v1`;

let srv: TestServer;
const logText: string[] = [];

before(async () => {
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      logText.push(chunk.toString('utf8'));
      done();
    },
  });
  srv = await startTestServer([`--service-account-issuer=${ISSUER}`, `--service-account-issuer=${SECOND_ISSUER}`, '--service-account-max-token-expiration=2h'], {
    logs: { level: 'debug', destination },
  });
});
after(async () => {
  await srv?.stop();
});

async function createSa(name: string): Promise<string> {
  const r = await srv.request('POST', `${NS}/serviceaccounts`, { metadata: { name } });
  assert.equal(r.status, 201, r.body);
  return r.json<{ metadata: { uid: string } }>().metadata.uid;
}

async function tokenRequest(sa: string, spec: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): Promise<HttpAnswer> {
  return srv.request('POST', `${NS}/serviceaccounts/${sa}/token`, { apiVersion: TR_VERSION, kind: 'TokenRequest', spec, ...extra });
}

async function issue(sa: string, spec: Record<string, unknown> = {}): Promise<string> {
  const r = await tokenRequest(sa, spec);
  assert.equal(r.status, 201, r.body);
  return r.json<{ status: { token: string } }>().status.token;
}

function whoCanList(token: string, uws = false): Promise<HttpAnswer> {
  return srv.request('GET', `${NS}/configmaps`, undefined, { as: { token }, uws });
}

/** Waits (bounded) for the change feed to carry a deletion to the decision cache. */
async function until401(token: string, uws = false): Promise<HttpAnswer> {
  let r = await whoCanList(token, uws);
  for (let i = 0; r.status !== 401 && i < 100; i++) {
    await new Promise((res) => setTimeout(res, 20));
    r = await whoCanList(token, uws);
  }
  return r;
}

function assertUnauthorized(r: HttpAnswer, what: string): void {
  assert.equal(r.status, 401, `${what}: ${r.body}`);
  const status = r.json<{ kind: string; reason: string; code: number; message: string }>();
  assert.equal(status.kind, 'Status', what);
  assert.equal(status.reason, 'Unauthorized', what);
  assert.equal(status.code, 401, what);
  assert.equal(status.message, 'Unauthorized', what);
}

function sign(claims: Record<string, unknown>): Promise<string> {
  const key = srv.server.files.saPrivateKey;
  return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: keyId(createPublicKey(key)) }).sign(key);
}

describe('TokenRequest tokens', () => {
  it('are signed by the first issuer for the API audiences, with the JWKS key id, and work on the secure port', async () => {
    const uid = await createSa('reader');
    const r = await tokenRequest('reader');
    assert.equal(r.status, 201, r.body);
    const tr = r.json<{ kind: string; apiVersion: string; metadata: { name: string; namespace: string }; spec: { audiences: string[]; expirationSeconds: number }; status: { token: string; expirationTimestamp: string } }>();
    assert.equal(tr.kind, 'TokenRequest');
    assert.equal(tr.apiVersion, TR_VERSION);
    assert.deepEqual(tr.metadata, { ...tr.metadata, name: 'reader', namespace: 'default' });
    assert.deepEqual(tr.spec, { audiences: [ISSUER, SECOND_ISSUER], expirationSeconds: 3600 });
    const claims = decodeJwt(tr.status.token);
    assert.equal(claims.iss, ISSUER);
    assert.equal(claims.sub, 'system:serviceaccount:default:reader');
    assert.deepEqual(claims.aud, [ISSUER, SECOND_ISSUER]);
    assert.equal(claims.exp! - claims.iat!, 3600);
    assert.equal(Date.parse(tr.status.expirationTimestamp) / 1000, claims.exp);
    assert.deepEqual(claims[names.serviceAccountTokens.privateClaim], { namespace: 'default', serviceaccount: { name: 'reader', uid } });
    assert.equal(decodeProtectedHeader(tr.status.token).kid, keyId(createPublicKey(srv.server.files.saPrivateKey)));
    const got = await whoCanList(tr.status.token);
    assert.equal(got.status, 200, got.body);
  });

  it('work on the uWS listener too', { skip: SKIP_WITHOUT_UWS }, async () => {
    await createSa('uws-reader');
    const token = await issue('uws-reader');
    const got = await whoCanList(token, true);
    assert.equal(got.status, 200, got.body);
  });

  it('every issuer is accepted: a token of the second one works', async () => {
    const uid = await createSa('second');
    const now = Math.floor(Date.now() / 1000);
    const token = await sign(boundClaims({ issuer: SECOND_ISSUER, namespace: 'default', serviceAccount: { name: 'second', uid }, audiences: [SECOND_ISSUER], now, expirationSeconds: 600, warnAfterSeconds: 0 }));
    assert.equal((await whoCanList(token)).status, 200);
  });
});

describe('rejected tokens', () => {
  it('bad signature, expired, wrong audience, wrong issuer and malformed are 401 Statuses on both front ends, and nothing of them is logged', async () => {
    const uid = await createSa('victim');
    const now = Math.floor(Date.now() / 1000);
    const base = { namespace: 'default', serviceAccount: { name: 'victim', uid }, now, warnAfterSeconds: 0 };
    const good = await issue('victim');
    const [h, p] = good.split('.');
    const badSignature = `${h}.${p}.${Buffer.alloc(256, 7).toString('base64url')}`;
    const expired = await sign(boundClaims({ ...base, issuer: ISSUER, audiences: [ISSUER], now: now - 7200, expirationSeconds: 3600 }));
    const wrongAudience = await sign(boundClaims({ ...base, issuer: ISSUER, audiences: ['someone-else'], expirationSeconds: 600 }));
    const wrongIssuer = await sign(boundClaims({ ...base, issuer: 'https://not-ours.example', audiences: [ISSUER], expirationSeconds: 600 }));
    const malformed = `${h}.${p}`;
    const cases = { badSignature, expired, wrongAudience, wrongIssuer, malformed };
    const fronts = SKIP_WITHOUT_UWS ? [false] : [false, true];
    for (const uws of fronts) {
      for (const [what, token] of Object.entries(cases)) assertUnauthorized(await whoCanList(token, uws), `${what} (uws=${uws})`);
    }
    // The debug log has the reasons, never the tokens (their signature parts are what could replay them).
    const logs = logText.join('');
    assert.match(logs, /token has expired/);
    assert.match(logs, /token audiences \[\\"someone-else\\"\] is invalid/);
    for (const [what, token] of Object.entries(cases)) {
      const secretPart = token.split('.')[2] || token.split('.')[1]!;
      assert.ok(!logs.includes(secretPart), `${what} must not appear in the log`);
    }
    assert.ok(!logs.includes(good.split('.')[2]!), 'the issued token must not appear in the log');
  });
});

describe('revocation', () => {
  it('deleting the service account revokes its cached token at once', async () => {
    await createSa('doomed');
    const token = await issue('doomed');
    assert.equal((await whoCanList(token)).status, 200);
    assert.equal((await whoCanList(token)).status, 200, 'second use: from the decision cache');
    assert.equal((await srv.request('DELETE', `${NS}/serviceaccounts/doomed`)).status, 200);
    assertUnauthorized(await until401(token), 'after the service account was deleted');
    // A new service account of the same name (another uid) does not revive it.
    await createSa('doomed');
    assertUnauthorized(await whoCanList(token), 'after the service account was re-created');
  });

  it('a pod-bound token stops when the pod is deleted', async () => {
    await createSa('runner');
    const pod = await srv.request('POST', `${NS}/pods`, { metadata: { name: 'runner-pod' }, spec: { serviceAccountName: 'runner', containers: [{ name: 'c', image: 'busybox' }] } });
    assert.equal(pod.status, 201, pod.body);
    const podUid = pod.json<{ metadata: { uid: string } }>().metadata.uid;
    const token = await issue('runner', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'runner-pod', uid: podUid } });
    assert.deepEqual((decodeJwt(token)[names.serviceAccountTokens.privateClaim] as { pod: unknown }).pod, { name: 'runner-pod', uid: podUid });
    assert.equal((await whoCanList(token)).status, 200);
    const del = await srv.request('DELETE', `${NS}/pods/runner-pod`, { gracePeriodSeconds: 0 });
    assert.equal(del.status, 200, del.body);
    assertUnauthorized(await until401(token), 'after the pod was deleted');
  });

  it('a secret-bound token stops when the secret is deleted', async () => {
    await createSa('holder');
    assert.equal((await srv.request('POST', `${NS}/secrets`, { metadata: { name: 'anchor' }, data: {} })).status, 201);
    const token = await issue('holder', { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 'anchor' } });
    assert.equal((await whoCanList(token)).status, 200);
    assert.equal((await srv.request('DELETE', `${NS}/secrets/anchor`)).status, 200);
    assertUnauthorized(await until401(token), 'after the secret was deleted');
  });
});

describe('legacy secret-based tokens', () => {
  it('authenticate while their secret holds them and stop when it goes', async () => {
    const uid = await createSa('legacy');
    const token = await sign(legacyClaims({ namespace: 'default', serviceAccount: { name: 'legacy', uid }, secretName: 'legacy-token' }));
    const secret = await srv.request('POST', `${NS}/secrets`, {
      metadata: { name: 'legacy-token', annotations: { [names.annotations.serviceAccountName]: 'legacy', [`${names.domain}/service-account.uid`]: uid } },
      type: names.secretTypes.serviceAccountToken,
      data: { token: Buffer.from(token).toString('base64') },
    });
    assert.equal(secret.status, 201, secret.body);
    let r = await whoCanList(token);
    for (let i = 0; r.status !== 200 && i < 50; i++) {
      // The watch cache may not have the secret yet.
      await new Promise((res) => setTimeout(res, 20));
      r = await whoCanList(token);
    }
    assert.equal(r.status, 200, r.body);
    assert.equal((await srv.request('DELETE', `${NS}/secrets/legacy-token`)).status, 200);
    assertUnauthorized(await until401(token), 'after the secret was deleted');
  });
});

describe('TokenRequest validation', () => {
  before(async () => {
    await createSa('strict');
  });

  it('expirationSeconds below 600 is 422 Invalid, as the original', async () => {
    const r = await tokenRequest('strict', { expirationSeconds: 599 });
    assert.equal(r.status, 422, r.body);
    const s = r.json<{ reason: string; message: string; details: { kind: string; group: string; causes: Array<{ field: string; reason: string }> } }>();
    assert.equal(s.reason, 'Invalid');
    assert.equal(s.message, `TokenRequest.${apiGroup('authentication')} "" is invalid: spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes`);
    assert.deepEqual(s.details.causes.map((c) => [c.field, c.reason]), [['spec.expirationSeconds', 'FieldValueInvalid']]);
  });

  it('a missing service account is 404; a name that contradicts the URL is 422', async () => {
    const missing = await tokenRequest('nobody');
    assert.equal(missing.status, 404, missing.body);
    assert.match(missing.json<{ message: string }>().message, /serviceaccounts "nobody" not found/);
    const mismatch = await tokenRequest('strict', {}, { metadata: { name: 'other' } });
    assert.equal(mismatch.status, 422, mismatch.body);
    assert.match(mismatch.json<{ message: string }>().message, /metadata.name: Invalid value: "other": must match the service account name if specified/);
  });

  it('boundObjectRef: another kind is 400, a missing object 404, a stale uid 409, a pod of another service account 400', async () => {
    const node = await tokenRequest('strict', { boundObjectRef: { kind: 'Node', apiVersion: 'v1', name: 'n1' } });
    assert.equal(node.status, 400, node.body);
    assert.equal(node.json<{ message: string }>().message, 'cannot bind token to object of type /v1, Kind=Node');
    const gone = await tokenRequest('strict', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'ghost' } });
    assert.equal(gone.status, 404, gone.body);
    assert.equal((await srv.request('POST', `${NS}/pods`, { metadata: { name: 'other-sa-pod' }, spec: { serviceAccountName: 'default', containers: [{ name: 'c', image: 'x' }] } })).status, 201);
    const foreign = await tokenRequest('strict', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'other-sa-pod' } });
    assert.equal(foreign.status, 400, foreign.body);
    assert.match(foreign.json<{ message: string }>().message, /cannot bind token for serviceaccount "strict" to pod running with different serviceaccount name/);
    assert.equal((await srv.request('POST', `${NS}/secrets`, { metadata: { name: 'strict-anchor' } })).status, 201);
    const stale = await tokenRequest('strict', { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 'strict-anchor', uid: 'not-the-uid' } });
    assert.equal(stale.status, 409, stale.body);
    assert.match(stale.json<{ message: string }>().message, /the UID in the bound object reference \(not-the-uid\) does not match the UID in record/);
  });

  it('a lifetime above --service-account-max-token-expiration is shortened, with a warning', async () => {
    const r = await tokenRequest('strict', { expirationSeconds: 86400 });
    assert.equal(r.status, 201, r.body);
    assert.equal(r.json<{ spec: { expirationSeconds: number } }>().spec.expirationSeconds, 7200);
    assert.match(String(r.headers['warning']), /requested expiration of 86400 seconds shortened to 7200 seconds/);
    const claims = decodeJwt(r.json<{ status: { token: string } }>().status.token);
    assert.equal(claims.exp! - claims.iat!, 7200);
  });

  it('a pod-bound token asked for 3607 s lives a year, warning after the request; the status shows the request', async () => {
    await createSa('kubelet-like');
    assert.equal((await srv.request('POST', `${NS}/pods`, { metadata: { name: 'projected' }, spec: { serviceAccountName: 'kubelet-like', containers: [{ name: 'c', image: 'x' }] } })).status, 201);
    const r = await tokenRequest('kubelet-like', { expirationSeconds: 3607, boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'projected' } });
    assert.equal(r.status, 201, r.body);
    const body = r.json<{ status: { token: string; expirationTimestamp: string } }>();
    const claims = decodeJwt(body.status.token);
    assert.equal(claims.exp! - claims.iat!, 365 * 24 * 3600);
    assert.equal((claims[names.serviceAccountTokens.privateClaim] as { warnafter: number }).warnafter, claims.iat! + 3607);
    assert.equal(Date.parse(body.status.expirationTimestamp) / 1000, claims.iat! + 3607);
  });

  it('dryRun is accepted and, as the original of v1.25, still answers with a token', async () => {
    const r = await srv.request('POST', `${NS}/serviceaccounts/strict/token?dryRun=All`, { apiVersion: TR_VERSION, kind: 'TokenRequest', spec: {} });
    assert.equal(r.status, 201, r.body);
    assert.equal((await whoCanList(r.json<{ status: { token: string } }>().status.token)).status, 200);
    const bad = await srv.request('POST', `${NS}/serviceaccounts/strict/token?dryRun=Some`, { spec: {} });
    assert.equal(bad.status, 422, bad.body);
  });

  it('a body of the wrong kind or version is a 400', async () => {
    const wrongKind = await srv.request('POST', `${NS}/serviceaccounts/strict/token`, { apiVersion: TR_VERSION, kind: 'TokenReview', spec: {} });
    assert.equal(wrongKind.status, 400, wrongKind.body);
    const wrongSpec = await srv.request('POST', `${NS}/serviceaccounts/strict/token`, { apiVersion: TR_VERSION, kind: 'TokenRequest', spec: { audiences: 'one' } });
    assert.equal(wrongSpec.status, 400, wrongSpec.body);
  });

  it('odd bodies get a Status (or a token), never a crash', async () => {
    const bodies: unknown[] = [
      null, [], 'str', {}, { spec: null }, { spec: [] }, { spec: { expirationSeconds: 1e300 } }, { spec: { expirationSeconds: -5 } },
      { spec: { expirationSeconds: '3600' } }, { spec: { expirationSeconds: 9007199254740993 } }, { spec: { audiences: [1] } },
      { spec: { boundObjectRef: 'x' } }, { spec: { boundObjectRef: { kind: 5 } } }, { spec: { boundObjectRef: { kind: 'Pod', apiVersion: 'a/b/c', name: '' } } },
      { metadata: { name: 5 } }, { metadata: null }, { status: { token: 'forged' } },
    ];
    for (const b of bodies) {
      const r = await srv.request('POST', `${NS}/serviceaccounts/strict/token`, JSON.stringify(b));
      const body = r.json<{ kind: string; code?: number; status?: { token?: string } }>();
      if (r.status === 201) {
        assert.equal(body.kind, 'TokenRequest', JSON.stringify(b));
        assert.notEqual(body.status?.token, 'forged');
      } else {
        assert.ok(r.status >= 400 && r.status < 500, `${JSON.stringify(b)}: ${r.status} ${r.body}`);
        assert.equal(body.kind, 'Status');
        assert.equal(body.code, r.status);
      }
    }
    const clusterWide = await srv.request('POST', '/api/v1/serviceaccounts/strict/token', {});
    assert.equal(clusterWide.status, 404, clusterWide.body);
  });

  it('is listed in discovery as the original lists it', async () => {
    const v1 = (await srv.request('GET', '/api/v1')).json<{ resources: Array<Record<string, unknown>> }>();
    assert.deepEqual(
      v1.resources.find((r) => r['name'] === 'serviceaccounts/token'),
      { name: 'serviceaccounts/token', singularName: '', namespaced: true, group: apiGroup('authentication'), version: 'v1', kind: 'TokenRequest', verbs: ['create'] },
    );
    const get = await srv.request('GET', `${NS}/serviceaccounts/strict/token`);
    assert.equal(get.status, 405, get.body);
  });
});

describe('TokenReview of service-account tokens', () => {
  it('reports the user, pod extras and the audiences the token is valid for', async () => {
    await createSa('reviewed');
    const token = await issue('reviewed', { audiences: ['vault', ISSUER] });
    const review = async (audiences?: string[]) =>
      srv.request('POST', `/apis/${apiGroup('authentication')}/v1/tokenreviews`, { apiVersion: `${apiGroup('authentication')}/v1`, kind: 'TokenReview', spec: { token, ...(audiences ? { audiences } : {}) } });
    const forVault = (await review(['vault', 'other'])).json<{ status: { authenticated: boolean; user: { username: string; groups: string[] }; audiences: string[] } }>();
    assert.equal(forVault.status.authenticated, true);
    assert.equal(forVault.status.user.username, 'system:serviceaccount:default:reviewed');
    assert.deepEqual(forVault.status.user.groups, ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated']);
    assert.deepEqual(forVault.status.audiences, ['vault']);
    const forApi = (await review()).json<{ status: { authenticated: boolean; audiences: string[] } }>();
    assert.equal(forApi.status.authenticated, true);
    assert.deepEqual(forApi.status.audiences, [ISSUER]);
    const elsewhere = (await review(['nowhere'])).json<{ status: { authenticated: boolean; error: string } }>();
    assert.equal(elsewhere.status.authenticated, false);
    assert.ok(!elsewhere.status.error.includes(token.split('.')[2]!));
  });
});

describe('issuer discovery', () => {
  it('serves the OpenID configuration and the JWKS to an authenticated client; without a credential 401 (AlwaysAllow turns anonymous off)', async () => {
    // The original has no bypass for these paths (test/authz/issuer-discovery.test.ts has the RBAC cases).
    assertUnauthorized(await srv.request('GET', '/.well-known/openid-configuration', undefined, { as: 'none' }), 'no credential on the configuration');
    assertUnauthorized(await srv.request('GET', '/openid/v1/jwks', undefined, { as: 'none' }), 'no credential on the JWKS');
    const config = await srv.request('GET', '/.well-known/openid-configuration', undefined, { as: 'token' });
    assert.equal(config.status, 200, config.body);
    assert.equal(config.headers['content-type'], 'application/json');
    assert.equal(config.headers['cache-control'], 'public, max-age=3600');
    assert.deepEqual(config.json(), {
      issuer: ISSUER,
      jwks_uri: `https://127.0.0.1:${srv.securePort}/openid/v1/jwks`,
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
    });
    const jwks = await srv.request('GET', '/openid/v1/jwks', undefined, { as: 'token' });
    assert.equal(jwks.status, 200, jwks.body);
    assert.equal(jwks.headers['content-type'], 'application/jwk-set+json');
    const keys = jwks.json<{ keys: Array<Record<string, string>> }>().keys;
    assert.equal(keys.length, 1);
    assert.deepEqual(Object.keys(keys[0]!).sort(), ['alg', 'e', 'kid', 'kty', 'n', 'use']);
    assert.equal(keys[0]!['kid'], keyId(createPublicKey(srv.server.files.saPrivateKey)));
    // A bad credential is still a 401 there.
    assertUnauthorized(await srv.request('GET', '/openid/v1/jwks', undefined, { as: { token: 'nonsense-token' } }), 'bad token on the JWKS');
  });

  it('an external verifier (jose remote JWKS over HTTPS) accepts our tokens', async () => {
    await createSa('external');
    const token = await issue('external', { audiences: ['vault'] });
    const ca = await readFile(srv.server.files.caCertPath);
    // The verifier fetches with a token of its own, as an in-cluster one with its service account's.
    await createSa('verifier');
    const own = await issue('verifier');
    const config = (await srv.request('GET', '/.well-known/openid-configuration', undefined, { as: { token: own } })).json<{ issuer: string; jwks_uri: string }>();
    const agent = new https.Agent({ ca });
    const fetchWithCa = (url: string, options: { headers: Headers; signal: AbortSignal }): Promise<Response> =>
      new Promise((resolve, reject) => {
        const req = https.get(url, { agent, headers: { ...Object.fromEntries(options.headers.entries()), authorization: `Bearer ${own}` }, signal: options.signal, servername: 'localhost' }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve(new Response(Buffer.concat(chunks), { status: res.statusCode ?? 0, headers: { 'content-type': String(res.headers['content-type']) } })));
          res.on('error', reject);
        });
        req.on('error', reject);
      });
    const jwks = createRemoteJWKSet(new URL(config.jwks_uri), { [customFetch]: fetchWithCa });
    const verified = await jwtVerify(token, jwks, { issuer: config.issuer, audience: 'vault' });
    assert.equal(verified.payload.sub, 'system:serviceaccount:default:external');
    agent.destroy();
  });
});
