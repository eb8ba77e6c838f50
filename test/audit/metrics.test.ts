/**
 * The audit metrics over HTTP, with the original's names: events handed to
 * the backends (apiserver_audit_event_total), the policy's level per request
 * (apiserver_audit_level_total{level}), events lost per plugin
 * (apiserver_audit_error_total{plugin}: a webhook refusing every batch, a log
 * that cannot be written) and requests refused because their event could not
 * be stored (apiserver_audit_requests_rejected_total, blocking-strict).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { createTestWebhook } from '../authn/support/webhook-server.ts';
import { AUDIT_API_VERSION } from '../../src/audit/types.ts';

const POLICY = [`apiVersion: ${AUDIT_API_VERSION}`, 'kind: Policy', 'rules:', '- level: None', '  nonResourceURLs: ["/metrics", "/healthz*"]', '- level: Metadata', ''].join('\n');

/** One sample of the scrape (0 when absent). */
function sample(text: string, series: string): number {
  for (const line of text.split('\n')) {
    if (line.startsWith(`${series} `)) return Number(line.slice(series.length + 1));
  }
  return 0;
}

async function scrape(t: TestServer): Promise<string> {
  const r = await t.request('GET', '/metrics');
  assert.equal(r.status, 200);
  return r.body;
}

test('audit metrics: events, levels, and a webhook that refuses every batch', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'orch-audit-metrics-'));
  const policy = path.join(dir, 'policy.yaml');
  await fs.writeFile(policy, POLICY);
  const hook = await createTestWebhook();
  // 400 is not retried: each blocking write fails at once.
  hook.answer = () => ({ status: 400, body: {} });
  const t = await startTestServer([
    `--audit-policy-file=${policy}`,
    `--audit-log-path=${path.join(dir, 'audit.log')}`,
    `--audit-webhook-config-file=${await hook.kubeconfig()}`,
    '--audit-webhook-mode=blocking',
  ]);
  try {
    const before = await scrape(t);
    for (const line of ['apiserver_audit_event_total', 'apiserver_audit_error_total', 'apiserver_audit_level_total', 'apiserver_audit_requests_rejected_total']) {
      assert.match(before, new RegExp(`^# TYPE ${line} counter$`, 'm'), line);
    }
    const n = 5;
    for (let i = 0; i < n; i++) assert.equal((await t.request('GET', '/api/v1/namespaces/default')).status, 200);
    // A ResponseComplete event is written once the response went out: wait for the last one's failure.
    let after = await scrape(t);
    for (let i = 0; i < 100 && sample(after, 'apiserver_audit_error_total{plugin="webhook"}') < 2 * n; i++) {
      await new Promise((r) => setTimeout(r, 50));
      after = await scrape(t);
    }
    const diff = (series: string): number => sample(after, series) - sample(before, series);
    // RequestReceived and ResponseComplete of each GET.
    assert.ok(diff('apiserver_audit_event_total') >= 2 * n, `events: ${diff('apiserver_audit_event_total')}`);
    assert.ok(diff('apiserver_audit_level_total{level="Metadata"}') >= n);
    // The scrapes themselves are evaluated at None.
    assert.ok(sample(after, 'apiserver_audit_level_total{level="None"}') >= 1);
    assert.ok(diff('apiserver_audit_error_total{plugin="webhook"}') >= 2 * n, `webhook errors: ${diff('apiserver_audit_error_total{plugin="webhook"}')}`);
    assert.equal(sample(after, 'apiserver_audit_error_total{plugin="log"}'), 0, 'the log took every event');
    assert.equal(sample(after, 'apiserver_audit_requests_rejected_total'), 0);
  } finally {
    await t.stop();
    await hook.close();
    await fs.rm(dir, { recursive: true, force: true });
  }
});

test('audit metrics: a blocking-strict log that cannot be written rejects requests and counts them', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'orch-audit-metrics-'));
  const policy = path.join(dir, 'policy.yaml');
  await fs.writeFile(policy, POLICY);
  // /dev/full takes the open and refuses every write (ENOSPC).
  const t = await startTestServer([`--audit-policy-file=${policy}`, '--audit-log-path=/dev/full', '--audit-log-mode=blocking-strict']);
  try {
    for (let i = 0; i < 3; i++) assert.equal((await t.request('GET', '/api/v1/namespaces/default')).status, 500);
    const text = await scrape(t);
    assert.equal(sample(text, 'apiserver_audit_requests_rejected_total'), 3);
    assert.ok(sample(text, 'apiserver_audit_error_total{plugin="log"}') >= 3);
  } finally {
    await t.stop();
    await fs.rm(dir, { recursive: true, force: true });
  }
});
