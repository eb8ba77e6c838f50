/**
 * ops/: every metric the Grafana dashboard and the Prometheus alerting rules
 * name is exported by a running server. The test drives the traffic those
 * metrics need (reads, writes, a watch, a validating webhook that denies, over
 * a real HTTPS webhook server), scrapes /metrics, and requires for each named
 * metric its `# TYPE` line and, for those the traffic drives, a sample.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { startAdmissionWebhook, deny, type AdmissionWebhookServer } from '../admission/support/admission-webhook.ts';
import { apiGroup } from '../../src/naming/index.ts';

const OPS = new URL('../../ops/', import.meta.url);
/** Metrics the traffic below must have given a sample (the rest need failures or load to appear). */
const DRIVEN = [
  'apiserver_request_total',
  'apiserver_request_duration_seconds',
  'apiserver_registered_watchers',
  'apiserver_longrunning_requests',
  'apiserver_shard_queue_depth',
  'apiserver_storage_request_duration_seconds',
  'apiserver_admission_webhook_rejection_count',
  'apiserver_current_inflight_requests',
  'apiserver_flowcontrol_request_concurrency_limit',
  'apiserver_flowcontrol_request_wait_duration_seconds',
];

let t: TestServer;
let wh: AdmissionWebhookServer;

before(async () => {
  wh = await startAdmissionWebhook();
  wh.answer = (call) => deny(call, { code: 403, message: 'no' });
  t = await startTestServer();
});

after(async () => {
  await t?.stop();
  await wh?.close();
});

/** Metric names in PromQL expressions: identifiers that start like ours, not label names or functions. */
function metricNames(exprs: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const e of exprs) for (const m of e.matchAll(/\b((?:apiserver|etcd)_[a-z0-9_]+)\b/g)) out.add(m[1]!);
  return out;
}

async function namedByOps(): Promise<Set<string>> {
  const dash = JSON.parse(await readFile(new URL('grafana-dashboard.json', OPS), 'utf8')) as { panels: Array<{ targets: Array<{ expr: string }> }>; templating: { list: Array<{ query?: unknown }> } };
  const rules = parseYaml(await readFile(new URL('prometheus-rules.yaml', OPS), 'utf8')) as { groups: Array<{ rules: Array<{ alert: string; expr: string }> }> };
  const exprs = [
    ...dash.panels.flatMap((p) => p.targets.map((x) => x.expr)),
    ...dash.templating.list.flatMap((v) => (typeof v.query === 'string' ? [v.query] : [])),
    ...rules.groups.flatMap((g) => g.rules.map((r) => r.expr)),
  ];
  assert.ok(rules.groups[0]!.rules.length >= 8, 'the rules file has its alerts');
  return metricNames(exprs);
}

/** The exported family of a name as PromQL uses it (`_bucket`/`_sum`/`_count` of a histogram). */
function family(name: string, types: Map<string, string>): string | undefined {
  if (types.has(name)) return name;
  const m = /^(.*)_(bucket|sum|count)$/.exec(name);
  return m !== null && types.get(m[1]!) === 'histogram' ? m[1] : undefined;
}

test('every metric named by the dashboard and the alerting rules is exported', async () => {
  // Traffic: reads and writes, a watch held open, a webhook denial.
  assert.equal((await t.request('POST', '/api/v1/namespaces', { metadata: { name: 'ops', labels: { hooked: 'yes' } } })).status, 201);
  assert.equal((await t.request('POST', '/api/v1/namespaces/ops/configmaps', { metadata: { name: 'a' } })).status, 201);
  assert.equal((await t.request('GET', '/api/v1/namespaces/ops/configmaps/a')).status, 200);
  assert.equal((await t.request('GET', '/api/v1/namespaces/ops/configmaps')).status, 200);
  const watch = await t.watch('/api/v1/namespaces/ops/configmaps?watch=1');
  try {
    const cfg = await t.request('POST', `/apis/${apiGroup('admissionregistration')}/v1/validatingwebhookconfigurations`, {
      metadata: { name: 'ops-deny' },
      webhooks: [{
        name: 'deny.ops.example.com',
        clientConfig: { url: wh.url('/deny'), caBundle: wh.caBundle },
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['secrets'] }],
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        namespaceSelector: { matchLabels: { hooked: 'yes' } },
      }],
    });
    assert.equal(cfg.status, 201, cfg.body);
    const deadline = Date.now() + 30_000;
    for (let i = 0; ; i++) {
      const r = await t.request('POST', '/api/v1/namespaces/ops/secrets', { metadata: { name: `s${i}` } });
      if (r.status === 403) break;
      assert.ok(Date.now() < deadline, 'the webhook took effect');
      await new Promise((res) => setTimeout(res, 200));
    }

    const text = (await t.request('GET', '/metrics')).body;
    const types = new Map<string, string>();
    for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) types.set(m[1]!, m[2]!);
    const named = await namedByOps();
    assert.ok(named.size >= 12, [...named].join(' '));
    const missing = [...named].filter((n) => family(n, types) === undefined);
    assert.deepEqual(missing, [], `named in ops/ but not exported: ${missing.join(', ')}`);
    for (const f of DRIVEN) {
      assert.ok([...named].some((n) => family(n, types) === f), `${f} is used in ops/`);
      assert.match(text, new RegExp(`^${f}(_bucket|_sum|_count)?(\\{[^}]*\\})? [0-9.e+-]+$`, 'm'), `${f} has a sample`);
    }
    assert.match(text, /^apiserver_admission_webhook_rejection_count\{name="deny.ops.example.com",operation="CREATE",type="validating",error_type="no_error",rejection_code="403"\} [1-9]/m);
    assert.match(text, /^apiserver_registered_watchers\{[^}]*kind="ConfigMap"[^}]*\} [1-9]/m);
  } finally {
    watch.close();
  }
});
