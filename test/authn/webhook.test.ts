/**
 * The token webhook authenticator against a real HTTPS webhook on loopback
 * that requires our client certificate: both TokenReview versions, user
 * mapping, caching for the TTL (counted on the webhook), shared calls,
 * errors and timeouts (never a user), audiences, the connection file and
 * the flags.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { WebhookTokenAuthenticator } from '../../src/authn/webhook/authenticator.ts';
import { TokenReviewClient } from '../../src/authn/webhook/client.ts';
import { loadWebhookKubeconfig, type WebhookConnection } from '../../src/authn/webhook/kubeconfig.ts';
import type { TokenWebhookVersion } from '../../src/authn/webhook/config.ts';
import { parseArgs } from '../../src/server/options.ts';
import { apiGroup } from '../../src/naming/index.ts';
import type { AuthResult } from '../../src/authn/types.ts';
import { createTestWebhook, reviewAnswer, type TestWebhook } from './support/webhook-server.ts';

const GROUP = apiGroup('authentication');
const TOKEN = 'opaque-token-0123456789abcdef';

let hook: TestWebhook;
let conn: WebhookConnection;

before(async () => {
  hook = await createTestWebhook();
  conn = await loadWebhookKubeconfig(await hook.kubeconfig());
});
after(async () => {
  await hook.close();
});

interface Made {
  readonly authn: WebhookTokenAuthenticator;
  setNow(ms: number): void;
}

function make(version: TokenWebhookVersion, o: { ttlMs?: number; timeoutMs?: number; implicit?: string[]; connection?: WebhookConnection } = {}): Made {
  let now = Date.now();
  const client = new TokenReviewClient({ connection: o.connection ?? conn, timeoutMs: o.timeoutMs ?? 5000, backoff: { initialMs: 10, factor: 1.5, jitter: 0.2, steps: 5 } });
  const authn = new WebhookTokenAuthenticator({
    client,
    group: GROUP,
    version,
    cacheTtlMs: o.ttlMs ?? 120_000,
    ...(o.implicit ? { implicitAudiences: o.implicit } : {}),
    now: () => now,
  });
  return { authn, setNow: (ms) => (now = ms) };
}

function assertInvalid(r: AuthResult, includes: string): void {
  assert.equal(r.kind, 'invalid', JSON.stringify(r));
  if (r.kind === 'invalid') {
    assert.ok(r.message.includes(includes), `${r.message} should mention ${includes}`);
    assert.ok(!r.message.includes(TOKEN));
  }
}

for (const version of ['v1beta1', 'v1'] as const) {
  describe(`token webhook ${version}`, () => {
    const apiVersion = `${GROUP}/${version}`;

    it('sends a TokenReview of its version with our client certificate and maps the user', async () => {
      hook.calls.length = 0;
      hook.answer = () =>
        reviewAnswer(apiVersion, { authenticated: true, user: { username: 'jane', uid: '42', groups: ['dev', 'ops'], extra: { scopes: ['a', 'b'] } } });
      const { authn } = make(version);
      const r = await authn.authenticateToken(TOKEN);
      assert.deepEqual(r, { kind: 'user', user: { name: 'jane', uid: '42', groups: ['dev', 'ops'], extra: { scopes: ['a', 'b'] } }, method: 'webhook' });
      assert.equal(hook.calls.length, 1);
      const call = hook.calls[0]!;
      assert.equal(call.clientCN, 'orch-apiserver');
      assert.equal(call.body['apiVersion'], apiVersion);
      assert.equal(call.body['kind'], 'TokenReview');
      assert.deepEqual(call.body['spec'], { token: TOKEN });
      authn.close();
    });

    it('rejects answers of another version or kind, and malformed ones, as errors', async () => {
      const other = version === 'v1' ? 'v1beta1' : 'v1';
      const cases: Array<[unknown, string]> = [
        [{ apiVersion: `${GROUP}/${other}`, kind: 'TokenReview', status: { authenticated: true, user: { username: 'x' } } }, 'expected a TokenReview'],
        [{ apiVersion, kind: 'Status', status: { authenticated: true, user: { username: 'x' } } }, 'expected a TokenReview'],
        [{ apiVersion, kind: 'TokenReview', status: { authenticated: true, user: {} } }, 'username is missing'],
        [{ apiVersion, kind: 'TokenReview', status: { authenticated: 'yes' } }, 'must be a boolean'],
        [{ apiVersion, kind: 'TokenReview', status: { authenticated: true, user: { username: 'x', groups: 'g' } } }, 'groups must be a list'],
        ['not json at all', 'not JSON'],
      ];
      for (const [body, why] of cases) {
        hook.answer = () => ({ status: 200, body });
        const { authn } = make(version);
        assertInvalid(await authn.authenticateToken(TOKEN), why);
        authn.close();
      }
    });

    it('caches yes and no answers for the TTL, counted on the webhook', async () => {
      hook.calls.length = 0;
      hook.answer = (review) =>
        (review['spec'] as { token: string }).token === TOKEN
          ? reviewAnswer(apiVersion, { authenticated: true, user: { username: 'jane' } })
          : reviewAnswer(apiVersion, { authenticated: false, error: 'unknown token' });
      const m = make(version, { ttlMs: 60_000 });
      const t0 = Date.now();
      m.setNow(t0);
      for (let i = 0; i < 5; i++) assert.equal((await m.authn.authenticateToken(TOKEN)).kind, 'user');
      for (let i = 0; i < 5; i++) assertInvalid(await m.authn.authenticateToken('other-token-xyz'), 'unknown token');
      assert.equal(hook.calls.length, 2, 'one call per token within the TTL');
      m.setNow(t0 + 59_000);
      await m.authn.authenticateToken(TOKEN);
      assert.equal(hook.calls.length, 2);
      m.setNow(t0 + 60_001);
      await m.authn.authenticateToken(TOKEN);
      await m.authn.authenticateToken('other-token-xyz');
      assert.equal(hook.calls.length, 4, 'asked again after the TTL');
      m.authn.close();
      const uncached = make(version, { ttlMs: 0 });
      await uncached.authn.authenticateToken(TOKEN);
      await uncached.authn.authenticateToken(TOKEN);
      assert.equal(hook.calls.length, 6, 'a TTL of 0 caches nothing');
      uncached.authn.close();
    });
  });
}

describe('token webhook failures: never a user', () => {
  const apiVersion = `${GROUP}/v1beta1`;

  it('retries 5xx with backoff, then rejects, and does not cache the failure', async () => {
    hook.calls.length = 0;
    hook.answer = () => ({ status: 500, body: { kind: 'Status', message: 'database down' } });
    const { authn } = make('v1beta1');
    assertInvalid(await authn.authenticateToken(TOKEN), 'webhook answered 500: database down');
    assert.equal(hook.calls.length, 5, 'five attempts');
    hook.answer = () => reviewAnswer(apiVersion, { authenticated: true, user: { username: 'jane' } });
    assert.equal((await authn.authenticateToken(TOKEN)).kind, 'user', 'the outage was not cached');
    authn.close();
  });

  it('does not retry a 4xx', async () => {
    hook.calls.length = 0;
    hook.answer = () => ({ status: 403, body: 'no' });
    const { authn } = make('v1beta1');
    assertInvalid(await authn.authenticateToken(TOKEN), 'webhook answered 403');
    assert.equal(hook.calls.length, 1);
    authn.close();
  });

  it('masks the token when the webhook echoes it back in its reasons', async () => {
    const warnings: string[] = [];
    const logger = { warn: (o: object, m: string) => void warnings.push(JSON.stringify(o) + m) };
    const client = new TokenReviewClient({ connection: conn });
    const authn = new WebhookTokenAuthenticator({ client, group: GROUP, version: 'v1beta1', cacheTtlMs: 0, logger });
    hook.answer = () => ({ status: 403, body: { kind: 'Status', message: `token ${TOKEN} is banned` } });
    assertInvalid(await authn.authenticateToken(TOKEN), '[redacted]');
    hook.answer = () => reviewAnswer(apiVersion, { authenticated: false, error: `no such token ${TOKEN}` });
    assertInvalid(await authn.authenticateToken(TOKEN), '[redacted]');
    assert.equal(warnings.length, 1);
    assert.ok(!warnings[0]!.includes(TOKEN));
    authn.close();
  });

  it('gives up at the deadline when the webhook hangs', async () => {
    hook.answer = () => 'hang';
    const { authn } = make('v1beta1', { timeoutMs: 300 });
    assertInvalid(await authn.authenticateToken(TOKEN), 'no answer within 300 ms');
    authn.close();
  });

  it('shares one call among concurrent reviews of a token', async () => {
    hook.calls.length = 0;
    hook.answer = () => reviewAnswer(apiVersion, { authenticated: true, user: { username: 'jane' } });
    const { authn } = make('v1beta1');
    const results = await Promise.all(Array.from({ length: 10 }, () => authn.authenticateToken('shared-token-0123456789')));
    assert.ok(results.every((r) => r.kind === 'user'));
    assert.equal(hook.calls.length, 1);
    authn.close();
  });

  it('fails without a client certificate the webhook accepts, and when nothing listens', async () => {
    hook.answer = () => reviewAnswer(apiVersion, { authenticated: true, user: { username: 'jane' } });
    const noCert = make('v1beta1', { connection: { ...conn, clientCertPem: undefined, clientKeyPem: undefined } });
    assert.equal((await noCert.authn.authenticateToken(TOKEN)).kind, 'invalid');
    noCert.authn.close();
    const nowhere = make('v1beta1', { connection: { ...conn, server: new URL('https://127.0.0.1:1/authenticate') } });
    assert.equal((await nowhere.authn.authenticateToken(TOKEN)).kind, 'invalid');
    nowhere.authn.close();
  });
});

describe('token webhook audiences', () => {
  const apiVersion = `${GROUP}/v1`;

  it('passes requested audiences and requires the answer to cover one', async () => {
    hook.calls.length = 0;
    let granted: string[] | undefined = ['api'];
    hook.answer = () => reviewAnswer(apiVersion, { authenticated: true, user: { username: 'jane' }, ...(granted ? { audiences: granted } : {}) });
    const { authn } = make('v1', { implicit: ['orch'] });
    assert.deepEqual(await authn.authenticateToken(TOKEN, undefined, ['api', 'other']), { kind: 'user', user: { name: 'jane', groups: [] }, method: 'webhook', audiences: ['api'] });
    assert.deepEqual((hook.calls[0]!.body['spec'] as { audiences: string[] }).audiences, ['api', 'other']);
    granted = ['vault'];
    assertInvalid(await authn.authenticateToken(`${TOKEN}-2`, undefined, ['api']), 'requested audiences');
    granted = undefined;
    assert.equal((await authn.authenticateToken(`${TOKEN}-3`, undefined, ['orch'])).kind, 'user', "the server's own audience when none named");
    assertInvalid(await authn.authenticateToken(`${TOKEN}-4`, undefined, ['elsewhere']), 'requested audiences');
    authn.close();
  });
});

describe('token webhook connection file and flags', () => {
  it('reads inline data and files relative to the kubeconfig', async () => {
    const inline = await loadWebhookKubeconfig(await hook.kubeconfig({ clientCN: 'inline-client', inline: true }));
    assert.equal(inline.server.href, hook.url);
    assert.match(inline.caPem ?? '', /BEGIN CERTIFICATE/);
    assert.match(inline.clientKeyPem ?? '', /BEGIN PRIVATE KEY/);
    assert.match(conn.clientCertPem ?? '', /BEGIN CERTIFICATE/);
  });

  it('refuses plain http, insecure-skip-tls-verify, exec users, a missing context, unreadable files', async () => {
    const base = (cluster: string, user = '    token: abc'): string =>
      ['clusters:', '- name: c', '  cluster:', cluster, 'users:', '- name: u', '  user:', user, 'contexts:', '- name: x', '  context:', '    cluster: c', '    user: u', 'current-context: x', ''].join('\n');
    const cases: Array<[string, RegExp]> = [
      [base('    server: http://127.0.0.1:1'), /must be https/],
      [base('    server: https://127.0.0.1:1\n    insecure-skip-tls-verify: true'), /insecure-skip-tls-verify/],
      [base('    server: https://127.0.0.1:1', '    exec:\n      command: x'), /exec/],
      [base('    server: https://127.0.0.1:1', '    client-certificate: missing.crt\n    client-key: missing.key'), /cannot read/],
      [base('    server: https://127.0.0.1:1').replace('current-context: x', 'current-context: y'), /context "y" not found/],
      ['- just a list', /expected a mapping/],
    ];
    for (const [text, re] of cases) {
      const file = await hook.tls.write('bad.kubeconfig', text);
      await assert.rejects(loadWebhookKubeconfig(file), re);
    }
  });

  it('parses the flags with their defaults', () => {
    const d = parseArgs([]).tokenWebhook;
    assert.deepEqual(d, { configFile: undefined, cacheTtlMs: 120_000, version: 'v1beta1' });
    const o = parseArgs([`--authentication-token-webhook-config-file=${hook.tls.caFile}`, '--authentication-token-webhook-cache-ttl=30s', '--authentication-token-webhook-version=v1']).tokenWebhook;
    assert.deepEqual(o, { configFile: hook.tls.caFile, cacheTtlMs: 30_000, version: 'v1' });
    assert.throws(() => parseArgs(['--authentication-token-webhook-version=v2']), /must be one of v1, v1beta1/);
    assert.throws(() => parseArgs(['--authentication-token-webhook-config-file=/nonexistent']), /cannot read/);
  });
});
