/**
 * The audit filter in the chain (test/server/harness.ts, a recording sink):
 * the Panic stage for a handler that fails with an error of the server's
 * making, ResponseStarted before ResponseComplete for a watch, the
 * authorizer's decision and reason, omitted stages, the Audit-Id header, and
 * blocking-strict refusing a request whose RequestReceived event failed
 * (the handler never runs).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness } from '../server/harness.ts';
import { withAudit, withFailedAuthenticationAudit } from '../../src/audit/filter.ts';
import { PolicyChecker } from '../../src/audit/policy.ts';
import type { AuditSink } from '../../src/audit/sink.ts';
import type { AuditEntry } from '../../src/audit/entry.ts';
import { decodeLines, type EncodedLines } from '../../src/audit/lines.ts';
import { DECISION_ANNOTATION, REASON_ANNOTATION, type AuditEvent, type Policy } from '../../src/audit/types.ts';
import { createLogger } from '../../src/server/logging.ts';

class RecordingSink implements AuditSink {
  events: AuditEvent[] = [];
  failNext = 0;
  constructor(
    readonly blocking: boolean,
    readonly acceptsLines = false,
  ) {}
  processLines(lines: EncodedLines): void {
    for (const json of decodeLines(lines)) this.events.push(JSON.parse(json) as AuditEvent);
  }
  async process(entry: AuditEntry): Promise<void> {
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error('backend down');
    }
    // What the backends would write, read back.
    this.events.push(JSON.parse(entry.json) as AuditEvent);
  }
  async close(): Promise<void> {}
}

function setup(policy: Policy, blocking = false, lines = false): { h: ReturnType<typeof createHarness>; sink: RecordingSink } {
  const sink = new RecordingSink(blocking, lines);
  const deps = { checker: new PolicyChecker(policy), sink, logger: createLogger({ level: 'silent' }) };
  return { h: createHarness({}, { audit: withAudit(deps).filter, auditFailedAuthentication: withFailedAuthenticationAudit(deps) }), sink };
}

async function settle(sink: RecordingSink, n: number): Promise<void> {
  // Batch mode gathers events for a few milliseconds before it hands them over.
  for (let i = 0; i < 200 && sink.events.length < n; i++) await new Promise((r) => setTimeout(r, 5));
}

const METADATA: Policy = { rules: [{ level: 'Metadata' }] };

// Batch mode either way the events reach the sink: one by one, or a turn's events as encoded lines (the log alone).
for (const lines of [false, true]) {
  const suffix = lines ? ' (events as encoded lines)' : '';
  test(`a handler panic gives the Panic stage with 500; a Status error a ResponseComplete with its code${suffix}`, async () => {
    const { h, sink } = setup(METADATA, false, lines);
    const res = await h.send('GET', '/api/v1/namespaces/default/pods/x', { token: 'alice-token', test: 'panic' });
    assert.equal(res.status, 500);
    await settle(sink, 2);
    assert.deepEqual(sink.events.map((e) => e.stage), ['RequestReceived', 'Panic']);
    assert.equal(sink.events[1]!.responseStatus?.code, 500);
    assert.equal(sink.events[1]!.auditID, res.headers['audit-id']);
    assert.doesNotMatch(JSON.stringify(sink.events), /secret internals/, 'the error text stays in the server log');

    sink.events = [];
    const nf = await h.send('GET', '/api/v1/namespaces/default/pods/x', { token: 'alice-token', test: 'status-error' });
    assert.equal(nf.status, 404);
    await settle(sink, 2);
    assert.deepEqual(sink.events.map((e) => [e.stage, e.responseStatus?.code]), [['RequestReceived', undefined], ['ResponseComplete', 404]]);
  });

  test(`a watch: ResponseStarted when its head goes out, ResponseComplete when it ends${suffix}`, async () => {
    const { h, sink } = setup(METADATA, false, lines);
    const w = h.start('GET', '/api/v1/namespaces/default/pods?watch=1', { token: 'alice-token' });
    await settle(sink, 2);
    assert.deepEqual(sink.events.map((e) => e.stage), ['RequestReceived', 'ResponseStarted']);
    assert.equal(sink.events[1]!.verb, 'watch');
    assert.equal(sink.events[1]!.responseStatus?.code, 200);
    w.disconnect();
    await w.done;
    await settle(sink, 3);
    assert.deepEqual(sink.events.map((e) => e.stage), ['RequestReceived', 'ResponseStarted', 'ResponseComplete']);
  });

  test(`the authorizer's decision and reason are annotations; omitted stages are not sent${suffix}`, async () => {
    const { h, sink } = setup({ omitStages: ['RequestReceived'], rules: [{ level: 'Metadata' }] }, false, lines);
    const res = await h.send('GET', '/api/v1/namespaces/default/pods', { token: 'carol-token' });
    assert.equal(res.status, 403);
    await settle(sink, 1);
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(sink.events.length, 1);
    const ev = sink.events[0]!;
    assert.equal(ev.stage, 'ResponseComplete');
    assert.equal(ev.user.username, 'carol');
    assert.equal(ev.annotations?.[DECISION_ANNOTATION], 'forbid');
    assert.equal(ev.annotations?.[REASON_ANNOTATION], 'no RBAC policy matched');
  });
}

test('level None: no event; the Audit-Id header all the same (the original sends it on every response)', async () => {
  const { h, sink } = setup({ rules: [{ level: 'None', users: ['alice'] }, { level: 'Metadata' }] });
  const res = await h.send('GET', '/api/v1/namespaces', { token: 'alice-token' });
  assert.equal(res.status, 200);
  assert.equal(typeof res.headers['audit-id'], 'string');
  const other = await h.send('GET', '/api/v1/namespaces', { token: 'admin-token' });
  assert.equal(typeof other.headers['audit-id'], 'string');
  await settle(sink, 2);
  assert.ok(sink.events.every((e) => e.user.username === 'admin'));
});

test('blocking sink: a failed RequestReceived write answers 500 and the handler never runs', async () => {
  const { h, sink } = setup(METADATA, true);
  sink.failNext = 1;
  const res = await h.send('GET', '/api/v1/namespaces', { token: 'alice-token' });
  assert.equal(res.status, 500);
  assert.match(res.text, /failed to store audit event/);
  assert.equal(h.seen.length, 0);
  const ok = await h.send('GET', '/api/v1/namespaces', { token: 'alice-token' });
  assert.equal(ok.status, 200);
  assert.deepEqual(sink.events.map((e) => e.stage), ['RequestReceived', 'ResponseComplete']);
});

test('a request authentication refuses (401): one ResponseStarted event without a user, as the original', async () => {
  const { h, sink } = setup({ rules: [{ level: 'None', users: ['alice'] }, { level: 'Request' }] });
  const res = await h.send('GET', '/api/v1/namespaces', { token: 'not-a-token' });
  assert.equal(res.status, 401);
  await settle(sink, 1);
  assert.equal(sink.events.length, 1);
  const ev = sink.events[0]!;
  assert.equal(ev.stage, 'ResponseStarted');
  assert.equal(ev.level, 'Request');
  assert.equal(ev.user.username, '');
  assert.equal(ev.responseStatus?.code, 401);
  assert.deepEqual(ev.sourceIPs, ['127.0.0.1'], 'the peer, read while the 401 went out');
  assert.doesNotMatch(JSON.stringify(ev), /not-a-token/, 'the rejected credential is not in the event');
});
