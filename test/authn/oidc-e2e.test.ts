/**
 * OIDC end to end: a started server with --oidc-* flags and a real identity
 * provider over HTTPS on loopback, on both front ends. The server runs with
 * --authorization-mode=AlwaysDeny so that answers reveal the identity: a
 * 403 names the user, and a group `masters` from the groups claim with
 * --oidc-groups-prefix=system: becomes system:masters, which is let through.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer, type RequestAuth } from '../support/test-server.ts';
import { apiGroup } from '../../src/naming/index.ts';
import { SKIP_WITHOUT_UWS } from '../support/uws-toggle.ts';
import { createTestIdp, type TestIdp } from './support/idp.ts';
import { captureLogs, secretPartsOf, type LogCapture } from './support/log-capture.ts';

const CLIENT = 'orch-e2e';
const PATH = '/api/v1/namespaces';

let idp: TestIdp;
let srv: TestServer;
let logs: LogCapture;
const sent: string[] = [];

before(async () => {
  idp = await createTestIdp({ clientId: CLIENT });
  logs = captureLogs();
  srv = await startTestServer(
    [
      `--oidc-issuer-url=${idp.issuer}`,
      `--oidc-client-id=${CLIENT}`,
      `--oidc-ca-file=${idp.tls.caFile}`,
      '--oidc-groups-claim=groups',
      '--oidc-groups-prefix=system:',
      '--oidc-required-claim=tenant=blue',
      '--authorization-mode=AlwaysDeny',
    ],
    { logs: { level: 'debug', destination: logs.destination } },
  );
  // Discovery runs in the background from the start; wait until tokens are judged by it.
  const probe = await idp.sign({ tenant: 'blue' });
  for (let i = 0; i < 200; i++) {
    if ((await srv.request('GET', PATH, undefined, { as: { token: probe } })).status !== 401) break;
    await new Promise((r) => setTimeout(r, 50));
  }
});

after(async () => {
  await srv?.stop();
  await idp?.close();
});

async function get(token: string, uws: boolean): Promise<{ status: number; body: Record<string, unknown> }> {
  sent.push(token);
  const auth: RequestAuth = { as: { token }, uws };
  const r = await srv.request('GET', PATH, undefined, auth);
  return { status: r.status, body: r.json() };
}

for (const uws of [false, true]) {
  describe(`oidc end to end (${uws ? 'uWS listener' : 'secure port'})`, { skip: uws ? SKIP_WITHOUT_UWS : false }, () => {
    it('a good token authenticates with the issuer-prefixed name', async () => {
      const r = await get(await idp.sign({ tenant: 'blue' }), uws);
      assert.equal(r.status, 403);
      assert.match(String(r.body['message']), new RegExp(`User "${idp.issuer.replace(/[.]/g, '\\.')}#alice" cannot list resource "namespaces"`));
    });

    it('groups from the claim get the prefix (system:masters passes AlwaysDeny)', async () => {
      const r = await get(await idp.sign({ tenant: 'blue', groups: ['masters'] }), uws);
      assert.equal(r.status, 200);
      assert.equal(r.body['kind'], 'NamespaceList');
    });

    const now = (): number => Math.floor(Date.now() / 1000);
    const bad: Array<[string, () => Promise<string>]> = [
      ['bad signature', async () => idp.sign({ tenant: 'blue', groups: ['masters'] }, { key: await idp.newKey(), kid: idp.current.kid })],
      ['expired', () => idp.sign({ tenant: 'blue', groups: ['masters'], exp: now() - 10 })],
      ['nbf in the future', () => idp.sign({ tenant: 'blue', groups: ['masters'], nbf: now() + 600 })],
      ['wrong audience', () => idp.sign({ tenant: 'blue', groups: ['masters'], aud: 'someone-else' })],
      ['wrong issuer', () => idp.sign({ tenant: 'blue', groups: ['masters'], iss: 'https://evil.example' })],
      ['missing required claim', () => idp.sign({ groups: ['masters'] })],
      ['wrong required claim', () => idp.sign({ tenant: 'red', groups: ['masters'] })],
      ['malformed', async () => `${(await idp.sign({ tenant: 'blue' })).slice(0, -6)}@@@@@@`],
      ['not a JWT', async () => 'eyJhbGciOiJSUzI1NiJ9.bm90IGpzb24.c2ln'],
    ];
    for (const [what, make] of bad) {
      it(`${what}: 401 with a Status`, async () => {
        const r = await get(await make(), uws);
        assert.equal(r.status, 401, what);
        assert.equal(r.body['kind'], 'Status');
        assert.equal(r.body['reason'], 'Unauthorized');
        assert.equal(r.body['code'], 401);
      });
    }

    it('other credentials still work (the static token)', async () => {
      const r = await srv.request('GET', PATH, undefined, { as: 'token', uws });
      assert.equal(r.status, 200);
    });
  });
}

describe('oidc end to end: keys and cache', () => {
  it('repeated requests with one token fetch nothing from the provider', async () => {
    const token = await idp.sign({ tenant: 'blue', groups: ['masters'] });
    const before = { ...idp.hits };
    for (let i = 0; i < 20; i++) assert.equal((await get(token, false)).status, 200);
    assert.deepEqual(idp.hits, before);
  });

  it('a rotated signing key is picked up without restart (one key-set fetch)', async () => {
    const jwks = idp.hits.jwks;
    await idp.rotate();
    const token = await idp.sign({ tenant: 'blue', groups: ['masters'] });
    assert.equal((await get(token, false)).status, 200);
    assert.equal(idp.hits.jwks, jwks + 1);
    assert.equal((await get(await idp.sign({ tenant: 'blue', sub: 'carol' }), false)).status, 403);
    assert.equal(idp.hits.jwks, jwks + 1);
  });

  it('TokenReview answers for OIDC tokens through the same authenticator', async () => {
    const review = async (token: string): Promise<Record<string, unknown>> => {
      sent.push(token);
      const group = apiGroup('authentication');
      const r = await srv.request('POST', `/apis/${group}/v1/tokenreviews`, { apiVersion: `${group}/v1`, kind: 'TokenReview', spec: { token } });
      assert.equal(r.status, 201, r.body);
      return r.json<{ status: Record<string, unknown> }>().status;
    };
    const good = await review(await idp.sign({ tenant: 'blue', groups: ['masters'] }));
    assert.equal(good['authenticated'], true);
    assert.deepEqual(good['user'], { username: `${idp.issuer}#alice`, groups: ['system:masters', 'system:authenticated'] });
    const expired = await review(await idp.sign({ tenant: 'blue', exp: Math.floor(Date.now() / 1000) - 60 }));
    assert.equal(expired['authenticated'], false);
    assert.match(String(expired['error']), /token is expired/);
  });

  it('nothing of any token sent is in the server log, though the rejections are', async () => {
    const text = logs.text();
    assert.match(text, /Unable to authenticate the request/);
    assert.match(text, /token is expired/);
    for (const token of sent) for (const part of secretPartsOf(token)) assert.ok(!text.includes(part), 'a token (or a segment of one) was logged');
  });
});
