/**
 * The truncate plugin over HTTP (`--audit-{log,webhook}-truncate-*`): an
 * event over the max event size loses its request and response objects and
 * gets `audit.<suffix>/truncated: "true"`; one still too large is dropped
 * and counted (apiserver_audit_error_total{plugin="truncate"}); small events
 * keep their objects; the webhook's EventLists are split to stay within the
 * max batch size. Also the flags' defaults and the check that the batch size
 * is not below the event size.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestServer } from '../support/test-server.ts';
import { createTestWebhook } from '../authn/support/webhook-server.ts';
import { parseArgs, OptionsError } from '../../src/server/options.ts';
import { AUDIT_API_VERSION, type AuditEvent } from '../../src/audit/types.ts';
import { TRUNCATED_ANNOTATION } from '../../src/audit/truncate-backend.ts';
import { names } from '../../src/naming/index.ts';

const POLICY = [
  `apiVersion: ${AUDIT_API_VERSION}`,
  'kind: Policy',
  'rules:',
  '- level: None',
  '  nonResourceURLs: ["/metrics", "/healthz*"]',
  '- level: RequestResponse',
  '  resources:',
  '  - group: ""',
  '    resources: ["configmaps"]',
  '- level: Metadata',
  '',
].join('\n');

const MAX_EVENT = 3000;
const MAX_BATCH = 6000;

async function readEvents(file: string): Promise<AuditEvent[]> {
  const text = await fs.readFile(file, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as AuditEvent);
}

async function until(pred: () => Promise<boolean> | boolean, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await pred()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  assert.fail(`timed out waiting for ${what}`);
}

test('truncate flags: defaults as the original, sizes checked together', () => {
  assert.equal(TRUNCATED_ANNOTATION, `audit.${names.apiGroupSuffix}/truncated`);
  const a = parseArgs([]).audit;
  for (const t of [a.log.truncate, a.webhook.truncate]) assert.deepEqual(t, { enabled: false, maxEventSize: 102_400, maxBatchSize: 10_485_760 });
  const b = parseArgs(['--audit-webhook-truncate-enabled', '--audit-webhook-truncate-max-event-size=10', '--audit-webhook-truncate-max-batch-size=20']).audit;
  assert.deepEqual(b.webhook.truncate, { enabled: true, maxEventSize: 10, maxBatchSize: 20 });
  assert.throws(() => parseArgs(['--audit-log-truncate-max-event-size=200', '--audit-log-truncate-max-batch-size=100']), (e: unknown) => e instanceof OptionsError && /max batch size 100, must be greater than max event size \(200\)/.test(e.message));
  assert.throws(() => parseArgs(['--audit-log-truncate-max-event-size=0']), OptionsError);
});

test('truncate over HTTP: large events lose their objects, too large ones are dropped, webhook batches are split', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'orch-audit-truncate-'));
  const policy = path.join(dir, 'policy.yaml');
  await fs.writeFile(policy, POLICY);
  const log = path.join(dir, 'audit.log');
  const hook = await createTestWebhook();
  const t = await startTestServer([
    `--audit-policy-file=${policy}`,
    `--audit-log-path=${log}`,
    '--audit-log-truncate-enabled',
    `--audit-log-truncate-max-event-size=${MAX_EVENT}`,
    `--audit-log-truncate-max-batch-size=${MAX_BATCH}`,
    `--audit-webhook-config-file=${await hook.kubeconfig()}`,
    '--audit-webhook-batch-max-wait=300ms',
    '--audit-webhook-batch-throttle-enable=false',
    '--audit-webhook-truncate-enabled',
    `--audit-webhook-truncate-max-event-size=${MAX_EVENT}`,
    `--audit-webhook-truncate-max-batch-size=${MAX_BATCH}`,
  ]);
  try {
    const small = await t.request('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'small' }, data: { a: 'b' } });
    assert.equal(small.status, 201, small.body);
    const big = await t.request('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { a: 'x'.repeat(MAX_EVENT) } });
    assert.equal(big.status, 201, big.body);
    // A Metadata event over the limit with nothing to strip: its URI alone is too long.
    const long = await t.request('GET', `/api/v1/namespaces/default/pods?ignored=${'y'.repeat(MAX_EVENT)}`);
    const ids = { small: small.headers['audit-id'] as string, big: big.headers['audit-id'] as string, long: long.headers['audit-id'] as string };
    for (const id of Object.values(ids)) assert.equal(typeof id, 'string');

    await until(async () => (await readEvents(log)).some((e) => e.auditID === ids.big && e.stage === 'ResponseComplete'), 'the big create in the log');
    const events = await readEvents(log);
    const smallDone = events.find((e) => e.auditID === ids.small && e.stage === 'ResponseComplete');
    assert.ok(smallDone !== undefined);
    assert.equal((smallDone.requestObject as { metadata: { name: string } }).metadata.name, 'small');
    assert.equal((smallDone.responseObject as { metadata: { name: string } }).metadata.name, 'small');
    assert.equal(smallDone.annotations?.[TRUNCATED_ANNOTATION], undefined);
    const bigDone = events.find((e) => e.auditID === ids.big && e.stage === 'ResponseComplete');
    assert.ok(bigDone !== undefined);
    assert.equal(bigDone.requestObject, undefined);
    assert.equal(bigDone.responseObject, undefined);
    assert.equal(bigDone.annotations?.[TRUNCATED_ANNOTATION], 'true');
    assert.equal(bigDone.objectRef?.resource, 'configmaps', 'the metadata stays');
    for (const e of events) assert.ok(Buffer.byteLength(JSON.stringify(e)) <= MAX_EVENT, `event ${e.auditID} ${e.stage} within the limit`);
    assert.equal(events.filter((e) => e.auditID === ids.long).length, 0, 'the too-long event was dropped');

    // Enough events for several batches at the webhook.
    for (let i = 0; i < 10; i++) assert.equal((await t.request('GET', `/api/v1/namespaces/default/configmaps/small`)).status, 200);
    const lastId = (await t.request('GET', '/api/v1/namespaces/default/configmaps/small')).headers['audit-id'] as string;
    const atHook = (): AuditEvent[] => hook.calls.flatMap((c) => c.body['items'] as AuditEvent[]);
    await until(() => atHook().some((e) => e.auditID === lastId && e.stage === 'ResponseComplete'), 'the last GET at the webhook');
    assert.ok(hook.calls.length >= 2, `several EventLists (${hook.calls.length})`);
    for (const c of hook.calls) {
      const items = c.body['items'] as AuditEvent[];
      const size = items.reduce((n, e) => n + Buffer.byteLength(JSON.stringify(e)), 0);
      assert.ok(size <= MAX_BATCH, `a batch of ${items.length} events, ${size} bytes`);
    }
    assert.equal(atHook().find((e) => e.auditID === ids.big && e.stage === 'ResponseComplete')?.annotations?.[TRUNCATED_ANNOTATION], 'true');
    assert.ok(!atHook().some((e) => e.auditID === ids.long));

    const metrics = (await t.request('GET', '/metrics')).body;
    const dropped = Number(/^apiserver_audit_error_total\{plugin="truncate"\} (\d+)$/m.exec(metrics)?.[1] ?? 0);
    // Its RequestReceived and ResponseComplete, at the log and at the webhook.
    assert.ok(dropped >= 4, `dropped ${dropped}`);
  } finally {
    await t.stop();
    await hook.close();
    await fs.rm(dir, { recursive: true, force: true });
  }
});
