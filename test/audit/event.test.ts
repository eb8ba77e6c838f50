/**
 * Event building: webhook patch annotations only at Request level and above
 * (spec 6.2), mutation annotations at Metadata; managed fields dropped from
 * request objects when the rule says so; source IPs from X-Forwarded-For and
 * the peer; credential-like query parameters left out of requestURI.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildEvent, type AuditRecord } from '../../src/audit/event.ts';
import { RequestContext } from '../../src/server/context.ts';
import { TrackedResponse } from '../../src/server/filters/tracked-response.ts';
import { names } from '../../src/naming/index.ts';
import type { Level } from '../../src/audit/types.ts';
import { exchange } from '../server/fake-http.ts';

function record(level: Level, omitManagedFields = false, url = '/api/v1/namespaces/default/pods'): AuditRecord {
  const ex = exchange('POST', url, { headers: { 'x-forwarded-for': '10.1.2.3, 10.0.0.1', 'user-agent': 'ua' } });
  const ctx = new RequestContext(ex.req, new TrackedResponse(ex.res));
  ctx.user = { name: 'alice', groups: ['devs'] };
  ctx.status = 201;
  const s = names.apiGroupSuffix;
  ctx.annotate(`mutation.webhook.admission.${s}/round_0_index_0`, '{"configuration":"c","webhook":"w","mutated":true}');
  ctx.annotate(`patch.webhook.admission.${s}/round_0_index_0`, '{"configuration":"c","webhook":"w","patchType":"JSONPatch","patch":[]}');
  const body = { metadata: { name: 'p', managedFields: [{ manager: 'kubectl' }] }, spec: {} };
  return { ctx, level, omitManagedFields, receivedAt: Date.now(), remoteAddress: '::ffff:127.0.0.1', requestBody: new TextEncoder().encode(JSON.stringify(body)), responseChunks: undefined, responseBytes: 0 };
}

test('webhook patch annotations from Request level; mutation annotations from Metadata', () => {
  const s = names.apiGroupSuffix;
  const meta = buildEvent(record('Metadata'), 'ResponseComplete', Date.now());
  assert.ok(meta.annotations?.[`mutation.webhook.admission.${s}/round_0_index_0`]);
  assert.equal(meta.annotations?.[`patch.webhook.admission.${s}/round_0_index_0`], undefined);
  assert.equal(meta.requestObject, undefined);
  const req = buildEvent(record('Request'), 'ResponseComplete', Date.now());
  assert.ok(req.annotations?.[`patch.webhook.admission.${s}/round_0_index_0`]);
  // RequestReceived comes before admission: no annotations yet.
  assert.equal(buildEvent(record('Request'), 'RequestReceived', Date.now()).annotations, undefined);
});

test('omitManagedFields drops metadata.managedFields from the request object', () => {
  const kept = buildEvent(record('Request'), 'ResponseComplete', Date.now()).requestObject as { metadata: Record<string, unknown> };
  assert.ok('managedFields' in kept.metadata);
  const dropped = buildEvent(record('Request', true), 'ResponseComplete', Date.now()).requestObject as { metadata: Record<string, unknown> };
  assert.equal('managedFields' in dropped.metadata, false);
  assert.equal(dropped.metadata['name'], 'p');
});

test('source IPs, user agent, requestURI without credentials, timestamps with microseconds', () => {
  const ev = buildEvent(record('Metadata', false, '/api/v1/namespaces/default/pods?dryRun=All&token=s3cr3t'), 'ResponseComplete', Date.now());
  assert.deepEqual(ev.sourceIPs, ['10.1.2.3', '10.0.0.1', '127.0.0.1']);
  assert.equal(ev.userAgent, 'ua');
  assert.equal(ev.requestURI, '/api/v1/namespaces/default/pods?dryRun=All');
  assert.match(ev.requestReceivedTimestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
  assert.equal(ev.user.username, 'alice');
  assert.equal(ev.responseStatus?.code, 201);
});

test('the fast Metadata JSON is the event buildEvent gives, for every stage and shape of request', async () => {
  const { eventJson } = await import('../../src/audit/serialize.ts');
  const { parseRequestInfo } = await import('../../src/server/filters/with-request-info.ts');
  const s = names.apiGroupSuffix;
  const cases: Array<{ url: string; method?: string; headers?: Record<string, string>; impersonate?: boolean; user?: boolean; status?: number; authz?: boolean; remote?: string }> = [
    { url: '/api/v1/namespaces/default/configmaps/cm-1' },
    { url: '/api/v1/namespaces/default/pods', method: 'POST', headers: { 'x-forwarded-for': '10.1.2.3, 10.0.0.1', 'user-agent': 'kubectl/"quoted" \u00e9' }, impersonate: true, status: 201 },
    { url: '/apis/apps/v1/deployments?limit=5&token=s3cr3t', headers: { 'x-real-ip': '10.9.9.9' }, status: 403, authz: true },
    { url: '/healthz', user: false, status: 401, remote: '::1' },
    { url: '/api/v1/namespaces/default/pods/p/log', status: 404, authz: true, remote: '' },
  ];
  for (const c of cases) {
    const ex = exchange(c.method ?? 'GET', c.url, { headers: c.headers ?? {} });
    const ctx = new RequestContext(ex.req, new TrackedResponse(ex.res));
    ctx.info = parseRequestInfo(c.method ?? 'GET', ex.req.path, ex.req.query);
    if (c.user !== false) ctx.user = { name: 'alice', uid: 'u-1', groups: ['devs', 'system:authenticated'], extra: { scopes: ['a', 'b'] } };
    ctx.status = c.status ?? 200;
    const rec: AuditRecord = { ctx, level: 'Metadata', omitManagedFields: false, receivedAt: Date.now() - 3, remoteAddress: c.remote ?? '::ffff:127.0.0.1', requestBody: undefined, responseChunks: undefined, responseBytes: 0 };
    const at = Date.now();
    // RequestReceived first (before impersonation and authorization ran), then the others.
    assert.deepEqual(JSON.parse(eventJson(rec, 'RequestReceived', at)), JSON.parse(JSON.stringify(buildEvent(rec, 'RequestReceived', at))), `${c.url} RequestReceived`);
    if (c.impersonate === true) {
      ctx.impersonator = ctx.user;
      ctx.user = { name: 'bob', groups: ['system:authenticated'] };
    }
    if (c.authz === true) ctx.authorization = { decision: ctx.status === 403 ? 'deny' : 'allow', reason: 'RBAC: "quoted" reason' };
    ctx.annotate(`mutation.webhook.admission.${s}/round_0_index_0`, '{"configuration":"c"}');
    ctx.annotate(`patch.webhook.admission.${s}/round_0_index_0`, '{"patch":[]}');
    for (const stage of ['ResponseStarted', 'ResponseComplete', 'Panic'] as const) {
      const fast = JSON.parse(eventJson(rec, stage, at)) as Record<string, unknown>;
      assert.deepEqual(fast, JSON.parse(JSON.stringify(buildEvent(rec, stage, at))), `${c.url} ${stage}`);
    }
    if (c.impersonate === true) assert.equal((JSON.parse(eventJson(rec, 'ResponseComplete', at)) as { impersonatedUser: { username: string } }).impersonatedUser.username, 'bob');
  }
});
