/**
 * The token webhook end to end: started servers with
 * --authentication-token-webhook-* flags and a real HTTPS webhook on
 * loopback that requires their client certificate, on both front ends.
 * AlwaysDeny makes answers show the identity (403 names the user; a
 * system:masters group is let through) and keeps anonymous on, so a 401
 * proves a failed review did not become anonymous.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { SKIP_WITHOUT_UWS } from '../support/uws-toggle.ts';
import { apiGroup } from '../../src/naming/index.ts';
import { createTestWebhook, reviewAnswer, type TestWebhook } from './support/webhook-server.ts';
import { captureLogs, type LogCapture } from './support/log-capture.ts';

const GROUP = apiGroup('authentication');
const PATH = '/api/v1/namespaces';

let hook: TestWebhook;
let beta: TestServer;
let v1: TestServer;
let logs: LogCapture;
const sent: string[] = [];
let counter = 0;

/** A fresh token per call (so the cache never hides a call), remembered for the log check. */
function token(kind: string): string {
  const t = `${kind}-${++counter}-${'s3cr3t'.repeat(4)}`;
  sent.push(t);
  return t;
}

before(async () => {
  hook = await createTestWebhook();
  hook.answer = (review) => {
    const apiVersion = String(review['apiVersion']);
    const t = (review['spec'] as { token: string }).token;
    if (t.startsWith('admin-')) return reviewAnswer(apiVersion, { authenticated: true, user: { username: 'wh-admin', groups: ['system:masters'] } });
    if (t.startsWith('aud-')) return reviewAnswer(apiVersion, { authenticated: true, user: { username: 'wh-aud' }, audiences: ['vault'] });
    if (t.startsWith('user-')) return reviewAnswer(apiVersion, { authenticated: true, user: { username: 'wh-user', uid: 'u1', groups: ['dev'] } });
    if (t.startsWith('fail500-')) return { status: 500, body: { kind: 'Status', message: 'down' } };
    if (t.startsWith('fail403-')) return { status: 403, body: 'forbidden' };
    if (t.startsWith('garbage-')) return { status: 200, body: 'this is not json' };
    if (t.startsWith('wrongversion-')) return reviewAnswer(apiVersion.endsWith('/v1') ? `${GROUP}/v1beta1` : `${GROUP}/v1`, { authenticated: true, user: { username: 'x', groups: ['system:masters'] } });
    return reviewAnswer(apiVersion, { authenticated: false, error: 'unknown token' });
  };
  const kubeconfig = await hook.kubeconfig();
  logs = captureLogs();
  beta = await startTestServer([`--authentication-token-webhook-config-file=${kubeconfig}`, '--authorization-mode=AlwaysDeny'], {
    logs: { level: 'debug', destination: logs.destination },
  });
  v1 = await startTestServer([
    `--authentication-token-webhook-config-file=${kubeconfig}`,
    '--authentication-token-webhook-version=v1',
    '--authentication-token-webhook-cache-ttl=1s',
    '--authorization-mode=AlwaysDeny',
  ]);
});

after(async () => {
  await beta?.stop();
  await v1?.stop();
  await hook?.close();
});

for (const [label, server, version] of [
  ['v1beta1', () => beta, 'v1beta1'],
  ['v1', () => v1, 'v1'],
] as const) {
  for (const uws of [false, true]) {
    describe(`token webhook ${label} end to end (${uws ? 'uWS listener' : 'secure port'})`, { skip: uws ? SKIP_WITHOUT_UWS : false }, () => {
      const get = (t: string) => server().request('GET', PATH, undefined, { as: { token: t }, uws });

      it('authenticates through the webhook, which sees a TokenReview of its version', async () => {
        const before = hook.calls.length;
        const r = await get(token('user'));
        assert.equal(r.status, 403);
        assert.match(String(r.json()['message']), /User "wh-user" cannot list resource "namespaces"/);
        const call = hook.calls[before]!;
        assert.equal(call.body['apiVersion'], `${GROUP}/${version}`);
        assert.equal(call.clientCN, 'orch-apiserver');
        assert.equal((await get(token('admin'))).status, 200, 'groups from the webhook (system:masters)');
      });

      for (const kind of ['denied', 'fail403', 'garbage', 'wrongversion']) {
        it(`${kind}: 401 with a Status, not anonymous`, async () => {
          const r = await get(token(kind));
          assert.equal(r.status, 401);
          assert.equal(r.json()['kind'], 'Status');
          assert.equal(r.json()['reason'], 'Unauthorized');
        });
      }

      it('other credentials still work (the static token)', async () => {
        assert.equal((await server().request('GET', PATH, undefined, { as: 'token', uws })).status, 200);
      });
    });
  }
}

describe('token webhook end to end: cache and outages', () => {
  it('caches answers for the TTL (2m default: one call for many requests)', async () => {
    const t = token('admin');
    const before = hook.calls.length;
    for (let i = 0; i < 10; i++) assert.equal((await beta.request('GET', PATH, undefined, { as: { token: t } })).status, 200);
    assert.equal(hook.calls.length, before + 1);
  });

  it('asks again once a short TTL (1s) has passed', async () => {
    const t = token('admin');
    const before = hook.calls.length;
    for (let i = 0; i < 3; i++) assert.equal((await v1.request('GET', PATH, undefined, { as: { token: t } })).status, 200);
    assert.equal(hook.calls.length, before + 1);
    await new Promise((r) => setTimeout(r, 1100));
    assert.equal((await v1.request('GET', PATH, undefined, { as: { token: t } })).status, 200);
    assert.equal(hook.calls.length, before + 2);
  });

  it('a webhook answering 500 is retried, then the request is 401 (not cached)', async () => {
    const t = token('fail500');
    const before = hook.calls.length;
    assert.equal((await beta.request('GET', PATH, undefined, { as: { token: t } })).status, 401);
    assert.equal(hook.calls.length, before + 5, 'five attempts with backoff');
  });

  it('TokenReview passes audiences to the webhook and reports the ones it granted', async () => {
    const before = hook.calls.length;
    const t = token('aud');
    const r = await beta.request('POST', `/apis/${GROUP}/v1/tokenreviews`, { apiVersion: `${GROUP}/v1`, kind: 'TokenReview', spec: { token: t, audiences: ['vault', 'other'] } });
    assert.equal(r.status, 201, r.body);
    const status = r.json<{ status: Record<string, unknown> }>().status;
    assert.equal(status['authenticated'], true);
    assert.deepEqual(status['audiences'], ['vault']);
    assert.equal((status['user'] as { username: string }).username, 'wh-aud');
    assert.deepEqual((hook.calls[before]!.body['spec'] as { audiences: string[] }).audiences, ['vault', 'other']);
  });

  it('nothing of any token sent is in the server log, though the rejections are', async () => {
    const text = logs.text();
    assert.match(text, /Unable to authenticate the request/);
    assert.match(text, /webhook: unknown token|webhook answered/);
    for (const t of sent) assert.ok(!text.includes(t), 'a token was logged');
    assert.ok(!text.includes('s3cr3t'));
  });
});
