/**
 * EventRateLimit with two serving threads (--frontend-threads=2): the
 * buckets live in memory both threads share, so the server's allowance is
 * one allowance, whichever thread the kernel hands a connection to. Each
 * event goes on a new connection; the per-thread request counter shows both
 * threads served. Admitted events stay within burst + qps × elapsed seconds
 * (thread-local buckets would admit about a burst per thread).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { UWS_DISABLED } from '../support/uws-toggle.ts';
import { names } from '../../src/naming/index.ts';

const BURST = 5;
let t: TestServer;
let dir: string;

before(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'orch-erl-threads-'));
  await fs.writeFile(path.join(dir, 'erl.yaml'), `apiVersion: ${names.admissionNames.eventRateLimitConfigGroups[0]}/v1alpha1\nkind: Configuration\nlimits:\n- type: Server\n  qps: 1\n  burst: ${BURST}\n`);
  const config = path.join(dir, 'admission.yaml');
  await fs.writeFile(config, `apiVersion: ${names.admissionNames.admissionConfigGroups[0]}/v1\nkind: AdmissionConfiguration\nplugins:\n- name: EventRateLimit\n  path: erl.yaml\n`);
  t = await startTestServer(['--frontend-threads=2', '--enable-admission-plugins=EventRateLimit', `--admission-control-config-file=${config}`]);
});

after(async () => {
  await t?.stop();
  await fs.rm(dir, { recursive: true, force: true });
});

/** One event POST on a new connection (agent: false), with the admin's bearer token (the uWS listener takes no client certificates). */
async function freshEvent(i: number): Promise<number> {
  const files = t.server.files;
  const ca = await fs.readFile(files.caCertPath);
  const body = Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'Event', metadata: { name: `e${i}` }, involvedObject: { kind: 'Pod', namespace: 'default', name: 'p' }, reason: 'R', message: 'm' }));
  const port = !UWS_DISABLED && t.uwsPort !== null ? t.uwsPort : t.securePort;
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1', port, method: 'POST', path: '/api/v1/namespaces/default/events', agent: false, ca, servername: 'localhost',
        headers: { authorization: `Bearer ${files.adminToken}`, 'content-type': 'application/json', 'content-length': String(body.length), accept: 'application/json' },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('EventRateLimit with several serving threads', () => {
  it('one allowance for the whole server', async () => {
    const started = Date.now();
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) statuses.push(await freshEvent(i));
    const elapsedSeconds = (Date.now() - started) / 1000;
    assert.ok(statuses.every((s) => s === 201 || s === 429), statuses.join(','));
    const admitted = statuses.filter((s) => s === 201).length;
    assert.ok(admitted >= BURST, `the burst is admitted (${admitted})`);
    assert.ok(admitted <= BURST + Math.ceil(elapsedSeconds) + 1, `${admitted} admitted in ${elapsedSeconds}s: more than one server allowance`);
    const metrics = (await t.request('GET', '/metrics')).body;
    const served = [...metrics.matchAll(/^apiserver_frontend_thread_requests_total\{[^}]*thread="(\d+)"[^}]*\} (\d+)/gm)].filter((m) => Number(m[2]) > 0);
    assert.ok(new Set(served.map((m) => m[1])).size >= 2, `requests on both threads: ${served.map((m) => m[0]).join('; ')}`);
  });
});
