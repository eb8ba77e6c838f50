/**
 * A provider that is not reachable when the server starts: the server
 * starts anyway, other credentials work, OIDC tokens are 401 (never
 * anonymous) until the provider answers, then work without a restart.
 */
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { UWS_DISABLED } from '../support/uws-toggle.ts';
import { createTestIdp, type TestIdp } from './support/idp.ts';

const CLIENT = 'orch-down';
const PATH = '/api/v1/namespaces';
let idp: TestIdp;
let srv: TestServer;

before(async () => {
  idp = await createTestIdp({ clientId: CLIENT, listen: false });
  srv = await startTestServer([
    `--oidc-issuer-url=${idp.issuer}`,
    `--oidc-client-id=${CLIENT}`,
    `--oidc-ca-file=${idp.tls.caFile}`,
    // AlwaysDeny keeps anonymous on (403, not 401); the OIDC user passes as system:masters through its groups claim.
    '--authorization-mode=AlwaysDeny',
    '--oidc-groups-claim=groups',
    '--oidc-groups-prefix=system:',
  ]);
});

after(async () => {
  await srv?.stop();
  await idp?.close();
});

it('starts, serves other credentials, rejects OIDC tokens with 401 until the provider is up, then accepts them', async () => {
  const token = await idp.sign({ groups: ['masters'] });
  const fronts = UWS_DISABLED ? [false] : [false, true];
  for (const uws of fronts) {
    assert.equal((await srv.request('GET', PATH, undefined, { as: 'token', uws })).status, 200, 'static token');
    const r = await srv.request('GET', PATH, undefined, { as: { token }, uws });
    assert.equal(r.status, 401, 'an OIDC token while the provider is down');
    assert.equal(r.json()['reason'], 'Unauthorized');
    assert.equal((await srv.request('GET', PATH, undefined, { as: 'none', uws })).status, 403, 'anonymous is still anonymous (denied, not 401)');
  }
  await idp.listen();
  // Retried in the background (1 s, 2 s, 4 s, ... at most 10 s apart).
  let status = 0;
  for (let i = 0; i < 300 && status !== 200; i++) {
    status = (await srv.request('GET', PATH, undefined, { as: { token } })).status;
    if (status !== 200) await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(status, 200);
  for (const uws of fronts) assert.equal((await srv.request('GET', PATH, undefined, { as: { token }, uws })).status, 200);
  assert.ok(idp.hits.discovery >= 1 && idp.hits.jwks >= 1);
});
