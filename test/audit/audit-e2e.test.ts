/**
 * Audit over HTTP against a real server: the policy picks levels, each stage
 * is written (RequestReceived, ResponseStarted for a watch, ResponseComplete),
 * the Audit-Id header names the event, impersonation and the authorization
 * decision show, admission's annotations (PodSecurity) arrive, request and
 * response objects appear at their levels, and a blocking-strict log that
 * cannot be written fails requests with 500.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { names } from '../../src/naming/index.ts';
import { AUDIT_API_VERSION, DECISION_ANNOTATION, REASON_ANNOTATION, type AuditEvent } from '../../src/audit/types.ts';

const POLICY = [
  `apiVersion: ${AUDIT_API_VERSION}`,
  'kind: Policy',
  'rules:',
  '- level: None',
  '  nonResourceURLs: ["/healthz*", "/readyz*", "/livez*"]',
  '- level: RequestResponse',
  '  resources:',
  '  - group: ""',
  '    resources: ["configmaps"]',
  '- level: Request',
  '  verbs: ["create"]',
  '  resources:',
  '  - group: ""',
  '    resources: ["pods"]',
  '  omitStages: ["RequestReceived"]',
  '- level: Metadata',
  '',
].join('\n');

async function readEvents(file: string): Promise<AuditEvent[]> {
  const text = await fs.readFile(file, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as AuditEvent);
}

async function eventsFor(file: string, auditID: string, stages: string[]): Promise<AuditEvent[]> {
  for (let i = 0; i < 250; i++) {
    const evs = (await readEvents(file)).filter((e) => e.auditID === auditID);
    if (stages.every((s) => evs.some((e) => e.stage === s))) return evs;
    await new Promise((r) => setTimeout(r, 20));
  }
  const evs = (await readEvents(file)).filter((e) => e.auditID === auditID);
  assert.fail(`audit ${auditID}: wanted stages ${stages.join(',')}, have ${evs.map((e) => e.stage).join(',') || 'none'}`);
}

function auditId(h: Record<string, string | string[] | undefined>): string {
  const v = h['audit-id'];
  assert.equal(typeof v, 'string', 'Audit-Id header on the response');
  return v as string;
}

async function withServer(args: string[], fn: (srv: TestServer, log: string) => Promise<void>): Promise<void> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'orch-audit-e2e-'));
  const policy = path.join(dir, 'policy.yaml');
  await fs.writeFile(policy, POLICY);
  const log = path.join(dir, 'audit.log');
  const srv = await startTestServer([`--audit-policy-file=${policy}`, `--audit-log-path=${log}`, ...args.map((a) => a.replace('$DIR', dir))]);
  try {
    await fn(srv, log);
  } finally {
    await srv.stop();
    await fs.rm(dir, { recursive: true, force: true });
  }
}

test('audit e2e: levels, stages, users, decisions, objects, admission annotations', async () => {
  await withServer(['--authorization-mode=RBAC'], async (srv, log) => {
    // Metadata: a get, as admin.
    const ns = await srv.request('GET', '/api/v1/namespaces/default');
    assert.equal(ns.status, 200);
    const id = auditId(ns.headers);
    const evs = await eventsFor(log, id, ['RequestReceived', 'ResponseComplete']);
    const done = evs.find((e) => e.stage === 'ResponseComplete')!;
    assert.equal(done.kind, 'Event');
    assert.equal(done.apiVersion, AUDIT_API_VERSION);
    assert.equal(done.level, 'Metadata');
    assert.equal(done.verb, 'get');
    assert.equal(done.requestURI, '/api/v1/namespaces/default');
    assert.equal(done.user.username, 'admin');
    assert.ok(done.user.groups?.includes('system:masters'));
    assert.deepEqual(done.sourceIPs, ['127.0.0.1']);
    // As the original's request info: a namespace's own namespace is itself.
    assert.deepEqual(done.objectRef, { resource: 'namespaces', namespace: 'default', name: 'default', apiVersion: 'v1' });
    assert.equal(done.responseStatus?.code, 200);
    assert.equal(done.annotations?.[DECISION_ANNOTATION], 'allow');
    assert.equal(typeof done.annotations?.[REASON_ANNOTATION], 'string');
    assert.equal(done.requestObject, undefined);
    assert.equal(done.responseObject, undefined);
    assert.ok(done.stageTimestamp >= done.requestReceivedTimestamp);
    assert.equal(evs.find((e) => e.stage === 'RequestReceived')!.responseStatus, undefined);

    // Health checks are at None: no event, though the answer has its Audit-Id as every answer does.
    const health = await srv.request('GET', '/healthz');
    const healthID = auditId(health.headers);

    // Forbidden: an anonymous list, with the authorizer's decision.
    const anon = await srv.request('GET', '/api/v1/namespaces', undefined, { as: 'none' });
    assert.equal(anon.status, 403);
    const denied = (await eventsFor(log, auditId(anon.headers), ['ResponseComplete'])).find((e) => e.stage === 'ResponseComplete')!;
    assert.equal((await readEvents(log)).filter((e) => e.auditID === healthID).length, 0, 'no event for the health check');
    assert.equal(denied.user.username, 'system:anonymous');
    assert.equal(denied.responseStatus?.code, 403);
    assert.equal(denied.annotations?.[DECISION_ANNOTATION], 'forbid');

    // Impersonation: the caller is `user`, the one acted as `impersonatedUser`.
    const imp = await srv.request('GET', '/api/v1/namespaces/default', undefined, { headers: { 'impersonate-user': 'bob' } });
    assert.equal(imp.status, 403);
    const impEv = (await eventsFor(log, auditId(imp.headers), ['ResponseComplete'])).find((e) => e.stage === 'ResponseComplete')!;
    assert.equal(impEv.user.username, 'admin');
    assert.equal(impEv.impersonatedUser?.username, 'bob');

    // RequestResponse: the config map sent and the one answered, without managed fields only if asked (kept here).
    const cm = await srv.request('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'audited' }, data: { k: 'v' } });
    assert.equal(cm.status, 201);
    const cmEv = (await eventsFor(log, auditId(cm.headers), ['ResponseComplete'])).find((e) => e.stage === 'ResponseComplete')!;
    assert.equal(cmEv.level, 'RequestResponse');
    assert.deepEqual((cmEv.requestObject as { data: unknown }).data, { k: 'v' });
    const answered = cmEv.responseObject as { metadata: { uid?: string; managedFields?: unknown[] } };
    assert.equal(typeof answered.metadata.uid, 'string');
    assert.ok(Array.isArray(answered.metadata.managedFields));
    assert.equal(cmEv.responseStatus?.code, 201);

    // Request level with RequestReceived omitted; admission's annotations (PodSecurity) in the event.
    const pod = await srv.request('POST', '/api/v1/namespaces/default/pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'audited-pod' },
      spec: { containers: [{ name: 'c', image: 'busybox' }] },
    });
    assert.equal(pod.status, 201, pod.body);
    const podEvs = await eventsFor(log, auditId(pod.headers), ['ResponseComplete']);
    assert.deepEqual(podEvs.map((e) => e.stage), ['ResponseComplete']);
    const podEv = podEvs[0]!;
    assert.equal(podEv.level, 'Request');
    assert.equal((podEv.requestObject as { metadata: { name: string } }).metadata.name, 'audited-pod');
    assert.equal(podEv.responseObject, undefined);
    assert.equal(podEv.annotations?.[`${names.podSecurity.prefix}enforce-policy`], 'privileged:latest');

    // A watch: ResponseStarted once it is established, ResponseComplete once it ends.
    const w = await srv.watch('/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1');
    assert.equal(w.status, 200);
    await w.until(() => w.ended, 'watch ended by its timeout', 20_000);
    const watches = (await readEvents(log)).filter((e) => e.verb === 'watch' && e.objectRef?.resource === 'configmaps');
    assert.ok(watches.length > 0, 'watch audited');
    const watchEvs = await eventsFor(log, watches[0]!.auditID, ['RequestReceived', 'ResponseStarted', 'ResponseComplete']);
    assert.deepEqual(
      watchEvs.map((e) => e.stage),
      ['RequestReceived', 'ResponseStarted', 'ResponseComplete'],
    );
    assert.equal(watchEvs[1]!.responseStatus?.code, 200);
    assert.equal(watchEvs[2]!.responseObject, undefined, 'watch streams are not kept');

    // The file holds only complete JSON lines and is the owner's alone.
    assert.equal((await fs.stat(log)).mode & 0o777, 0o600);
  });
});

test('audit e2e: a blocking-strict log that cannot be written fails requests with 500; blocking lets them through', async () => {
  // /dev/full takes the open and refuses every write (ENOSPC).
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'orch-audit-strict-'));
  const policy = path.join(dir, 'policy.yaml');
  await fs.writeFile(policy, POLICY);
  for (const [mode, want] of [
    ['blocking-strict', 500],
    ['blocking', 200],
  ] as const) {
    const srv = await startTestServer([`--audit-policy-file=${policy}`, '--audit-log-path=/dev/full', `--audit-log-mode=${mode}`]);
    try {
      const r = await srv.request('GET', '/api/v1/namespaces/default');
      assert.equal(r.status, want, `${mode}: ${r.body}`);
      if (want === 500) assert.match(r.json<{ message: string }>().message, /failed to store audit event/);
      // Not audited (None): served whatever the log does.
      assert.equal((await srv.request('GET', '/healthz')).status, 200);
    } finally {
      await srv.stop();
    }
  }
  await fs.rm(dir, { recursive: true, force: true });
});
