/**
 * A worker thread's last audit events at shutdown (--frontend-threads=2): the
 * log backend batches with a long wait, so nothing reaches the file before the
 * server stops; after a graceful shutdown (and after a plain close) the file
 * holds every event of every request, those the worker thread served
 * included: each GET's RequestReceived and ResponseComplete, and each watch's
 * ResponseStarted and ResponseComplete (the watches are ended by the stop).
 * Once more with the log's default batches, where the threads hand over
 * encoded lines every few milliseconds.
 * Requests go on fresh connections to the uWS port, which the kernel spreads
 * over both threads; the per-thread request counter shows both served.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { UWS_DISABLED } from '../support/uws-toggle.ts';
import { MessageChannel } from 'node:worker_threads';
import { AUDIT_API_VERSION, type AuditEvent } from '../../src/audit/types.ts';
import { entryOf, type AuditEntry } from '../../src/audit/entry.ts';
import { RemoteAuditSink, serveRemoteAuditSink, type LocalAuditSink } from '../../src/audit/index.ts';

const GETS = 40;
const WATCHES = 6;

interface Opened {
  auditID: string;
  done: Promise<void>;
}

/** `lines`: the log's default batches, so events travel as encoded lines (src/audit/lines.ts) and go out within milliseconds. */
async function startServer(dir: string, log: string, lines: boolean): Promise<TestServer> {
  const policy = path.join(dir, 'policy.yaml');
  await fs.writeFile(policy, `apiVersion: ${AUDIT_API_VERSION}\nkind: Policy\nrules:\n- level: None\n  nonResourceURLs: ["/metrics", "/readyz*", "/livez*", "/healthz*"]\n- level: Metadata\n`);
  return startTestServer([
    '--frontend-threads=2',
    `--audit-policy-file=${policy}`,
    `--audit-log-path=${log}`,
    '--audit-log-mode=batch',
    ...(lines ? [] : ['--audit-log-batch-max-size=100000', '--audit-log-batch-max-wait=10m']),
    '--shutdown-delay-duration=0s',
  ]);
}

/** A GET on a connection of its own; resolves with the head, `done` once the body ended. */
function freshGet(t: TestServer, ca: Buffer, urlPath: string): Promise<Opened & { status: number; body: () => Promise<string> }> {
  const files = t.server.files;
  return new Promise((resolve, reject) => {
    const req = https.request(
      { host: '127.0.0.1', port: t.uwsPort!, method: 'GET', path: urlPath, agent: false, ca, servername: 'localhost', headers: { authorization: `Bearer ${files.adminToken}`, accept: 'application/json' } },
      (res) => {
        const chunks: Buffer[] = [];
        const done = new Promise<void>((r) => {
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', r);
          res.on('error', () => r());
          res.on('close', r);
        });
        resolve({ status: res.statusCode ?? 0, auditID: String(res.headers['audit-id']), done, body: async () => (await done, Buffer.concat(chunks).toString()) });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function readLog(log: string): Promise<AuditEvent[]> {
  return (await fs.readFile(log, 'utf8').catch(() => ''))
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as AuditEvent);
}

it('a worker\'s sink closes only once the owning thread has taken its events', async () => {
  const got: AuditEvent[] = [];
  const owner = { processMany: (events: readonly AuditEntry[]) => (got.push(...events.map((e) => e.event())), Promise.resolve()) } as unknown as LocalAuditSink;
  const ch = new MessageChannel();
  serveRemoteAuditSink(ch.port1, owner);
  const remote = new RemoteAuditSink(ch.port2, false);
  const ev = (i: number): AuditEvent => ({ kind: 'Event', apiVersion: AUDIT_API_VERSION, level: 'Metadata', auditID: `a${i}`, stage: 'ResponseComplete', requestURI: '/', verb: 'get', user: { username: 'u' }, sourceIPs: [], requestReceivedTimestamp: '', stageTimestamp: '' });
  for (let i = 0; i < 5; i++) void remote.process(entryOf(ev(i)));
  await remote.close();
  assert.deepEqual(got.map((e) => e.auditID), ['a0', 'a1', 'a2', 'a3', 'a4']);
  // After the close, events are refused quietly (the thread is ending).
  await remote.process(entryOf(ev(9)));
  ch.port1.close();
});

describe('audit: the serving threads\' last events at shutdown', { skip: UWS_DISABLED ? 'needs uWS: only its port is shared by the threads on this Node' : false }, () => {
  for (const [how, lines] of [['graceful shutdown', false], ['close', false], ['graceful shutdown', true]] as const) {
    it(`every event in the log after a ${how}${lines ? ' (events as encoded lines)' : ''}`, async () => {
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'orch-audit-stop-'));
      const log = path.join(dir, 'audit.log');
      const t = await startServer(dir, log, lines);
      try {
        const ca = await fs.readFile(t.server.files.caCertPath);
        const gets: string[] = [];
        for (let i = 0; i < GETS; i++) {
          const r = await freshGet(t, ca, '/api/v1/namespaces/default');
          assert.equal(r.status, 200);
          await r.done;
          gets.push(r.auditID);
        }
        const watches: Opened[] = [];
        for (let i = 0; i < WATCHES; i++) watches.push(await freshGet(t, ca, '/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=600'));
        const metrics = await (await freshGet(t, ca, '/metrics')).body();
        const served = [...metrics.matchAll(/^apiserver_frontend_thread_requests_total\{thread="(\d+)"\} (\d+)$/gm)].filter((m) => Number(m[2]) > 0).map((m) => m[1]);
        assert.deepEqual(served.sort(), ['0', '1'], 'both threads served requests');
        if (!lines) assert.deepEqual(await readLog(log), [], 'nothing written before the stop (the batch waits 10 minutes)');

        // GETs still arriving and in flight when the stop begins: those answered must be in the log too.
        const late = Array.from({ length: 30 }, () =>
          freshGet(t, ca, '/api/v1/namespaces/default').then(
            async (r) => ((await r.body()).includes('"kind":"Namespace"') && r.status === 200 ? r.auditID : null),
            () => null,
          ),
        );
        await new Promise((r) => setTimeout(r, 5));
        if (how === 'graceful shutdown') await t.server.shutdown();
        await t.stop();
        await Promise.all(watches.map((w) => w.done));
        const answered = (await Promise.all(late)).filter((id): id is string => id !== null);
        gets.push(...answered);

        const events = await readLog(log);
        const stages = (id: string): string[] => events.filter((e) => e.auditID === id).map((e) => e.stage);
        for (const id of gets) assert.deepEqual(stages(id), ['RequestReceived', 'ResponseComplete'], `GET ${id}`);
        for (const w of watches) assert.deepEqual(stages(w.auditID), ['RequestReceived', 'ResponseStarted', 'ResponseComplete'], `watch ${w.auditID}`);
        // The uWS listener's peer address, as both threads read it.
        for (const e of events) assert.deepEqual(e.sourceIPs, ['127.0.0.1'], e.auditID);
      } finally {
        await t.stop().catch(() => undefined);
        await fs.rm(dir, { recursive: true, force: true });
      }
    });
  }
});
