/**
 * Audit with two serving threads (--frontend-threads=2): the worker thread's
 * events reach the main thread's backends, so one file has one writer and
 * holds every request's events as whole lines; the webhook backend (batch
 * mode, a real HTTPS receiver) gets the same events in EventLists. Each GET
 * goes on a new connection; the per-thread request counter shows both
 * threads served.
 *
 * With the log alone (batch mode, its default batches) the threads hand over
 * a turn's events as encoded lines (src/audit/lines.ts): the second case
 * checks those lines are whole, in UTF-8, and that none is lost.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import http2 from 'node:http2';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { UWS_DISABLED } from '../support/uws-toggle.ts';
import { createTestWebhook, type TestWebhook } from '../authn/support/webhook-server.ts';
import { AUDIT_API_VERSION, type AuditEvent } from '../../src/audit/types.ts';

const REQUESTS = 30;
let t: TestServer;
let hook: TestWebhook;
let dir: string;
let log: string;

before(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'orch-audit-threads-'));
  const policy = path.join(dir, 'policy.yaml');
  await fs.writeFile(policy, `apiVersion: ${AUDIT_API_VERSION}\nkind: Policy\nrules:\n- level: None\n  nonResourceURLs: ["/metrics"]\n- level: Metadata\n`);
  log = path.join(dir, 'audit.log');
  hook = await createTestWebhook();
  hook.answer = () => ({ status: 200, body: {} });
  t = await startTestServer([
    '--frontend-threads=2',
    `--audit-policy-file=${policy}`,
    `--audit-log-path=${log}`,
    `--audit-webhook-config-file=${await hook.kubeconfig()}`,
    '--audit-webhook-batch-max-wait=100ms',
    '--audit-webhook-batch-max-size=25',
  ]);
});

after(async () => {
  await t?.stop();
  await hook?.close();
  await fs.rm(dir, { recursive: true, force: true });
});

async function freshGet(urlPath: string, server: TestServer = t, extra: Record<string, string> = {}): Promise<{ status: number; auditID: string | undefined; body: string }> {
  const files = server.server.files;
  const ca = await fs.readFile(files.caCertPath);
  const port = !UWS_DISABLED && server.uwsPort !== null ? server.uwsPort : server.securePort;
  return new Promise((resolve, reject) => {
    const req = https.request(
      { host: '127.0.0.1', port, method: 'GET', path: urlPath, agent: false, ca, servername: 'localhost', headers: { authorization: `Bearer ${files.adminToken}`, accept: 'application/json', ...extra } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, auditID: res.headers['audit-id'] as string | undefined, body: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function until(pred: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await pred()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.fail(`timed out waiting for ${what}`);
}

/** The log's events (every line whole JSON). */
async function readEvents(file: string): Promise<AuditEvent[]> {
  return (await fs.readFile(file, 'utf8'))
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as AuditEvent);
}

/** Waits until every request of `ids` has its ResponseComplete in the log; its events then. */
async function untilLogged(file: string, ids: readonly string[]): Promise<AuditEvent[]> {
  await until(async () => {
    const done = new Set((await readEvents(file)).filter((e) => e.stage === 'ResponseComplete').map((e) => e.auditID));
    return ids.every((id) => done.has(id));
  }, 'every request in the log');
  return readEvents(file);
}

describe('audit with several serving threads', () => {
  it('every thread\'s events in the one log and at the webhook', async () => {
    const ids: string[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const r = await freshGet('/api/v1/namespaces/default');
      assert.equal(r.status, 200);
      assert.ok(r.auditID !== undefined);
      ids.push(r.auditID);
    }
    const metrics = (await freshGet('/metrics')).body;
    const served = [...metrics.matchAll(/^apiserver_frontend_thread_requests_total\{thread="(\d+)"\} (\d+)$/gm)].filter((m) => Number(m[2]) > 0).map((m) => m[1]);
    const events = await untilLogged(log, ids);
    for (const id of ids) {
      const stages = events.filter((e) => e.auditID === id).map((e) => e.stage);
      assert.deepEqual(stages, ['RequestReceived', 'ResponseComplete'], id);
    }
    await until(async () => {
      const got = new Set(hook.calls.flatMap((c) => (c.body['items'] as AuditEvent[]).filter((e) => e.stage === 'ResponseComplete').map((e) => e.auditID)));
      return ids.every((id) => got.has(id));
    }, 'every request at the webhook');
    assert.ok(hook.calls.every((c) => c.body['kind'] === 'EventList' && (c.body['items'] as unknown[]).length <= 25));
    if (!UWS_DISABLED) assert.deepEqual(served.sort(), ['0', '1'], 'both threads served requests');
  });
});

describe('audit with several serving threads, the log alone (events as encoded lines)', () => {
  let lone: TestServer;
  let loneLog: string;
  before(async () => {
    const policy = path.join(dir, 'policy-lone.yaml');
    await fs.writeFile(policy, `apiVersion: ${AUDIT_API_VERSION}\nkind: Policy\nrules:\n- level: None\n  nonResourceURLs: ["/metrics"]\n- level: Metadata\n`);
    loneLog = path.join(dir, 'audit-lone.log');
    lone = await startTestServer(['--frontend-threads=2', `--audit-policy-file=${policy}`, `--audit-log-path=${loneLog}`]);
  });
  after(async () => {
    await lone?.stop();
  });

  it('every thread\'s events are whole UTF-8 lines in the one log', async () => {
    // A header value beyond ASCII makes a line longer in UTF-8 than in UTF-16 units. Sent as UTF-8 bytes:
    // the uWS listener reads header values as UTF-8 (Node's HTTP/2 as latin1, so there it reads otherwise).
    // It ends in ASCII: uWS v20.30's parser trims a value's trailing bytes >= 0x80 as if they were spaces.
    const agent = 'audit-lines-t\u00ebst-\u4e2d-end';
    const ids: string[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const r = await freshGet(`/api/v1/namespaces/default?n=${i}`, lone, { 'user-agent': Buffer.from(agent, 'utf8').toString('latin1') });
      assert.equal(r.status, 200);
      assert.ok(r.auditID !== undefined);
      ids.push(r.auditID);
    }
    const events = await untilLogged(loneLog, ids);
    const readLog = (): Promise<AuditEvent[]> => readEvents(loneLog);
    for (const [i, id] of ids.entries()) {
      const mine = events.filter((e) => e.auditID === id);
      assert.deepEqual(mine.map((e) => e.stage), ['RequestReceived', 'ResponseComplete'], id);
      assert.equal(mine[1]!.requestURI, `/api/v1/namespaces/default?n=${i}`);
      assert.deepEqual(mine[1]!.sourceIPs, ['127.0.0.1']);
      if (!UWS_DISABLED) assert.equal(mine[1]!.userAgent, agent);
      else assert.match(mine[1]!.userAgent ?? '', /^audit-lines-t[^\x00-\x7f]+st-[^\x00-\x7f]+-end$/);
    }
    const metrics = (await freshGet('/metrics', lone)).body;
    const served = [...metrics.matchAll(/^apiserver_frontend_thread_requests_total\{thread="(\d+)"\} (\d+)$/gm)].filter((m) => Number(m[2]) > 0).map((m) => m[1]);
    if (!UWS_DISABLED) assert.deepEqual(served.sort(), ['0', '1'], 'both threads served requests');

    // Impersonation: both lines are written once the response ended, RequestReceived as it was on arrival.
    const imp = await freshGet('/api/v1/namespaces/default', lone, { 'impersonate-user': 'bob' });
    assert.ok(imp.auditID !== undefined);
    await until(async () => (await readLog()).some((e) => e.auditID === imp.auditID && e.stage === 'ResponseComplete'), 'the impersonated request in the log');
    const impEvents = (await readLog()).filter((e) => e.auditID === imp.auditID);
    assert.deepEqual(impEvents.map((e) => e.stage), ['RequestReceived', 'ResponseComplete']);
    assert.equal(impEvents[0]!.user.username, 'admin');
    assert.equal(impEvents[0]!.impersonatedUser, undefined, 'impersonation comes after the request was received');
    assert.equal(impEvents[1]!.user.username, 'admin');
    assert.equal(impEvents[1]!.impersonatedUser?.username, 'bob');
  });

  it('over HTTP/2 the Audit-Id header is sent never indexed (it would only churn the HPACK table)', async () => {
    const files = lone.server.files;
    const session = http2.connect(`https://127.0.0.1:${lone.securePort}`, { ca: await fs.readFile(files.caCertPath), servername: 'localhost' });
    try {
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const headers = await new Promise<http2.IncomingHttpHeaders>((resolve, reject) => {
          const req = session.request({ ':path': '/api/v1/namespaces/default', authorization: `Bearer ${files.adminToken}` });
          req.on('response', (h) => {
            req.resume();
            req.on('end', () => resolve(h));
          });
          req.on('error', reject);
          req.end();
        });
        assert.equal(headers[':status'], 200);
        ids.push(String(headers['audit-id']));
        const neverIndexed = (headers as unknown as Record<symbol, unknown>)[http2.sensitiveHeaders];
        assert.ok(Array.isArray(neverIndexed) && neverIndexed.includes('audit-id'), `never-indexed headers: ${JSON.stringify(neverIndexed)}`);
      }
      assert.equal(new Set(ids).size, 3);
    } finally {
      session.close();
    }
  });
});
