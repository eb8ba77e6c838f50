/**
 * The filter chain end to end over in-memory requests: authentication (401),
 * authorization (403 texts), in-flight limits (429), timeouts (504), panic
 * recovery (500), watch expiry, and what the handler sees.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness } from './harness.ts';
import { PANIC_MESSAGE } from '../../src/server/filters/write-status.ts';
import { TOO_MANY_REQUESTS_MESSAGE } from '../../src/server/filters/with-max-inflight.ts';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('authentication', () => {
  it('answers 401 with an Unauthorized Status when no credential is given', async () => {
    const h = createHarness();
    const res = await h.send('GET', '/api/v1/namespaces/default/pods');
    assert.equal(res.status, 401);
    assert.equal(res.header('content-type'), 'application/json');
    assert.deepEqual(res.json(), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
    assert.equal(h.seen.length, 0, 'the handler must not run');
  });

  it('answers 401 for rejected credentials without saying why', async () => {
    const h = createHarness();
    const res = await h.send('GET', '/api/v1/pods', { token: 'stolen-or-expired' });
    assert.equal(res.status, 401);
    assert.equal(res.json()['message'], 'Unauthorized');
    assert.ok(!res.text.includes('invalid bearer token'));
  });

  it('puts the user on the context for the handler', async () => {
    const h = createHarness();
    const res = await h.send('GET', '/api/v1/namespaces/default/pods', { token: 'alice-token' });
    assert.equal(res.status, 200);
    assert.equal(h.seen[0]?.user?.name, 'alice');
    assert.equal(h.seen[0]?.info?.verb, 'list');
    assert.equal(h.seen[0]?.info?.namespace, 'default');
  });
});

describe('authorization', () => {
  it('answers 403 with the original message for a namespaced list', async () => {
    const h = createHarness();
    const res = await h.send('GET', '/api/v1/namespaces/default/pods', { token: 'bob-token' });
    assert.equal(res.status, 403);
    const body = res.json();
    assert.equal(body['reason'], 'Forbidden');
    assert.equal(body['code'], 403);
    assert.equal(body['message'], 'pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "default"');
    assert.equal(h.seen.length, 0);
  });

  it('names the object, the subresource, the group and the cluster scope', async () => {
    const h = createHarness();
    const res = await h.send('PUT', '/apis/certificates.orch.io/v1/certificatesigningrequests/csr-1/approval', { token: 'bob-token' });
    assert.equal(res.status, 403);
    assert.equal(
      res.json()['message'],
      'certificatesigningrequests.certificates.orch.io "csr-1" is forbidden: User "bob" cannot update resource "certificatesigningrequests/approval" in API group "certificates.orch.io" at the cluster scope',
    );
  });

  it('appends the authorizer reason and handles non-resource paths', async () => {
    const h = createHarness();
    const denied = await h.send('GET', '/api/v1/namespaces/kube-system/secrets/token', { token: 'carol-token' });
    assert.equal(
      denied.json()['message'],
      'secrets "token" is forbidden: User "carol" cannot get resource "secrets" in API group "" in the namespace "kube-system": no RBAC policy matched',
    );
    const path = await h.send('GET', '/logs/<script>', { token: 'bob-token' });
    assert.equal(path.status, 403);
    assert.equal(path.json()['message'], 'forbidden: User "bob" cannot get path "/logs/&lt;script&gt;"');
  });
});

describe('max in-flight', () => {
  it('answers 429 with Retry-After: 1 when the read-only limit is full, not counting watches', async () => {
    const h = createHarness({ maxRequestsInflight: 1, maxMutatingRequestsInflight: 1, minRequestTimeoutSeconds: 60 });
    // A watch is long-running: it holds no slot.
    const watch = h.start('GET', '/api/v1/namespaces/default/pods?watch=true', { token: 'alice-token' });
    await sleep(5);
    assert.equal(watch.res.status, 200);

    const slow = h.start('GET', '/api/v1/namespaces/default/pods', { token: 'alice-token', test: 'slow' });
    await sleep(5);
    const rejected = await h.send('GET', '/api/v1/namespaces/default/configmaps', { token: 'alice-token' });
    assert.equal(rejected.status, 429);
    assert.equal(rejected.header('retry-after'), '1');
    const body = rejected.json();
    assert.equal(body['reason'], 'TooManyRequests');
    assert.equal(body['message'], TOO_MANY_REQUESTS_MESSAGE);
    assert.deepEqual(body['details'], { retryAfterSeconds: 1 });

    // Mutating requests have their own limit; system:masters is never turned away.
    const create = await h.send('POST', '/api/v1/namespaces/default/configmaps', { token: 'alice-token' });
    assert.equal(create.status, 200);
    const admin = await h.send('GET', '/api/v1/namespaces/default/configmaps', { token: 'admin-token' });
    assert.equal(admin.status, 200);

    h.release();
    await slow.done;
    assert.equal(slow.res.status, 200);
    const after = await h.send('GET', '/api/v1/namespaces/default/configmaps', { token: 'alice-token' });
    assert.equal(after.status, 200, 'the slot is free again once the slow request finished');

    watch.disconnect();
    await watch.done;
  });

  it('0 disables the limits', async () => {
    const h = createHarness({ maxRequestsInflight: 0, maxMutatingRequestsInflight: 0 });
    const slow = h.start('GET', '/api/v1/pods', { token: 'alice-token', test: 'slow' });
    await sleep(2);
    const res = await h.send('GET', '/api/v1/pods', { token: 'alice-token' });
    assert.equal(res.status, 200);
    h.release();
    await slow.done;
  });
});

describe('timeout', () => {
  it('answers 504 Timeout when the handler is too slow and aborts the handler signal', async () => {
    const h = createHarness({ requestTimeoutMs: 40 });
    const started = performance.now();
    const res = await h.send('GET', '/api/v1/namespaces/default/pods', { token: 'alice-token', test: 'slow' });
    assert.ok(performance.now() - started >= 35, 'not before the deadline');
    assert.equal(res.status, 504);
    assert.deepEqual(res.json(), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'request did not complete within the allotted timeout',
      reason: 'Timeout',
      details: { retryAfterSeconds: 0 },
      code: 504,
    });
    const ctx = h.seen[0]!;
    assert.equal(ctx.signal.aborted, true);
    assert.equal((ctx.signal.reason as DOMException).name, 'TimeoutError');
    // Timers run on a whole-millisecond monotonic clock, the deadline is wall-clock time: a millisecond of slack.
    assert.ok(ctx.deadline !== undefined && ctx.deadline <= Date.now() + 1, `deadline ${ctx.deadline} passed by ${Date.now()}`);
  });

  it('drops what the handler writes after the deadline', async () => {
    const h = createHarness({ requestTimeoutMs: 30 });
    const res = await h.send('GET', '/api/v1/pods', { token: 'alice-token', test: 'late-write' });
    assert.equal(res.status, 504);
    await sleep(150); // the handler writes at 120 ms; FakeResponse throws on a second writeHead
    assert.equal(res.headCount, 1);
    assert.ok(!res.text.includes('late'));
  });

  it('resets an answer whose head went out before the deadline, as the original aborts it (a clean end would pass for a whole body)', async () => {
    const h = createHarness({ requestTimeoutMs: 30 });
    const res = await h.send('GET', '/api/v1/pods', { token: 'alice-token', test: 'stall-mid-body' });
    assert.equal(res.status, 200);
    assert.equal(res.destroyed, true, 'reset, not ended');
    assert.equal(res.text, '{"kind":"PodList","items":[');
  });

  it('does not log a handler failing because its request was aborted as a panic', async () => {
    const h = createHarness({ requestTimeoutMs: 20 });
    const res = await h.send('GET', '/api/v1/pods', { token: 'alice-token', test: 'throw-on-abort' });
    assert.equal(res.status, 504);
    await sleep(10);
    assert.equal(h.logs.filter((l) => l['level'] === 50).length, 0);

    // A client that goes away mid-request: no answer, no error log, logged with status 0.
    const gone = h.start('GET', '/api/v1/pods', { token: 'alice-token', test: 'throw-on-abort' });
    await sleep(5);
    gone.disconnect();
    await gone.done;
    assert.equal(gone.res.headCount, 0);
    assert.equal(h.logs.filter((l) => l['level'] === 50).length, 0);
    assert.equal(h.logs.filter((l) => l['msg'] === 'HTTP').at(-1)?.['status'], 0);
  });

  it('honours a shorter ?timeout= and rejects a malformed one', async () => {
    const h = createHarness({ requestTimeoutMs: 5_000 });
    const started = performance.now();
    const res = await h.send('GET', '/api/v1/pods?timeout=30ms', { token: 'alice-token', test: 'slow' });
    assert.equal(res.status, 504);
    assert.ok(performance.now() - started < 2_000);
    const bad = await h.send('GET', '/api/v1/pods?timeout=soon', { token: 'alice-token' });
    assert.equal(bad.status, 400);
    assert.equal(bad.json()['message'], 'invalid timeout specified in the request URL - time: invalid duration "soon"');
  });

  it('leaves watches alone past the request timeout, then ends them cleanly after the watch timeout', async () => {
    // min-request-timeout of 0.1 s: the watch ends between 100 and 200 ms.
    const h = createHarness({ requestTimeoutMs: 20, minRequestTimeoutSeconds: 0.1 });
    const watch = h.start('GET', '/api/v1/namespaces/default/pods?watch=1', { token: 'alice-token' });
    await sleep(60);
    assert.equal(watch.res.status, 200);
    assert.equal(watch.res.ended, false, 'still open past the request timeout');
    await watch.done;
    await watch.res.whenEnded();
    assert.equal(watch.res.status, 200, 'a watch expiry is a clean end, not a 504');
    assert.equal(watch.res.ended, true);
    assert.match(watch.res.text, /ADDED/);
    assert.equal(h.seen[0]?.deadline, undefined);
  });

  it('uses timeoutSeconds for a watch when given', async () => {
    const h = createHarness({ minRequestTimeoutSeconds: 1800 });
    const started = performance.now();
    const watch = h.start('GET', '/api/v1/pods?watch=true&timeoutSeconds=1', { token: 'alice-token' });
    await watch.res.whenEnded();
    const took = performance.now() - started;
    assert.ok(took >= 950 && took < 3_000, `took ${took} ms`);
  });
});

describe('Audit-Id (the original WithAuditInit: every response, audit on or off)', () => {
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  it('answers every request with a fresh audit ID, with no audit configured: 200, 401, 403, 500', async () => {
    const h = createHarness();
    const ok = await h.send('GET', '/api/v1/pods', { token: 'alice-token' });
    const again = await h.send('GET', '/api/v1/pods', { token: 'alice-token' });
    const unauthorized = await h.send('GET', '/api/v1/pods');
    const forbidden = await h.send('GET', '/api/v1/namespaces/default/pods', { token: 'bob-token' });
    const panicked = await h.send('GET', '/api/v1/pods', { token: 'alice-token', test: 'panic' });
    const ids = [ok, again, unauthorized, forbidden, panicked].map((r) => r.header('audit-id'));
    assert.deepEqual([ok.status, unauthorized.status, forbidden.status, panicked.status], [200, 401, 403, 500]);
    for (const id of ids) assert.match(String(id), UUID);
    assert.equal(new Set(ids).size, ids.length, 'one ID per request');
    // The panic's log line names the ID its answer carries.
    const logged = h.logs.find((l) => l['level'] === 50);
    assert.equal(logged?.['auditID'], panicked.header('audit-id'));
  });

  it("echoes a client's sane Audit-ID and replaces one that is not", async () => {
    const h = createHarness();
    const sent = await h.send('GET', '/api/v1/pods', { token: 'alice-token', headers: { 'audit-id': 'client-chosen-1' } });
    assert.equal(sent.header('audit-id'), 'client-chosen-1');
    const odd = await h.send('GET', '/api/v1/pods', { token: 'alice-token', headers: { 'audit-id': 'has spaces\tand tabs' } });
    assert.match(String(odd.header('audit-id')), UUID);
    // Huge, control characters, JSON, several values: none is echoed (it would land in every log line and event).
    for (const bad of ['x'.repeat(100_000), 'a\u0000b', '{"nested":{"deep":[1,2]}}', '\u00e9t\u00e9']) {
      const r = await h.send('GET', '/api/v1/pods', { token: 'alice-token', headers: { 'audit-id': bad } });
      assert.equal(r.status, 200);
      assert.match(String(r.header('audit-id')), UUID);
    }
    const two = await h.send('GET', '/api/v1/pods', { token: 'alice-token', headers: { 'audit-id': ['one', 'two'] } });
    assert.match(String(two.header('audit-id')), UUID, 'two values joined are not a sane ID');
  });
});

describe('panic recovery', () => {
  it('turns a handler exception into a 500 Status without internals, logs it once, and keeps serving', async () => {
    const h = createHarness();
    const res = await h.send('GET', '/api/v1/pods', { token: 'alice-token', test: 'panic' });
    assert.equal(res.status, 500);
    const body = res.json();
    assert.equal(body['reason'], 'InternalError');
    assert.equal(body['message'], PANIC_MESSAGE);
    assert.ok(!res.text.includes('secret internals'));
    const errorsLogged = h.logs.filter((l) => l['level'] === 50);
    assert.equal(errorsLogged.length, 1);
    assert.match(JSON.stringify(errorsLogged[0]), /secret internals/, 'the log has the details');

    const next = await h.send('GET', '/api/v1/pods', { token: 'alice-token' });
    assert.equal(next.status, 200);
  });

  it('recovers from a filter that throws (a broken authenticator)', async () => {
    const h = createHarness();
    const res = await h.send('GET', '/api/v1/pods', { token: 'explode' });
    assert.equal(res.status, 500);
    assert.ok(!res.text.includes('10.0.0.7'));
  });

  it('writes a StatusError from the handler as is, without a panic log', async () => {
    const h = createHarness();
    const res = await h.send('GET', '/api/v1/namespaces/default/pods/missing', { token: 'alice-token', test: 'status-error' });
    assert.equal(res.status, 404);
    assert.equal(res.json()['message'], 'pods "missing" not found');
    assert.equal(h.logs.filter((l) => l['level'] === 50).length, 0);
  });

  it('answers 500 when the handler returns without answering, instead of hanging', async () => {
    const h = createHarness();
    const res = await h.send('GET', '/api/v1/pods', { token: 'alice-token', test: 'no-answer' });
    assert.equal(res.status, 500);
    assert.equal(res.ended, true);
  });

  it('answers 400 (the original: 500) for a path the request-info factory cannot parse (fuzz seed 6, case 64992)', async () => {
    const h = createHarness();
    const res = await h.send('GET', '/api/v1/watch', { token: 'alice-token' });
    assert.equal(res.status, 400);
    assert.equal(res.json()['reason'], 'BadRequest');
    for (const path of ['/api/v1/watch/', '/apis/apps/v1/watch/', '/apis/apps/v1/proxy']) {
      assert.equal((await h.send('GET', path, { token: 'alice-token' })).status, 400, path);
    }
    assert.match(String(res.json()['message']), /failed to create RequestInfo/);
  });
});
