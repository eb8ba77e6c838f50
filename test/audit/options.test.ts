/**
 * The --audit-* flags: defaults as the original's (log blocking with batch
 * size 1, webhook batch 400 / 30s / throttled 10 qps burst 15, backoff 10s),
 * values parsed into the options' audit part, bad values refused at start.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, OptionsError } from '../../src/server/options.ts';
import { auditEnabled } from '../../src/audit/config.ts';
import { AUDIT_API_VERSION } from '../../src/audit/types.ts';

test('defaults', () => {
  const a = parseArgs([]).audit;
  assert.equal(auditEnabled(a), false);
  assert.equal(a.log.mode, 'blocking');
  assert.equal(a.log.format, 'json');
  assert.deepEqual(a.log.batch, { bufferSize: 10_000, maxSize: 1, maxWaitMs: 0, throttleEnable: false, throttleQps: 0, throttleBurst: 0 });
  assert.equal(a.webhook.mode, 'batch');
  assert.equal(a.webhook.initialBackoffMs, 10_000);
  assert.deepEqual(a.webhook.batch, { bufferSize: 10_000, maxSize: 400, maxWaitMs: 30_000, throttleEnable: true, throttleQps: 10, throttleBurst: 15 });
});

test('flags set the audit options; bad values stop the start', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'orch-audit-opts-'));
  const policy = path.join(dir, 'p.yaml');
  await fs.writeFile(policy, 'x');
  const a = parseArgs([
    `--audit-policy-file=${policy}`,
    '--audit-log-path=-',
    '--audit-log-format=legacy',
    '--audit-log-mode=batch',
    '--audit-log-maxsize=5',
    '--audit-log-maxbackup=3',
    '--audit-log-maxage=7',
    '--audit-log-batch-max-size=50',
    '--audit-log-batch-max-wait=2s',
    '--audit-webhook-mode=blocking-strict',
    '--audit-webhook-initial-backoff=250ms',
    '--audit-webhook-batch-throttle-enable=false',
    `--audit-log-version=${AUDIT_API_VERSION}`,
  ]).audit;
  assert.equal(auditEnabled(a), true);
  assert.equal(a.log.path, '-');
  assert.equal(a.log.format, 'legacy');
  assert.equal(a.log.mode, 'batch');
  assert.deepEqual([a.log.maxSizeMB, a.log.maxBackups, a.log.maxAgeDays], [5, 3, 7]);
  assert.equal(a.log.batch.maxSize, 50);
  assert.equal(a.log.batch.maxWaitMs, 2000);
  assert.equal(a.webhook.mode, 'blocking-strict');
  assert.equal(a.webhook.initialBackoffMs, 250);
  assert.equal(a.webhook.batch.throttleEnable, false);
  for (const [arg, re] of [
    ['--audit-log-mode=sometimes', /allowed modes are "batch,blocking,blocking-strict"/],
    ['--audit-log-format=xml', /allowed formats are "json,legacy"/],
    ['--audit-log-maxsize=-1', /audit-log-maxsize/],
    ['--audit-log-batch-max-size=0', /at least 1/],
    ['--audit-webhook-initial-backoff=soon', /invalid duration/],
    ['--audit-log-version=audit.example.com/v1', /only audit\./],
    [`--audit-policy-file=${path.join(dir, 'missing.yaml')}`, /--audit-policy-file: cannot read/],
  ] as const) {
    assert.throws(() => parseArgs([arg]), (e: unknown) => e instanceof OptionsError && re.test(e.message), arg);
  }
  await fs.rm(dir, { recursive: true });
});
