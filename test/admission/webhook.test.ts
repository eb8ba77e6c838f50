/**
 * The webhook plugins against real HTTPS webhooks on loopback: allow, deny
 * with and without a code, patches (applied, re-decoded, annotated), bad
 * answers (wrong review version, wrong uid, bad patch, not JSON), slow and
 * down webhooks under both failure policies, dry-run and sideEffects,
 * v1beta1 reviews, parallel validating webhooks, the rejection metric.
 * Cases after the original's dispatcher and plugin tests
 * (apiserver/pkg/admission/plugin/webhook/testing/testcase.go).
 */
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../../src/api/status.ts';
import { apiGroup } from '../../src/naming/index.ts';
import { startAdmissionWebhook, allow, deny, patch, type AdmissionWebhookServer } from './support/admission-webhook.ts';
import { attributes, configuration, harness, hook, pod, rt, type Harness } from './support/plugin-harness.ts';
import { freePort } from '../support/test-server.ts';

const pods = rt('', 'v1', 'pods');
const ADMISSION = apiGroup('admission');
let wh: AdmissionWebhookServer;
let h: Harness;

before(async () => {
  wh = await startAdmissionWebhook();
});
after(async () => {
  await wh.close();
});
beforeEach(() => {
  h?.close();
  h = harness();
  wh.calls.length = 0;
  wh.answer = (c) => allow(c);
});

async function rejects(p: Promise<unknown> | unknown): Promise<StatusError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof StatusError, `expected a StatusError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected a rejection');
}

test('an allowing webhook gets a v1 AdmissionReview with the request, and the write proceeds', async () => {
  h.index.put('validating', configuration('cfg', [hook('allow.example.com', wh.url(), wh.caBundle)]));
  const a = attributes(pods, 'CREATE', pod('p1'));
  assert.equal(h.validating.handles!(pods, '', 'CREATE'), true);
  await h.validating.validate!(a);
  assert.equal(wh.calls.length, 1);
  const call = wh.calls[0]!;
  assert.equal(call.headers['content-type'], 'application/json');
  assert.equal(call.path, '/admit?timeout=10s');
  assert.equal(call.review.apiVersion, `${ADMISSION}/v1`);
  assert.equal(call.review.kind, 'AdmissionReview');
  const r = call.review.request;
  assert.match(r.uid, /^[0-9a-f-]{36}$/);
  assert.deepEqual(r['kind'], { group: '', version: 'v1', kind: 'Pod' });
  assert.deepEqual(r['resource'], { group: '', version: 'v1', resource: 'pods' });
  assert.deepEqual(r['requestKind'], { group: '', version: 'v1', kind: 'Pod' });
  assert.equal(r['operation'], 'CREATE');
  assert.equal(r['name'], 'p1');
  assert.equal(r['namespace'], 'default');
  assert.deepEqual(r['userInfo'], { username: 'alice', uid: 'u-1', groups: ['dev', 'system:authenticated'], extra: { scopes: ['a'] } });
  assert.equal(r['dryRun'], false);
  assert.equal(r['oldObject'], null);
  assert.deepEqual((r.object as { metadata: unknown }).metadata, { name: 'p1', namespace: 'default', labels: {} });
  assert.deepEqual(r['options'], { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' });
});

test('no configuration: no type is handled; a rule not matching the type: not handled either', () => {
  assert.equal(h.mutating.handles!(pods, '', 'CREATE'), false);
  h.index.put('mutating', configuration('cfg', [hook('m.example.com', wh.url(), wh.caBundle)]));
  assert.equal(h.mutating.handles!(pods, '', 'CREATE'), true);
  assert.equal(h.mutating.handles!(pods, '', 'DELETE'), false);
  assert.equal(h.mutating.handles!(pods, 'status', 'UPDATE'), false);
  assert.equal(h.mutating.handles!(rt('', 'v1', 'secrets'), '', 'CREATE'), false);
  assert.equal(h.validating.handles!(pods, '', 'CREATE'), false);
  // Webhook configurations themselves are never sent to webhooks.
  h.index.put('mutating', configuration('all', [hook('all.example.com', wh.url(), wh.caBundle, { rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'] }] })]));
  assert.equal(h.mutating.handles!(rt(apiGroup('admissionregistration'), 'v1', 'validatingwebhookconfigurations'), '', 'CREATE'), false);
  assert.equal(h.mutating.handles!(pods, 'status', 'UPDATE'), true);
});

test('a denial carries the webhook code and message; no code is 403; a code under 400 is 400; reason when no message', async () => {
  h.index.put('validating', configuration('cfg', [hook('deny.example.com', wh.url(), wh.caBundle)]));
  wh.answer = (c) => deny(c, { code: 422, message: 'pods must have a team label', reason: 'Invalid' });
  let e = await rejects(h.validating.validate!(attributes(pods, 'CREATE', pod('p'))));
  assert.equal(e.code, 422);
  assert.equal(e.reason, 'Invalid');
  assert.equal(e.message, 'admission webhook "deny.example.com" denied the request: pods must have a team label');

  wh.answer = (c) => deny(c, undefined);
  e = await rejects(h.validating.validate!(attributes(pods, 'CREATE', pod('p'))));
  assert.equal(e.code, 403);
  assert.equal(e.message, 'admission webhook "deny.example.com" denied the request without explanation');

  wh.answer = (c) => deny(c, { code: 200, reason: 'NotAllowed' });
  e = await rejects(h.validating.validate!(attributes(pods, 'CREATE', pod('p'))));
  assert.equal(e.code, 400);
  assert.equal(e.message, 'admission webhook "deny.example.com" denied the request: NotAllowed');

  const text = await h.metrics.registry.metrics();
  assert.match(text, /apiserver_admission_webhook_rejection_count\{name="deny.example.com",operation="CREATE",type="validating",error_type="no_error",rejection_code="422"\} 1/);
  assert.match(text, /apiserver_admission_webhook_admission_duration_seconds_count\{name="deny.example.com",type="validating",operation="CREATE",rejected="true"\} 3/);
});

test('a JSONPatch is applied, decoded into the kind again, and annotated for audit; warnings and audit annotations pass on', async () => {
  h.index.put('mutating', configuration('cfg', [hook('label.example.com', wh.url(), wh.caBundle)]));
  wh.answer = (c) =>
    patch(c, [{ op: 'add', path: '/metadata/labels/team', value: 'a' }, { op: 'add', path: '/spec/notAField', value: 1 }], {
      warnings: ['labelled by the webhook'],
      auditAnnotations: { reason: 'labelled', 'bad/key': 'dropped', 'bad key': 'dropped' },
    });
  const a = attributes(pods, 'CREATE', pod('p'));
  await h.mutating.admit!(a);
  assert.deepEqual(a.object!.metadata.labels, { team: 'a' });
  // The kind's schema has no such field: dropped, as decoding into the original's Go type drops it.
  assert.equal((a.object as unknown as { spec: Record<string, unknown> }).spec['notAField'], undefined);
  assert.deepEqual(a.warnings, ['labelled by the webhook']);
  assert.equal(a.annotations.get('label.example.com/reason'), 'labelled');
  assert.deepEqual([...a.annotations.keys()].filter((k) => k.startsWith('label.example.com/')), ['label.example.com/reason']);
  assert.deepEqual(JSON.parse(a.annotations.get(`mutation.webhook.${ADMISSION}/round_0_index_0`)!), { configuration: 'cfg', webhook: 'label.example.com', mutated: true });
  const p = JSON.parse(a.annotations.get(`patch.webhook.${ADMISSION}/round_0_index_0`)!) as Record<string, unknown>;
  assert.equal(p['configuration'], 'cfg');
  assert.equal(p['patchType'], 'JSONPatch');
  assert.deepEqual((p['patch'] as unknown[])[0], { op: 'add', path: '/metadata/labels/team', value: 'a' });
});

test('a patch the kind cannot hold, a patch that does not apply, a patch that is not a list: 500; invalid base64: failurePolicy', async () => {
  h.index.put('mutating', configuration('cfg', [hook('bad.example.com', wh.url(), wh.caBundle)]));
  wh.answer = (c) => patch(c, [{ op: 'replace', path: '/spec/containers', value: 'not a list' }]);
  let e = await rejects(h.mutating.admit!(attributes(pods, 'CREATE', pod('p'))));
  assert.equal(e.code, 500);
  assert.equal(e.reason, 'InternalError');

  wh.answer = (c) => patch(c, [{ op: 'remove', path: '/metadata/nope' }]);
  e = await rejects(h.mutating.admit!(attributes(pods, 'CREATE', pod('p'))));
  assert.equal(e.code, 500);

  wh.answer = (c) => allow(c, { patchType: 'JSONPatch', patch: Buffer.from('{"op":"add"}').toString('base64') });
  e = await rejects(h.mutating.admit!(attributes(pods, 'CREATE', pod('p'))));
  assert.equal(e.code, 500);
  assert.match(e.message, /jsonpatch\.Patch/);

  wh.answer = (c) => allow(c, { patchType: 'JSONPatch', patch: '%%%not base64' });
  e = await rejects(h.mutating.admit!(attributes(pods, 'CREATE', pod('p'))));
  assert.equal(e.code, 500);
  assert.match(e.message, /failed calling webhook "bad.example.com": failed to call webhook: illegal base64/);

  // A patch on a DELETE has nothing to apply to.
  h.index.put('mutating', configuration('cfg', [hook('bad.example.com', wh.url(), wh.caBundle, { rules: [{ operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] })]));
  wh.answer = (c) => patch(c, [{ op: 'add', path: '/metadata/labels', value: {} }]);
  e = await rejects(h.mutating.admit!(attributes(pods, 'DELETE', null, { oldObject: pod('p') })));
  assert.equal(e.code, 500);
  assert.match(e.message, /attempted to modify the object, which is not supported for this operation/);
  const text = await h.metrics.registry.metrics();
  assert.match(text, /rejection_count\{name="bad.example.com",operation="CREATE",type="admit",error_type="apiserver_internal_error",rejection_code="0"\} 3/);
});

test('bad answers are calling errors: wrong review version, wrong uid, patch from a validating webhook, not JSON, HTTP 500', async () => {
  const cases: Array<[string, (c: Parameters<typeof allow>[0]) => ReturnType<typeof allow>, RegExp, 'mutating' | 'validating']> = [
    ['version', (c) => ({ body: { apiVersion: `${ADMISSION}/v1beta1`, kind: 'AdmissionReview', response: { uid: c.review.request.uid, allowed: true } } }), new RegExp(`received invalid webhook response: expected webhook response of ${ADMISSION}/v1, Kind=AdmissionReview, got ${ADMISSION}/v1beta1, Kind=AdmissionReview`), 'validating'],
    ['uid', (c) => ({ body: { apiVersion: c.review.apiVersion, kind: 'AdmissionReview', response: { uid: 'other', allowed: true } } }), /expected response.uid="[0-9a-f-]+", got "other"/, 'validating'],
    ['absent', (c) => ({ body: { apiVersion: c.review.apiVersion, kind: 'AdmissionReview' } }), /webhook response was absent/, 'validating'],
    ['patch', (c) => patch(c, []), /validating webhooks may not return response.patch/, 'validating'],
    ['patchType alone', (c) => allow(c, { patchType: 'JSONPatch' }), /webhook returned response.patchType but not response.patch/, 'mutating'],
    ['not json', () => ({ raw: '<html>' }), /the answer is not JSON/, 'validating'],
    ['500', () => ({ status: 500, body: { kind: 'Status', apiVersion: 'v1', code: 500, message: 'webhook broke' } }), /failed to call webhook: webhook broke/, 'validating'],
  ];
  for (const [what, answer, message, kind] of cases) {
    h.index.put(kind, configuration('cfg', [hook('bad.example.com', wh.url(), wh.caBundle)]));
    h.index.put(kind === 'mutating' ? 'validating' : 'mutating', configuration('cfg', []));
    wh.answer = answer;
    const plugin = kind === 'mutating' ? h.mutating : h.validating;
    const run = (a: ReturnType<typeof attributes>): Promise<void> | void => (kind === 'mutating' ? plugin.admit!(a) : plugin.validate!(a));
    const e = await rejects(run(attributes(pods, 'CREATE', pod('p'))));
    assert.equal(e.code, 500, what);
    assert.match(e.message, /^Internal error occurred: failed calling webhook "bad.example.com": /, what);
    assert.match(e.message, message, what);
    // Ignore lets the request through.
    h.index.put(kind, configuration('cfg', [hook('bad.example.com', wh.url(), wh.caBundle, { failurePolicy: 'Ignore' })]));
    const a = attributes(pods, 'CREATE', pod('p'));
    await run(a);
    assert.ok([...a.annotations.keys()].some((k) => k.startsWith('failed-open.')), what);
  }
});

test('a slow webhook times out at timeoutSeconds: Fail rejects with 500, Ignore admits; neither waits longer', { timeout: 20_000 }, async () => {
  wh.answer = () => 'hang';
  h.index.put('validating', configuration('cfg', [hook('slow.example.com', wh.url(), wh.caBundle, { timeoutSeconds: 1 })]));
  const e = await rejects(h.validating.validate!(attributes(pods, 'CREATE', pod('p'))));
  assert.equal(e.code, 500);
  assert.match(e.message, /failed calling webhook "slow.example.com": failed to call webhook: Post "https:\/\/127.0.0.1:\d+\/admit\?timeout=1s": context deadline exceeded/);
  h.index.put('validating', configuration('cfg', [hook('slow.example.com', wh.url(), wh.caBundle, { timeoutSeconds: 1, failurePolicy: 'Ignore' })]));
  const a = attributes(pods, 'CREATE', pod('p'));
  await h.validating.validate!(a);
  assert.equal(a.annotations.get(`failed-open.validating.webhook.${ADMISSION}/round_0_index_0`), 'slow.example.com');
  const text = await h.metrics.registry.metrics();
  assert.match(text, /rejection_count\{name="slow.example.com",operation="CREATE",type="validating",error_type="calling_webhook_error",rejection_code="400"\} 1/);
});

test('a webhook that is down: connection refused, under Fail and Ignore; an untrusted certificate too', async () => {
  const port = await freePort();
  h.index.put('mutating', configuration('cfg', [hook('down.example.com', `https://127.0.0.1:${port}/x`, wh.caBundle)]));
  let e = await rejects(h.mutating.admit!(attributes(pods, 'CREATE', pod('p'))));
  assert.equal(e.code, 500);
  assert.match(e.message, new RegExp(`Post "https://127.0.0.1:${port}/x\\?timeout=10s": dial tcp 127.0.0.1:${port}: connect: connection refused`));
  h.index.put('mutating', configuration('cfg', [hook('down.example.com', `https://127.0.0.1:${port}/x`, wh.caBundle, { failurePolicy: 'Ignore' })]));
  const a = attributes(pods, 'CREATE', pod('p'));
  await h.mutating.admit!(a);
  assert.equal(a.annotations.get(`failed-open.mutation.webhook.${ADMISSION}/round_0_index_0`), 'down.example.com');
  assert.deepEqual(JSON.parse(a.annotations.get(`mutation.webhook.${ADMISSION}/round_0_index_0`)!), { configuration: 'cfg', webhook: 'down.example.com', mutated: false });
  // No caBundle: the system roots do not know the test CA.
  h.index.put('mutating', configuration('cfg', [hook('untrusted.example.com', wh.url(), '')]));
  e = await rejects(h.mutating.admit!(attributes(pods, 'CREATE', pod('p'))));
  assert.match(e.message, /x509: certificate signed by unknown authority/);
});

test('dry run: sideEffects None and NoneOnDryRun are called with dryRun true; Unknown and Some are 400, whatever the failure policy', async () => {
  for (const se of ['None', 'NoneOnDryRun']) {
    h.index.put('validating', configuration('cfg', [hook('dry.example.com', wh.url(), wh.caBundle, { sideEffects: se })]));
    wh.calls.length = 0;
    await h.validating.validate!(attributes(pods, 'CREATE', pod('p'), { dryRun: true }));
    assert.equal(wh.calls.length, 1);
    assert.equal(wh.calls[0]!.review.request['dryRun'], true);
  }
  for (const se of ['Unknown', 'Some']) {
    h.index.put('validating', configuration('cfg', [hook('dry.example.com', wh.url(), wh.caBundle, { sideEffects: se, failurePolicy: 'Ignore' })]));
    wh.calls.length = 0;
    const e = await rejects(h.validating.validate!(attributes(pods, 'CREATE', pod('p'), { dryRun: true })));
    assert.equal(e.code, 400);
    assert.equal(e.reason, 'BadRequest');
    assert.equal(e.message, 'admission webhook "dry.example.com" does not support dry run');
    assert.equal(wh.calls.length, 0);
    // Not a dry run: called.
    await h.validating.validate!(attributes(pods, 'CREATE', pod('p')));
    assert.equal(wh.calls.length, 1);
  }
});

test('admissionReviewVersions: the first one spoken is sent; v1beta1 answers need no uid; none spoken is a calling error', async () => {
  h.index.put('validating', configuration('cfg', [hook('beta.example.com', wh.url(), wh.caBundle, { admissionReviewVersions: ['v2', 'v1beta1', 'v1'] })]));
  wh.answer = () => ({ body: { apiVersion: `${ADMISSION}/v1beta1`, kind: 'AdmissionReview', response: { allowed: false, status: { message: 'no' } } } });
  const e = await rejects(h.validating.validate!(attributes(pods, 'CREATE', pod('p'))));
  assert.equal(wh.calls[0]!.review.apiVersion, `${ADMISSION}/v1beta1`);
  assert.equal(e.message, 'admission webhook "beta.example.com" denied the request: no');
  h.index.put('validating', configuration('cfg', [hook('none.example.com', wh.url(), wh.caBundle, { admissionReviewVersions: ['v2'] })]));
  const e2 = await rejects(h.validating.validate!(attributes(pods, 'CREATE', pod('p'))));
  assert.match(e2.message, /webhook does not accept v1 or v1beta1 AdmissionReview/);
});

test('validating webhooks are called in parallel; one denial rejects after all were called', async () => {
  const waiting: Array<() => void> = [];
  wh.answer = (c) =>
    new Promise((resolve) => {
      // Neither answers until both were called: a sequential dispatcher would never finish.
      waiting.push(() => resolve(c.path.startsWith('/deny') ? deny(c, { code: 409, message: 'conflict' }) : allow(c)));
      if (waiting.length === 2) for (const w of waiting) w();
    });
  h.index.put('validating', configuration('a', [hook('ok.example.com', wh.url('/ok'), wh.caBundle)]));
  h.index.put('validating', configuration('b', [hook('deny.example.com', wh.url('/deny'), wh.caBundle)]));
  const e = await rejects(h.validating.validate!(attributes(pods, 'CREATE', pod('p'))));
  assert.equal(e.code, 409);
  assert.equal(wh.calls.length, 2);
});

test('mutating webhooks run in order (configurations by name), each seeing the previous patches', async () => {
  wh.answer = (c) => {
    const labels = ((c.review.request.object as { metadata: { labels?: Record<string, string> } }).metadata.labels ?? {});
    const n = Object.keys(labels).length;
    return patch(c, [{ op: 'add', path: `/metadata/labels/step${n}`, value: c.path.slice(1, 2) }]);
  };
  h.index.put('mutating', configuration('z-last', [hook('c.example.com', wh.url('/c'), wh.caBundle)]));
  h.index.put('mutating', configuration('a-first', [hook('a.example.com', wh.url('/a'), wh.caBundle), hook('b.example.com', wh.url('/b'), wh.caBundle)]));
  const a = attributes(pods, 'CREATE', pod('p'));
  await h.mutating.admit!(a);
  assert.deepEqual(a.object!.metadata.labels, { step0: 'a', step1: 'b', step2: 'c' });
  assert.ok(a.annotations.has(`mutation.webhook.${ADMISSION}/round_0_index_2`));
});

test('what a webhook sends cannot break the answer: warnings with control or non-ASCII characters, a code above 599, odd details', async () => {
  h.index.put('validating', configuration('cfg', [hook('odd.example.com', wh.url(), wh.caBundle)]));
  wh.answer = (c) => allow(c, { warnings: ['line\nbreak', 'caf\u00e9 \u65e5\u672c', '', 'x'.repeat(400), 42] });
  const a = attributes(pods, 'CREATE', pod('p'));
  await h.validating.validate!(a);
  assert.deepEqual(a.warnings.slice(0, 1), ['caf\\u00e9 \\u65e5\\u672c']);
  assert.equal(a.warnings.length, 2);
  assert.equal(a.warnings[1]!.length, 256);
  for (const w of a.warnings) assert.match(w, /^[\t\x20-\x7e]*$/);

  wh.answer = (c) => deny(c, { code: 1000, message: 'odd', details: { name: 'n', causes: [{ message: 'm', extra: { deep: true } }, 'not a cause'], huge: 'x'.repeat(10) } });
  const e = await rejects(h.validating.validate!(attributes(pods, 'CREATE', pod('p'))));
  assert.equal(e.code, 500);
  assert.equal(e.message, 'admission webhook "odd.example.com" denied the request: odd');
  assert.deepEqual(e.details, { name: 'n', causes: [{ message: 'm' }] });
  const text = await h.metrics.registry.metrics();
  assert.match(text, /rejection_count\{name="odd.example.com",operation="CREATE",type="validating",error_type="no_error",rejection_code="600"\} 1/);
});

test('a kept-alive connection the webhook drops as it is reused: sent again once on a new connection', async () => {
  h.index.put('validating', configuration('cfg', [hook('reuse.example.com', wh.url(), wh.caBundle)]));
  await h.validating.validate!(attributes(pods, 'CREATE', pod('first')));
  const seen = new Set<string>();
  wh.answer = (c) => {
    if (seen.has(c.review.request.uid)) return allow(c);
    seen.add(c.review.request.uid);
    return 'reset';
  };
  await h.validating.validate!(attributes(pods, 'CREATE', pod('second')));
  assert.equal(wh.calls.length, 3);
  assert.equal(wh.calls[1]!.review.request.uid, wh.calls[2]!.review.request.uid);
  // A fresh connection that fails is not tried again: failurePolicy decides.
  h.close();
  h = harness();
  h.index.put('validating', configuration('cfg', [hook('reuse.example.com', wh.url(), wh.caBundle)]));
  const e = await rejects(h.validating.validate!(attributes(pods, 'CREATE', pod('third'))));
  assert.equal(e.code, 500);
  assert.match(e.message, /failed calling webhook "reuse.example.com"/);
});
