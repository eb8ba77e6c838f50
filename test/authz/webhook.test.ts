/**
 * The Webhook mode against a REAL HTTPS webhook server on loopback that
 * requires a client certificate (webhook-server.ts): the review sent in
 * either version, allow / deny / no opinion, the answer cache and its two
 * TTLs (counted as hits on the server, with a moved clock), and failures
 * (HTTP errors, timeouts, wrong answers, TLS refusal) giving no opinion so
 * the chain goes on. Then a server started with the webhook flags.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadWebhookConfig, WebhookAuthorizer, WebhookClient, type WebhookAuthorizerOptions } from '../../src/authz/webhook/index.ts';
import { buildAuthorization } from '../../src/authz/mode.ts';
import { apiGroup } from '../../src/naming/index.ts';
import { startTestServer } from '../support/test-server.ts';
import { sar, startWebhookServer, type WebhookServer } from './webhook-server.ts';
import { attrs } from './support.ts';

const FAST_RETRY = { attempts: 2, initialDelayMs: 10, factor: 1 };

describe('Webhook authorizer against a real HTTPS webhook', () => {
  let dir: string;
  let hook: WebhookServer;
  let clock = 1_000_000;
  const made: WebhookAuthorizer[] = [];

  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'authz-webhook-'));
    hook = await startWebhookServer(dir, (r) => sar(r, { allowed: true }));
  });
  after(async () => {
    for (const a of made) a.close();
    await hook.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  const make = async (opts: Partial<WebhookAuthorizerOptions> & { timeoutMs?: number } = {}): Promise<WebhookAuthorizer> => {
    const config = await loadWebhookConfig(hook.kubeconfigPath);
    const a = new WebhookAuthorizer(new WebhookClient(config, opts.timeoutMs ?? 5000), {
      version: 'v1beta1',
      authorizedTtlMs: 300_000,
      unauthorizedTtlMs: 30_000,
      retry: FAST_RETRY,
      now: () => clock,
      ...opts,
    });
    made.push(a);
    return a;
  };

  it('sends a v1beta1 SubjectAccessReview (spec.group) over client-cert TLS and allows on allowed', async () => {
    const a = await make();
    hook.reviews.length = 0;
    const user = { name: 'jane', uid: 'u-1', groups: ['devs', 'system:authenticated'], extra: { scopes: ['a', 'b'] } };
    assert.deepEqual(await a.authorize(attrs({ user, verb: 'get', resource: 'pods', name: 'web', namespace: 'ns1' })), { decision: 'allow', reason: '' });
    assert.equal(hook.reviews.length, 1);
    const review = hook.reviews[0]!;
    assert.equal(review.apiVersion, `${apiGroup('authorization')}/v1beta1`);
    assert.equal(review.kind, 'SubjectAccessReview');
    assert.deepEqual(review.spec, {
      resourceAttributes: { namespace: 'ns1', verb: 'get', version: 'v1', resource: 'pods', name: 'web' },
      user: 'jane',
      group: ['devs', 'system:authenticated'],
      extra: { scopes: ['a', 'b'] },
      uid: 'u-1',
    });
    assert.equal(hook.clients.at(-1), 'orch-apiserver');
  });

  it('sends v1 with spec.groups and a non-resource request as nonResourceAttributes', async () => {
    const a = await make({ version: 'v1' });
    hook.reviews.length = 0;
    await a.authorize(attrs({ isResourceRequest: false, path: '/healthz', verb: 'get', user: { name: 'x', groups: ['g'] } }));
    assert.equal(hook.reviews[0]!.apiVersion, `${apiGroup('authorization')}/v1`);
    assert.deepEqual(hook.reviews[0]!.spec, { nonResourceAttributes: { path: '/healthz', verb: 'get' }, user: 'x', groups: ['g'] });
  });

  it('denies on denied, has no opinion otherwise, and denies when both are set', async () => {
    const a = await make();
    hook.answer = (r) => sar(r, { allowed: false, denied: true, reason: 'nope' });
    assert.deepEqual(await a.authorize(attrs({ name: 'd1' })), { decision: 'deny', reason: 'nope' });
    hook.answer = (r) => sar(r, { allowed: false, reason: 'not mine' });
    assert.deepEqual(await a.authorize(attrs({ name: 'd2' })), { decision: 'noOpinion', reason: 'not mine' });
    hook.answer = (r) => sar(r, { allowed: true, denied: true });
    assert.equal((await a.authorize(attrs({ name: 'd3' }))).decision, 'deny');
  });

  it('caches allowed answers for the authorized TTL and others for the unauthorized TTL (hits counted)', async () => {
    const a = await make();
    hook.answer = (r) => sar(r, { allowed: true });
    const before = hook.reviews.length;
    const allowedReq = attrs({ name: 'cached-allow' });
    for (let i = 0; i < 3; i++) assert.equal((await a.authorize(allowedReq)).decision, 'allow');
    assert.equal(hook.reviews.length - before, 1);
    clock += 299_000;
    await a.authorize(allowedReq);
    assert.equal(hook.reviews.length - before, 1, 'still cached before 5m');
    clock += 2_000;
    await a.authorize(allowedReq);
    assert.equal(hook.reviews.length - before, 2, 'asked again after 5m');

    hook.answer = (r) => sar(r, { allowed: false });
    const deniedReq = attrs({ name: 'cached-deny' });
    const start = hook.reviews.length;
    await a.authorize(deniedReq);
    await a.authorize(deniedReq);
    assert.equal(hook.reviews.length - start, 1);
    clock += 31_000;
    await a.authorize(deniedReq);
    assert.equal(hook.reviews.length - start, 2, 'asked again after 30s');
  });

  it('keeps the cache bounded', async () => {
    const a = await make({ cacheSize: 2 });
    hook.answer = (r) => sar(r, { allowed: true });
    const start = hook.reviews.length;
    for (const n of ['a', 'b', 'c', 'a']) await a.authorize(attrs({ name: n }));
    assert.equal(hook.reviews.length - start, 4, '"a" was evicted by "c"');
  });

  it('has no opinion when the webhook fails: HTTP 500 (retried), timeout, wrong version, not JSON; and caches none of it', async () => {
    const errors: string[] = [];
    const a = await make({ timeoutMs: 200, onError: (e) => errors.push(e.message) });
    hook.answer = () => ({ status: 500, body: { message: 'boom' } });
    let start = hook.reviews.length;
    assert.deepEqual(await a.authorize(attrs({ name: 'e1' })), { decision: 'noOpinion', reason: '' });
    assert.equal(hook.reviews.length - start, FAST_RETRY.attempts, 'retried');
    assert.match(errors.at(-1)!, /HTTP 500/);

    hook.answer = (r) => ({ ...sar(r, { allowed: true }), delayMs: 1000 });
    assert.equal((await a.authorize(attrs({ name: 'e2' }))).decision, 'noOpinion');
    assert.match(errors.at(-1)!, /did not answer within 200 ms/);

    hook.answer = () => ({ body: { apiVersion: `${apiGroup('authorization')}/v1`, kind: 'SubjectAccessReview', status: { allowed: true } } });
    assert.equal((await a.authorize(attrs({ name: 'e3' }))).decision, 'noOpinion', 'v1 answer to a v1beta1 review');
    hook.answer = () => ({ body: 'allowed' });
    assert.equal((await a.authorize(attrs({ name: 'e4' }))).decision, 'noOpinion');

    hook.answer = (r) => sar(r, { allowed: true });
    start = hook.reviews.length;
    assert.equal((await a.authorize(attrs({ name: 'e1' }))).decision, 'allow', 'the failure was not cached');
    assert.equal(hook.reviews.length - start, 1);
  });

  it('has no opinion when TLS fails (no client certificate): the webhook refuses the connection', async () => {
    const config = await loadWebhookConfig(hook.kubeconfigPath);
    const a = new WebhookAuthorizer(new WebhookClient({ ...config, cert: undefined, key: undefined }, 2000), { version: 'v1beta1', authorizedTtlMs: 1, unauthorizedTtlMs: 1, retry: FAST_RETRY });
    made.push(a);
    hook.answer = (r) => sar(r, { allowed: true });
    assert.equal((await a.authorize(attrs({ name: 'tls' }))).decision, 'noOpinion');
  });

  it('lets the chain go on past a failing webhook, never allowing by itself', async () => {
    const a = await make({ timeoutMs: 200 });
    hook.answer = () => ({ status: 503 });
    const failing = buildAuthorization('Webhook', { Webhook: () => a });
    assert.equal((await failing.authorizer.authorize(attrs({ name: 'chain1' }))).decision, 'deny');
    const chained = buildAuthorization('Webhook,AlwaysAllow', { Webhook: () => a });
    assert.equal((await chained.authorizer.authorize(attrs({ name: 'chain2' }))).decision, 'allow');
    const rules = await chained.rules.rulesFor({ name: 'x', groups: [] }, 'ns');
    assert.equal(rules.incomplete, true);
    assert.equal(rules.evaluationError, 'webhook authorizer does not support user rule resolution');
  });

  it('refuses kubeconfigs that would send a credential in clear, or lack a server', async () => {
    const p = path.join(dir, 'plain.kubeconfig');
    await fs.writeFile(p, 'clusters:\n- name: c\n  cluster: {server: "http://127.0.0.1:1"}\nusers:\n- name: u\n  user: {token: "secret-token-value"}\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n');
    await assert.rejects(loadWebhookConfig(p), (err: Error) => /only sent over https/.test(err.message) && !err.message.includes('secret-token-value'));
    await fs.writeFile(p, 'clusters:\n- name: c\n  cluster: {}\n');
    await assert.rejects(loadWebhookConfig(p), /has no server/);
  });
});

describe('Webhook mode on a server', () => {
  it('allows and denies as the webhook says, with the webhook flags', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'authz-webhook-srv-'));
    const hook = await startWebhookServer(dir, (r) => {
      const ra = r.spec['resourceAttributes'] as Record<string, string> | undefined;
      return ra?.resource === 'configmaps' || ra?.resource === 'selfsubjectaccessreviews' ? sar(r, { allowed: true }) : sar(r, { allowed: false, denied: true, reason: 'only config maps' });
    });
    await fs.writeFile(path.join(dir, 'tokens.csv'), 'bob-token-0123456789,bob,uid-bob,"devs"\n', { mode: 0o600 });
    const ts = await startTestServer([
      '--authorization-mode=Webhook',
      `--authorization-webhook-config-file=${hook.kubeconfigPath}`,
      '--authorization-webhook-version=v1',
      '--authorization-webhook-cache-authorized-ttl=1m',
      `--token-auth-file=${path.join(dir, 'tokens.csv')}`,
    ]);
    try {
      const as = { token: 'bob-token-0123456789' };
      assert.equal((await ts.request('GET', '/api/v1/namespaces/default/configmaps', undefined, { as })).status, 200);
      const denied = await ts.request('GET', '/api/v1/namespaces/default/secrets', undefined, { as });
      assert.equal(denied.status, 403);
      assert.match(String(denied.json()['message']), /: only config maps$/);
      assert.equal(hook.reviews.at(-1)!.apiVersion, `${apiGroup('authorization')}/v1`);
      assert.deepEqual(hook.reviews.at(-1)!.spec['groups'], ['devs', 'system:authenticated']);
      const hits = hook.reviews.length;
      await ts.request('GET', '/api/v1/namespaces/default/configmaps', undefined, { as });
      assert.equal(hook.reviews.length, hits, 'the allowed answer is cached');
      // An access review reports the webhook's explicit deny as denied.
      const review = await ts.request(
        'POST',
        `/apis/${apiGroup('authorization')}/v1/selfsubjectaccessreviews`,
        { apiVersion: `${apiGroup('authorization')}/v1`, kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { namespace: 'default', verb: 'get', resource: 'secrets' } } },
        { as },
      );
      assert.equal(review.status, 201, review.body);
      assert.deepEqual(review.json()['status'], { allowed: false, denied: true, reason: 'only config maps' });
      await assert.rejects(startTestServer(['--authorization-mode=Webhook']), /authorization-mode Webhook's authorization config file not passed/);
      await assert.rejects(startTestServer(['--authorization-webhook-version=v2']), /--authorization-webhook-version: must be v1beta1 or v1/);
    } finally {
      await ts.stop();
      await hook.close();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
