/**
 * The audit backends on their own: the log file (json and legacy lines, 0600,
 * rotation with maxbackup), batching (sizes, waits), the webhook backend
 * against a real HTTPS receiver (EventList POSTs, retry with backoff), and
 * the blocking / blocking-strict failure behaviour.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { LogBackend, legacyLine } from '../../src/audit/log-backend.ts';
import { WebhookBackend } from '../../src/audit/webhook-backend.ts';
import { LocalAuditSink, type AuditBackend, type BatchOptions } from '../../src/audit/sink.ts';
import { entryOf, type AuditEntry } from '../../src/audit/entry.ts';
import { AUDIT_API_VERSION, type AuditEvent } from '../../src/audit/types.ts';
import { createTestWebhook } from '../authn/support/webhook-server.ts';

function event(i: number, extra: Partial<AuditEvent> = {}): AuditEvent {
  return {
    kind: 'Event',
    apiVersion: AUDIT_API_VERSION,
    level: 'Metadata',
    auditID: `id-${i}`,
    stage: 'ResponseComplete',
    requestURI: `/api/v1/namespaces/default/pods/p${i}`,
    verb: 'get',
    user: { username: 'alice', groups: ['devs', 'system:authenticated'] },
    sourceIPs: ['127.0.0.1'],
    userAgent: 'kubectl/v1.32',
    objectRef: { resource: 'pods', namespace: 'default', name: `p${i}`, apiVersion: 'v1' },
    responseStatus: { metadata: {}, code: 200 },
    requestReceivedTimestamp: '2026-01-02T03:04:05.123000Z',
    stageTimestamp: '2026-01-02T03:04:05.124000Z',
    ...extra,
  };
}

const noBatchWait: BatchOptions = { bufferSize: 100, maxSize: 3, maxWaitMs: 20, throttleEnable: false, throttleQps: 0, throttleBurst: 0 };

async function until(pred: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !pred(); i++) await new Promise((r) => setTimeout(r, 20));
}

async function tmpDir(): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), 'orch-audit-'));
}

test('log backend, json: one Event per line, file 0600', async () => {
  const dir = await tmpDir();
  const file = path.join(dir, 'audit.log');
  const log = await LogBackend.open({ path: file, format: 'json', maxSizeMB: 0, maxBackups: 0, maxAgeDays: 0 });
  await log.write([event(1), event(2)].map(entryOf));
  await log.write([event(3)].map(entryOf));
  await log.close();
  const lines = (await fs.readFile(file, 'utf8')).trimEnd().split('\n');
  assert.equal(lines.length, 3);
  const parsed = lines.map((l) => JSON.parse(l) as AuditEvent);
  assert.deepEqual(parsed.map((e) => e.auditID), ['id-1', 'id-2', 'id-3']);
  assert.equal(parsed[0]!.kind, 'Event');
  assert.equal(parsed[0]!.apiVersion, AUDIT_API_VERSION);
  assert.equal((await fs.stat(file)).mode & 0o777, 0o600);
  await fs.rm(dir, { recursive: true });
});

test('log backend, legacy: the original\'s EventString line', async () => {
  assert.equal(
    legacyLine(event(7)),
    '2026-01-02T03:04:05.123Z AUDIT: id="id-7" stage="ResponseComplete" ip="127.0.0.1" method="get" user="alice" groups="\\"devs\\",\\"system:authenticated\\"" as="<self>" asgroups="<lookup>" user-agent="kubectl/v1.32" namespace="default" uri="/api/v1/namespaces/default/pods/p7" response="200"',
  );
  const received = legacyLine(event(8, { stage: 'RequestReceived', responseStatus: undefined, objectRef: undefined, impersonatedUser: { username: 'bob', groups: ['ops'] } }));
  assert.match(received, / as="bob" asgroups="\\"ops\\"" /);
  assert.match(received, / namespace="<none>" /);
  assert.match(received, / response="<deferred>"$/);
  const dir = await tmpDir();
  const file = path.join(dir, 'audit.log');
  const log = await LogBackend.open({ path: file, format: 'legacy', maxSizeMB: 0, maxBackups: 0, maxAgeDays: 0 });
  await log.write([event(1), event(2)].map(entryOf));
  await log.close();
  const lines = (await fs.readFile(file, 'utf8')).trimEnd().split('\n');
  assert.equal(lines.length, 2);
  assert.match(lines[1]!, /^2026-01-02T03:04:05\.123Z AUDIT: id="id-2" /);
  await fs.rm(dir, { recursive: true });
});

test('log backend rotation: past maxsize the file is renamed with its time; maxbackup old files kept', async () => {
  const dir = await tmpDir();
  const file = path.join(dir, 'audit.log');
  const log = await LogBackend.open({ path: file, format: 'json', maxSizeMB: 1, maxBackups: 2, maxAgeDays: 0 });
  // ~400 KB per write: the 1 MiB file rotates every third write.
  const big = (i: number): AuditEvent => event(i, { annotations: { filler: 'x'.repeat(400 * 1024) } });
  for (let i = 0; i < 12; i++) await log.write([big(i)].map(entryOf));
  await log.close();
  const files = (await fs.readdir(dir)).sort();
  const backups = files.filter((f) => /^audit-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}\.log$/.test(f));
  assert.equal(backups.length, 2, files.join(', '));
  assert.ok(files.includes('audit.log'));
  for (const f of files) {
    const st = await fs.stat(path.join(dir, f));
    assert.ok(st.size <= 1024 * 1024, `${f} is ${st.size} bytes`);
    if (f === 'audit.log') assert.equal(st.mode & 0o777, 0o600);
  }
  // The newest events are in the current file, the oldest were dropped with the removed backups.
  const current = (await fs.readFile(file, 'utf8')).trimEnd().split('\n').map((l) => (JSON.parse(l) as AuditEvent).auditID);
  assert.equal(current.at(-1), 'id-11');
  const all = (await Promise.all(files.map((f) => fs.readFile(path.join(dir, f), 'utf8')))).join('');
  assert.ok(!all.includes('"id-0"'), 'the oldest backup was removed');
  await fs.rm(dir, { recursive: true });
});

/** A backend that records batches and fails while `failing` is set. */
class Recorder implements AuditBackend {
  readonly name = 'recorder';
  batches: string[][] = [];
  failing = false;
  async write(events: readonly AuditEntry[]): Promise<void> {
    if (this.failing) throw new Error('disk gone');
    this.batches.push(events.map((e) => e.event().auditID));
  }
  async close(): Promise<void> {}
}

test('batch mode: events go out in batches of max-size, a partial batch after max-wait; a full buffer drops', async () => {
  const rec = new Recorder();
  const reports: string[] = [];
  const sink = new LocalAuditSink([{ backend: rec, mode: 'batch', batch: noBatchWait }], (_e, what) => reports.push(what));
  assert.equal(sink.blocking, false);
  for (let i = 0; i < 7; i++) await sink.process(entryOf(event(i)));
  // The last, partial batch goes when max-wait passes (no close() here to flush it).
  await until(() => rec.batches.flat().length === 7);
  assert.deepEqual(rec.batches, [['id-0', 'id-1', 'id-2'], ['id-3', 'id-4', 'id-5'], ['id-6']]);

  const slow = new Recorder();
  const small = new LocalAuditSink([{ backend: slow, mode: 'batch', batch: { ...noBatchWait, bufferSize: 2, maxSize: 10, maxWaitMs: 50 } }], (_e, what) => reports.push(what));
  for (let i = 0; i < 5; i++) await small.process(entryOf(event(i)));
  assert.equal(small.dropped, 3);
  assert.ok(reports.some((r) => r.includes('recorder')));
  await small.close();
  assert.deepEqual(slow.batches, [['id-0', 'id-1']]);
  await sink.close();
});

test('blocking: a failed write is reported, the request goes on; blocking-strict: the failure reaches the caller', async () => {
  const rec = new Recorder();
  rec.failing = true;
  const reports: string[] = [];
  const blocking = new LocalAuditSink([{ backend: rec, mode: 'blocking', batch: noBatchWait }], (_e, what) => reports.push(what));
  assert.equal(blocking.blocking, true);
  await blocking.process(entryOf(event(1)));
  assert.equal(reports.length, 1);
  const strict = new LocalAuditSink([{ backend: rec, mode: 'blocking-strict', batch: noBatchWait }], () => undefined);
  await assert.rejects(strict.process(entryOf(event(2))), /disk gone/);
  rec.failing = false;
  await strict.process(entryOf(event(3)));
  assert.deepEqual(rec.batches, [['id-3']]);
});

test('webhook backend: EventList POSTs over HTTPS with the kubeconfig\'s client certificate, batched, retried after a 5xx', async (t) => {
  const hook = await createTestWebhook();
  t.after(() => hook.close());
  const kubeconfig = await hook.kubeconfig({ clientCN: 'orch-audit' });
  const backend = await WebhookBackend.open({ configFile: kubeconfig, initialBackoffMs: 10 });
  let fails = 1;
  hook.answer = () => (fails-- > 0 ? { status: 503, body: { kind: 'Status' } } : { status: 200, body: {} });
  const sink = new LocalAuditSink([{ backend, mode: 'batch', batch: { ...noBatchWait, maxSize: 4, maxWaitMs: 30 } }], () => undefined);
  for (let i = 0; i < 6; i++) await sink.process(entryOf(event(i)));
  await sink.close();
  const lists = hook.calls.map((c) => c.body);
  // The first batch was refused once (503) and sent again.
  assert.equal(lists.length, 3);
  for (const l of lists) {
    assert.equal(l['kind'], 'EventList');
    assert.equal(l['apiVersion'], AUDIT_API_VERSION);
  }
  const ids = (l: Record<string, unknown>): string[] => (l['items'] as AuditEvent[]).map((e) => e.auditID);
  assert.deepEqual(ids(lists[0]!), ['id-0', 'id-1', 'id-2', 'id-3']);
  assert.deepEqual(ids(lists[1]!), ['id-0', 'id-1', 'id-2', 'id-3']);
  assert.deepEqual(ids(lists[2]!), ['id-4', 'id-5']);
  assert.ok(hook.calls.every((c) => c.clientCN === 'orch-audit'));
});

test('webhook backend, blocking-strict: a receiver that refuses fails the write (4xx: no retry)', async (t) => {
  const hook = await createTestWebhook();
  t.after(() => hook.close());
  const backend = await WebhookBackend.open({ configFile: await hook.kubeconfig(), initialBackoffMs: 10 });
  hook.answer = () => ({ status: 400, body: {} });
  const strict = new LocalAuditSink([{ backend, mode: 'blocking-strict', batch: noBatchWait }], () => undefined);
  await assert.rejects(strict.process(entryOf(event(1))), /answered 400/);
  assert.equal(hook.calls.length, 1);
  hook.answer = () => ({ status: 200, body: {} });
  await strict.process(entryOf(event(2)));
  assert.equal(hook.calls.length, 2);
  await strict.close();
});

test('webhook backend: a plain-http server is refused at start (credentials travel)', async () => {
  const dir = await tmpDir();
  const file = path.join(dir, 'hook.kubeconfig');
  await fs.writeFile(file, 'apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: http://127.0.0.1:1/\ncontexts:\n- name: x\n  context:\n    cluster: c\ncurrent-context: x\n');
  await assert.rejects(WebhookBackend.open({ configFile: file, initialBackoffMs: 10 }), /must be https/);
  await fs.rm(dir, { recursive: true });
});
