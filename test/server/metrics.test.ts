/**
 * /metrics after traffic through the chain: the request counter and
 * histogram carry the original's labels (verb LIST/GET/WATCH/POST, scope,
 * code), unauthenticated requests cannot mint label values, the in-flight
 * and long-running gauges move, and the helper metrics record as specified.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from './harness.ts';
import { createMetrics } from '../../src/server/metrics.ts';

interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** Parses the Prometheus text format (enough of it for these tests). */
function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    assert.ok(m, `unparsable exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const lm of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[lm[1]!] = lm[2]!;
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

function find(samples: readonly Sample[], name: string, labels: Record<string, string>): Sample | undefined {
  return samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v) && Object.keys(s.labels).length === Object.keys(labels).length);
}

async function scrape(h: Harness): Promise<{ text: string; samples: Sample[] }> {
  const res = await h.send('GET', '/metrics', { token: 'alice-token' });
  assert.equal(res.status, 200);
  assert.match(String(res.header('content-type')), /^text\/plain; version=0\.0\.4/);
  return { text: res.text, samples: parseExposition(res.text) };
}

const base = { group: '', version: 'v1', resource: 'pods', subresource: '', component: 'apiserver' };
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('/metrics', () => {
  it('counts requests with the original labels once they end', async () => {
    const h = createHarness();
    await h.send('GET', '/api/v1/namespaces/default/pods', { token: 'alice-token' });
    await h.send('GET', '/api/v1/namespaces/default/pods', { token: 'alice-token' });
    await h.send('GET', '/api/v1/namespaces/default/pods/p1', { token: 'alice-token' });
    await h.send('POST', '/api/v1/namespaces/default/pods', { token: 'alice-token' });
    await h.send('GET', '/api/v1/pods', { token: 'bob-token' }); // 403
    await h.send('GET', '/api/v1/namespaces/default/made-up-resource-1234', {}); // 401
    const { samples } = await scrape(h);

    const total = 'apiserver_request_total';
    assert.equal(find(samples, total, { ...base, verb: 'LIST', scope: 'namespace', code: '200' })?.value, 2);
    assert.equal(find(samples, total, { ...base, verb: 'GET', scope: 'resource', code: '200' })?.value, 1);
    assert.equal(find(samples, total, { ...base, verb: 'POST', scope: 'resource', code: '200' })?.value, 1);
    assert.equal(find(samples, total, { ...base, verb: 'LIST', scope: 'cluster', code: '403' })?.value, 1);
    // Unauthenticated: no label values from the URL.
    assert.equal(
      find(samples, total, { verb: 'LIST', group: '', version: '', resource: '', subresource: '', scope: 'namespace', component: 'apiserver', code: '401' })?.value,
      1,
    );
    assert.ok(!samples.some((s) => Object.values(s.labels).includes('made-up-resource-1234')));

    const bucket = find(samples, 'apiserver_request_duration_seconds_bucket', { ...base, verb: 'LIST', scope: 'namespace', le: '60' });
    assert.equal(bucket?.value, 2);
    assert.ok(find(samples, 'apiserver_request_duration_seconds_bucket', { ...base, verb: 'LIST', scope: 'namespace', le: '0.005' }));
  });

  it('reports health checks by path and includes process metrics', async () => {
    const h = createHarness();
    await h.send('GET', '/readyz', { token: 'alice-token' });
    const { samples } = await scrape(h);
    assert.equal(
      find(samples, 'apiserver_request_total', { verb: 'GET', group: '', version: '', resource: '', subresource: '/readyz', scope: '', component: 'apiserver', code: '200' })?.value,
      1,
    );
    assert.ok(samples.some((s) => s.name === 'process_cpu_user_seconds_total'));
    assert.ok(samples.some((s) => s.name === 'nodejs_eventloop_lag_seconds'));
  });

  it('shows a watch in apiserver_longrunning_requests while open, then counts it as WATCH', async () => {
    const h = createHarness({ minRequestTimeoutSeconds: 60 });
    const watch = h.start('GET', '/api/v1/namespaces/default/pods?watch=true', { token: 'alice-token' });
    await sleep(5);
    const open = await scrape(h);
    assert.equal(find(open.samples, 'apiserver_longrunning_requests', { ...base, verb: 'WATCH', scope: 'namespace' })?.value, 1);
    watch.disconnect();
    await watch.done;
    const closed = await scrape(h);
    assert.equal(find(closed.samples, 'apiserver_longrunning_requests', { ...base, verb: 'WATCH', scope: 'namespace' })?.value, 0);
    assert.equal(find(closed.samples, 'apiserver_request_total', { ...base, verb: 'WATCH', scope: 'namespace', code: '200' })?.value, 1);
  });

  it('reports the in-flight peak per request kind', async () => {
    const h = createHarness({ maxRequestsInflight: 10 });
    const slow = [1, 2, 3].map(() => h.start('GET', '/api/v1/pods', { token: 'alice-token', test: 'slow' }));
    await sleep(5);
    const during = await scrape(h);
    // the three slow ones plus the scrape itself
    assert.equal(find(during.samples, 'apiserver_current_inflight_requests', { request_kind: 'readOnly' })?.value, 4);
    assert.equal(find(during.samples, 'apiserver_current_inflight_requests', { request_kind: 'mutating' })?.value, 0);
    h.release();
    await Promise.all(slow.map((s) => s.done));
    await scrape(h); // resets the peak to the current count
    const after = await scrape(h);
    assert.equal(find(after.samples, 'apiserver_current_inflight_requests', { request_kind: 'readOnly' })?.value, 1);
  });
});

describe('metric helpers', () => {
  it('record watchers, storage latency, shard depth, webhook rejections and deprecated APIs', async () => {
    const m = createMetrics({ defaultMetrics: false });
    m.setRegisteredWatchers('apps', 'Deployment', 3);
    m.observeStorageRequest('get', 'pods', 0.003);
    m.setShardQueueDepth(2, 17);
    m.recordWebhookRejection({ name: 'policy.example.com', operation: 'CREATE', type: 'validating', errorType: 'no_error', rejectionCode: 799 });
    m.markDeprecatedApiRequested({ group: 'extensions', version: 'v1beta1', resource: 'ingresses', subresource: '', removedRelease: '1.22' });
    const samples = parseExposition(await m.registry.metrics());
    assert.equal(find(samples, 'apiserver_registered_watchers', { group: 'apps', kind: 'Deployment' })?.value, 3);
    assert.equal(find(samples, 'apiserver_storage_request_duration_seconds_bucket', { operation: 'get', type: 'pods', le: '0.005' })?.value, 1);
    assert.equal(find(samples, 'etcd_request_duration_seconds_count', { operation: 'get', type: 'pods' })?.value, 1);
    assert.equal(find(samples, 'apiserver_shard_queue_depth', { shard: '2' })?.value, 17);
    assert.equal(
      find(samples, 'apiserver_admission_webhook_rejection_count', {
        name: 'policy.example.com',
        operation: 'CREATE',
        type: 'validating',
        error_type: 'no_error',
        rejection_code: '600',
      })?.value,
      1,
    );
    assert.equal(
      find(samples, 'apiserver_requested_deprecated_apis', { group: 'extensions', version: 'v1beta1', resource: 'ingresses', subresource: '', removed_release: '1.22' })?.value,
      1,
    );
    assert.ok(!samples.some((s) => s.name.startsWith('process_')), 'default metrics can be left out');
  });

  it('keeps registries apart', async () => {
    const a = createMetrics({ defaultMetrics: false });
    const b = createMetrics({ defaultMetrics: false });
    a.setShardQueueDepth(0, 5);
    assert.ok(!(await b.registry.metrics()).includes('apiserver_shard_queue_depth{shard="0"} 5'));
  });
});
