/**
 * API Priority and Fairness over HTTP: the PF response headers, exempt for
 * system:masters, classification by a FlowSchema created at run time (and
 * changes taking effect live), 429 + Retry-After when a Reject level's
 * seats are full, when a queue is full and when a request waits too long,
 * the metrics, and `--enable-priority-and-fairness=false` keeping max
 * in-flight. Seats are held by creates a real HTTPS validating webhook keeps
 * waiting until the test lets them go.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { startTestServer, type HttpAnswer, type TestServer } from '../support/test-server.ts';
import { allow, startAdmissionWebhook, type AdmissionWebhookServer } from '../admission/support/admission-webhook.ts';
import { apiGroup, names } from '../../src/naming/index.ts';
import { SKIP_WITHOUT_UWS } from '../support/uws-toggle.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const FC = `/apis/${apiGroup('flowcontrol.apiserver')}/v1beta2`;
const FS_HEADER = names.apfHeaders.flowSchemaUid.toLowerCase();
const PL_HEADER = names.apfHeaders.priorityLevelUid.toLowerCase();
const TOKENS = { alice: 'alice-token-0123456789', carol: 'carol-token-0123456789', dave: 'dave-token-0123456789', erin: 'erin-token-0123456789' };

async function tokenFile(): Promise<string> {
  const dir = await scratchDir('apf-');
  const file = path.join(dir, 'tokens.csv');
  await fs.writeFile(file, Object.entries(TOKENS).map(([user, token]) => `${token},${user},uid-${user},"tenants"`).join('\n') + '\n', { mode: 0o600 });
  return file;
}

const as = (user: keyof typeof TOKENS) => ({ as: { token: TOKENS[user] } });

async function until<T>(what: string, f: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function priorityLevel(name: string, shares: number, queuing?: { queues: number; handSize: number; queueLengthLimit: number }): unknown {
  return {
    metadata: { name },
    spec: { type: 'Limited', limited: { assuredConcurrencyShares: shares, limitResponse: queuing === undefined ? { type: 'Reject' } : { type: 'Queue', queuing } } },
  };
}

function flowSchema(name: string, level: string, user: string, precedence = 500): unknown {
  return {
    metadata: { name },
    spec: {
      priorityLevelConfiguration: { name: level },
      matchingPrecedence: precedence,
      distinguisherMethod: { type: 'ByUser' },
      rules: [{
        subjects: [{ kind: 'User', user: { name: user } }],
        resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }],
        nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      }],
    },
  };
}

function assertTooMany(r: HttpAnswer): void {
  assert.equal(r.status, 429, r.body);
  assert.equal(r.headers['retry-after'], '1');
  const st = r.json<{ kind: string; reason: string; message: string; details?: { retryAfterSeconds?: number } }>();
  assert.equal(st.kind, 'Status');
  assert.equal(st.reason, 'TooManyRequests');
  assert.equal(st.message, 'Too many requests, please try again later.');
}

/** A webhook that holds every create of the `held` namespace until release(). */
class Holder {
  #waiters: Array<() => void> = [];
  constructor(readonly wh: AdmissionWebhookServer) {
    wh.answer = async (call) => {
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
      return allow(call);
    };
  }
  get holding(): number {
    return this.#waiters.length;
  }
  release(): void {
    for (const w of this.#waiters.splice(0)) w();
  }
}

async function installHook(t: TestServer, wh: AdmissionWebhookServer): Promise<void> {
  assert.equal((await t.request('POST', '/api/v1/namespaces', { metadata: { name: 'held', labels: { held: 'yes' } } })).status, 201);
  const cfg = await t.request('POST', `/apis/${apiGroup('admissionregistration')}/v1/validatingwebhookconfigurations`, {
    metadata: { name: 'hold' },
    webhooks: [{
      name: 'hold.apf.example.com',
      clientConfig: { url: wh.url('/hold'), caBundle: wh.caBundle },
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      timeoutSeconds: 30,
      namespaceSelector: { matchLabels: { held: 'yes' } },
    }],
  });
  assert.equal(cfg.status, 201, cfg.body);
}

/** Starts a create that the webhook holds (its seat stays taken), once the hook is live. */
async function holdSeat(t: TestServer, holder: Holder, user: keyof typeof TOKENS, name: string): Promise<{ done: Promise<HttpAnswer> }> {
  const before = holder.holding;
  const done = t.request('POST', '/api/v1/namespaces/held/configmaps', { metadata: { name } }, as(user));
  await until('the webhook holds the create', async () => (holder.holding > before ? true : undefined));
  // Wrapped: an async function returning the promise itself would wait for it.
  return { done };
}

function metricValue(text: string, name: string, labels: Record<string, string>): number {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return 0;
}

describe('priority and fairness on (the default)', () => {
  let t: TestServer;
  let wh: AdmissionWebhookServer;
  let holder: Holder;

  before(async () => {
    wh = await startAdmissionWebhook();
    holder = new Holder(wh);
    // Two seats for the whole server: every Limited level gets one; --request-timeout=4s lets queued requests wait 1 s.
    t = await startTestServer([`--token-auth-file=${await tokenFile()}`, '--max-requests-inflight=1', '--max-mutating-requests-inflight=1', '--request-timeout=8s']);
    await installHook(t, wh);
  });

  after(async () => {
    holder?.release();
    await t?.stop();
    await wh?.close();
  });

  test('system:masters is exempt and every classified answer carries the PF headers', async () => {
    const before = metricValue((await t.request('GET', '/metrics')).body, 'apiserver_flowcontrol_dispatched_requests_total', { flow_schema: 'exempt', priority_level: 'exempt' });
    const r = await t.request('GET', '/api/v1/namespaces/default');
    assert.equal(r.status, 200);
    assert.ok(FS_HEADER in r.headers, JSON.stringify(r.headers));
    assert.ok(PL_HEADER in r.headers);
    if (t.uwsPort !== null) {
      // The uWS front end sends them too (empty UIDs while the mandatory objects are only imagined).
      const u = await t.request('GET', '/api/v1/namespaces/default', undefined, { ...as('erin'), uws: true });
      assert.equal(u.status, 200);
      assert.ok(FS_HEADER in u.headers && PL_HEADER in u.headers, JSON.stringify(u.headers));
    }
    // Many more admin requests than seats, all at once: none is turned away.
    const many = await Promise.all(Array.from({ length: 20 }, () => t.request('GET', '/api/v1/namespaces/default')));
    assert.deepEqual([...new Set(many.map((x) => x.status))], [200]);
    const text = (await t.request('GET', '/metrics')).body;
    assert.ok(metricValue(text, 'apiserver_flowcontrol_dispatched_requests_total', { flow_schema: 'exempt', priority_level: 'exempt' }) >= before + 21);
    // Other users land on the suggested global-default (the bootstrap objects exist from the start).
    assert.equal((await t.request('GET', '/api/v1/namespaces/default', undefined, as('erin'))).status, 200);
    const after = (await t.request('GET', '/metrics')).body;
    assert.ok(metricValue(after, 'apiserver_flowcontrol_dispatched_requests_total', { flow_schema: 'global-default', priority_level: 'global-default' }) >= 1);
    for (const family of ['apiserver_flowcontrol_request_concurrency_limit', 'apiserver_flowcontrol_nominal_limit_seats', 'apiserver_flowcontrol_current_executing_requests', 'apiserver_flowcontrol_current_inqueue_requests', 'apiserver_flowcontrol_request_wait_duration_seconds', 'apiserver_flowcontrol_request_execution_seconds', 'apiserver_flowcontrol_rejected_requests_total']) {
      assert.match(after, new RegExp(`^# TYPE ${family} `, 'm'), family);
    }
    assert.equal(metricValue(after, 'apiserver_flowcontrol_request_concurrency_limit', { priority_level: 'catch-all' }) >= 1, true);
  });

  test('a FlowSchema created at run time routes its user to its level; changes take effect live', async () => {
    const pl = await t.request('POST', `${FC}/prioritylevelconfigurations`, priorityLevel('alice-level', 10, { queues: 16, handSize: 2, queueLengthLimit: 10 }));
    assert.equal(pl.status, 201, pl.body);
    const pl2 = await t.request('POST', `${FC}/prioritylevelconfigurations`, priorityLevel('alice-other', 10));
    assert.equal(pl2.status, 201, pl2.body);
    const fsr = await t.request('POST', `${FC}/flowschemas`, flowSchema('alice', 'alice-level', 'alice'));
    assert.equal(fsr.status, 201, fsr.body);
    const fsUid = fsr.json<{ metadata: { uid: string } }>().metadata.uid;
    const plUid = pl.json<{ metadata: { uid: string } }>().metadata.uid;
    await until('alice is classified by her FlowSchema', async () => {
      const r = await t.request('GET', '/api/v1/namespaces/default/configmaps', undefined, as('alice'));
      assert.equal(r.status, 200);
      return r.headers[FS_HEADER] === fsUid ? r : undefined;
    });
    const r = await t.request('GET', '/api/v1/namespaces/default/configmaps', undefined, as('alice'));
    assert.equal(r.headers[PL_HEADER], plUid);
    // Someone else is not.
    const e = await t.request('GET', '/api/v1/namespaces/default/configmaps', undefined, as('erin'));
    assert.notEqual(e.headers[FS_HEADER], fsUid);

    // Point the schema at another level: live.
    // Read, change, write; again on a conflict, as clients do: the configuration controller writes the schema's
    // status (its Dangling condition) meanwhile.
    let put = 0;
    for (let attempt = 0; attempt < 10; attempt++) {
      const cur = (await t.request('GET', `${FC}/flowschemas/alice`)).json<{ spec: { priorityLevelConfiguration: { name: string } } }>();
      cur.spec.priorityLevelConfiguration.name = 'alice-other';
      put = (await t.request('PUT', `${FC}/flowschemas/alice`, cur)).status;
      if (put !== 409) break;
    }
    assert.equal(put, 200);
    const otherUid = pl2.json<{ metadata: { uid: string } }>().metadata.uid;
    await until('alice moves to the other level', async () => {
      const x = await t.request('GET', '/api/v1/namespaces/default/configmaps', undefined, as('alice'));
      return x.headers[PL_HEADER] === otherUid ? x : undefined;
    });
    // Delete it: back to catch-all.
    assert.equal((await t.request('DELETE', `${FC}/flowschemas/alice`)).status, 200);
    await until('alice is back on catch-all', async () => {
      const x = await t.request('GET', '/api/v1/namespaces/default/configmaps', undefined, as('alice'));
      return x.headers[FS_HEADER] !== fsUid ? x : undefined;
    });
    const text = (await t.request('GET', '/metrics')).body;
    assert.ok(metricValue(text, 'apiserver_flowcontrol_dispatched_requests_total', { flow_schema: 'alice', priority_level: 'alice-level' }) >= 2);
  });

  test('a Reject level with its seats taken answers 429 with Retry-After', async () => {
    assert.equal((await t.request('POST', `${FC}/prioritylevelconfigurations`, priorityLevel('carol-level', 1))).status, 201);
    const fsr = await t.request('POST', `${FC}/flowschemas`, flowSchema('carol', 'carol-level', 'carol'));
    assert.equal(fsr.status, 201);
    const fsUid = fsr.json<{ metadata: { uid: string } }>().metadata.uid;
    await until('carol is classified', async () => ((await t.request('GET', '/api/v1/namespaces/default', undefined, as('carol'))).headers[FS_HEADER] === fsUid ? true : undefined));
    const held = await holdSeat(t, holder, 'carol', 'c1');
    const r = await t.request('GET', '/api/v1/namespaces/default', undefined, as('carol'));
    assertTooMany(r);
    assert.equal(r.headers[FS_HEADER], fsUid, 'a rejected request names its schema too');
    // Others are not affected.
    assert.equal((await t.request('GET', '/api/v1/namespaces/default', undefined, as('erin'))).status, 200);
    holder.release();
    // 504 if the machine was slow enough for the request timeout: the seat is back either way.
    assert.ok([201, 504].includes((await held.done).status));
    await until('the seat is back', async () => ((await t.request('GET', '/api/v1/namespaces/default', undefined, as('carol'))).status === 200 ? true : undefined));
    const text = (await t.request('GET', '/metrics')).body;
    assert.ok(metricValue(text, 'apiserver_flowcontrol_rejected_requests_total', { flow_schema: 'carol', priority_level: 'carol-level', reason: 'concurrency-limit' }) >= 1);
  });

  test('a full queue answers 429 at once; a request that waits past its limit answers 429 (time-out)', async () => {
    assert.equal((await t.request('POST', `${FC}/prioritylevelconfigurations`, priorityLevel('dave-level', 1, { queues: 1, handSize: 1, queueLengthLimit: 1 }))).status, 201);
    const fsr = await t.request('POST', `${FC}/flowschemas`, flowSchema('dave', 'dave-level', 'dave'));
    const fsUid = fsr.json<{ metadata: { uid: string } }>().metadata.uid;
    await until('dave is classified', async () => ((await t.request('GET', '/api/v1/namespaces/default', undefined, as('dave'))).headers[FS_HEADER] === fsUid ? true : undefined));
    const held = await holdSeat(t, holder, 'dave', 'd1');
    const startedAt = Date.now();
    const queued = t.request('GET', '/api/v1/namespaces/default', undefined, as('dave'));
    await until('a request waits in the queue', async () => {
      const text = (await t.request('GET', '/metrics')).body;
      return metricValue(text, 'apiserver_flowcontrol_current_inqueue_requests', { flow_schema: 'dave', priority_level: 'dave-level' }) === 1 ? true : undefined;
    });
    assertTooMany(await t.request('GET', '/api/v1/namespaces/default', undefined, as('dave')));
    const late = await queued;
    assertTooMany(late);
    // The wait limit is a quarter of --request-timeout (8 s).
    assert.ok(Date.now() - startedAt >= 1900, `waited ${Date.now() - startedAt} ms`);
    holder.release();
    assert.ok([201, 504].includes((await held.done).status));
    const text = (await t.request('GET', '/metrics')).body;
    assert.ok(metricValue(text, 'apiserver_flowcontrol_rejected_requests_total', { flow_schema: 'dave', priority_level: 'dave-level', reason: 'queue-full' }) >= 1);
    assert.ok(metricValue(text, 'apiserver_flowcontrol_rejected_requests_total', { flow_schema: 'dave', priority_level: 'dave-level', reason: 'time-out' }) >= 1);
    assert.equal(metricValue(text, 'apiserver_flowcontrol_current_inqueue_requests', { flow_schema: 'dave', priority_level: 'dave-level' }), 0);
  });

  test('a watch is classified and gives its seat back once established', async () => {
    // carol's level has one seat: a watch must not keep it.
    const w = await t.watch('/api/v1/namespaces/default/configmaps?watch=1', { as: 'none', headers: { authorization: `Bearer ${TOKENS.carol}` } });
    try {
      assert.equal(w.status, 200);
      await until('the seat is free again', async () => ((await t.request('GET', '/api/v1/namespaces/default', undefined, as('carol'))).status === 200 ? true : undefined), 5000);
    } finally {
      w.close();
    }
  });
});

describe('priority and fairness off', () => {
  let t: TestServer;
  let wh: AdmissionWebhookServer;
  let holder: Holder;

  before(async () => {
    wh = await startAdmissionWebhook();
    holder = new Holder(wh);
    t = await startTestServer([`--token-auth-file=${await tokenFile()}`, '--enable-priority-and-fairness=false', '--max-mutating-requests-inflight=1']);
    await installHook(t, wh);
  });

  after(async () => {
    holder?.release();
    await t?.stop();
    await wh?.close();
  });

  test('max in-flight limits apply and no PF headers are sent', async () => {
    const held = await holdSeat(t, holder, 'erin', 'e1');
    const m = (await t.request('GET', '/metrics')).body;
    assert.equal(metricValue(m, 'apiserver_current_inflight_requests', { request_kind: 'mutating' }), 1, m.split('\n').filter((l) => l.includes('inflight')).join('\n'));
    const r = await t.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'x' } }, as('erin'));
    assertTooMany(r);
    assert.equal(r.headers[FS_HEADER], undefined);
    // Reads have their own limit.
    const g = await t.request('GET', '/api/v1/namespaces/default', undefined, as('erin'));
    assert.equal(g.status, 200);
    assert.equal(g.headers[FS_HEADER], undefined);
    holder.release();
    assert.equal((await held.done).status, 201);
    assert.doesNotMatch((await t.request('GET', '/metrics')).body, /^apiserver_flowcontrol_dispatched_requests_total\{/m);
  });
});

describe('priority and fairness with two serving threads', { skip: SKIP_WITHOUT_UWS }, () => {
  let t: TestServer;

  before(async () => {
    t = await startTestServer(['--frontend-threads=2', '--max-requests-inflight=3', '--max-mutating-requests-inflight=2']);
  });

  after(async () => {
    await t?.stop();
  });

  test('each thread has its share of the seats; /metrics sums them', async () => {
    // catch-all's seats per thread: ceil(ceil(5 / 2) * 5 / Σ shares of the Limited levels), whatever levels exist.
    const pls = (await t.request('GET', `${FC}/prioritylevelconfigurations`)).json<{ items: Array<{ metadata: { name: string }; spec: { type: string; limited?: { assuredConcurrencyShares?: number } } }> }>().items;
    let shares = pls.filter((p) => p.spec.type === 'Limited').reduce((sum, p) => sum + (p.spec.limited?.assuredConcurrencyShares ?? 30), 0);
    if (!pls.some((p) => p.metadata.name === 'catch-all')) shares += 5; // imagined
    const catchAllShares = pls.find((p) => p.metadata.name === 'catch-all')?.spec.limited?.assuredConcurrencyShares ?? 5;
    const perThread = Math.max(1, Math.ceil((Math.ceil(5 / 2) * catchAllShares) / shares));
    // Each thread's configuration follows the objects through its own watch: a thread that has not yet had them
    // all right after start counts catch-all's seats against fewer levels (seen once in CI: 3 + 1). Wait for both.
    let text = '';
    for (let i = 0; i < 50; i++) {
      text = (await t.request('GET', '/metrics')).body;
      if (metricValue(text, 'apiserver_flowcontrol_request_concurrency_limit', { priority_level: 'catch-all' }) === 2 * perThread) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(metricValue(text, 'apiserver_flowcontrol_request_concurrency_limit', { priority_level: 'catch-all' }), 2 * perThread, text.split('\n').filter((l) => l.includes('concurrency_limit')).join('\n'));
  });
});
