/**
 * `--audit-log-compress` over HTTP: with a 1 MB `--audit-log-maxsize`,
 * large RequestResponse events rotate the log; the rotated files become
 * `<name>-<time>.log.gz` (0600, gzip of whole JSON lines, the plain backup
 * removed), the live file stays plain, and `--audit-log-maxbackup` counts
 * the compressed backups.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { startTestServer } from '../support/test-server.ts';
import { AUDIT_API_VERSION, type AuditEvent } from '../../src/audit/types.ts';

const POLICY = [
  `apiVersion: ${AUDIT_API_VERSION}`,
  'kind: Policy',
  'rules:',
  '- level: RequestResponse',
  '  resources:',
  '  - group: ""',
  '    resources: ["configmaps"]',
  '- level: None',
  '',
].join('\n');

test('audit log compress: rotated files are gzipped, 0600, and counted as backups', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'orch-audit-gz-'));
  const policy = path.join(dir, 'policy.yaml');
  await fs.writeFile(policy, POLICY);
  const logDir = path.join(dir, 'logs');
  await fs.mkdir(logDir, { mode: 0o700 });
  const log = path.join(logDir, 'audit.log');
  const t = await startTestServer([`--audit-policy-file=${policy}`, `--audit-log-path=${log}`, '--audit-log-maxsize=1', '--audit-log-maxbackup=2', '--audit-log-compress']);
  const names: string[] = [];
  try {
    // Each create's ResponseComplete carries the object twice (request and response): about 0.8 MB.
    for (let i = 0; i < 6; i++) {
      const r = await t.request('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: { a: String(i).repeat(400_000) } });
      assert.equal(r.status, 201, r.body);
      names.push(`cm-${i}`);
    }
  } finally {
    // Stopping the server waits for the compression of the last rotation.
    await t.stop();
  }
  const files = (await fs.readdir(logDir)).sort();
  const gz = files.filter((f) => /^audit-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}\.log\.gz$/.test(f));
  assert.ok(files.includes('audit.log'), files.join(' '));
  assert.equal(gz.length, 2, `maxbackup keeps two compressed backups: ${files.join(' ')}`);
  assert.deepEqual(files.filter((f) => f !== 'audit.log' && !f.endsWith('.gz')), [], 'no plain backup left');
  const seen = new Set<string>();
  for (const f of [...gz, 'audit.log']) {
    const st = await fs.stat(path.join(logDir, f));
    assert.equal(st.mode & 0o777, 0o600, f);
    const raw = await fs.readFile(path.join(logDir, f));
    const text = f.endsWith('.gz') ? gunzipSync(raw).toString('utf8') : raw.toString('utf8');
    const events = text
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as AuditEvent);
    assert.ok(events.length > 0, f);
    for (const e of events) if (e.stage === 'ResponseComplete') seen.add((e.requestObject as { metadata?: { name?: string } } | undefined)?.metadata?.name ?? '');
  }
  // The last creates are in the files kept (the oldest backups were removed).
  assert.ok(seen.has('cm-5'), [...seen].join(','));
  await fs.rm(dir, { recursive: true, force: true });
});
