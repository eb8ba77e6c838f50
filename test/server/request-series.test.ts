/**
 * The request counter and latency histogram recorded by RequestSeries print
 * exactly what prom-client's own Counter and Histogram print for the same
 * observations (Prometheus text and JSON, line for line once sorted: only the
 * order of series may differ), including latencies on, between and above the
 * bucket bounds, several codes per series, and after a reset.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Counter, Histogram, Registry } from 'prom-client';
import { REQUEST_DURATION_BUCKETS } from '../../src/server/metrics.ts';
import { RequestSeries, SeriesCounter, SeriesHistogram } from '../../src/server/request-series.ts';
import { seededRandom } from '../support/seeded-random.ts';

const LABELS = ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const;
const TOTAL = { name: 'apiserver_request_total', help: 'requests', labelNames: [...LABELS, 'code'] };
const DURATION = { name: 'apiserver_request_duration_seconds', help: 'latency', labelNames: LABELS, buckets: [...REQUEST_DURATION_BUCKETS] };

function pair(): { reference: Registry; ours: Registry; observe(values: string[], code: number, seconds: number): void } {
  const reference = new Registry();
  const total = new Counter({ ...TOTAL, registers: [reference] });
  const duration = new Histogram({ ...DURATION, registers: [reference] });
  const ours = new Registry();
  const series = new RequestSeries(LABELS, REQUEST_DURATION_BUCKETS);
  new SeriesCounter({ ...TOTAL, registers: [ours] }).bind(series);
  new SeriesHistogram({ ...DURATION, registers: [ours] }).bind(series);
  return {
    reference,
    ours,
    observe(values, code, seconds) {
      total.labels(...values, String(code)).inc();
      duration.labels(...values).observe(seconds);
      series.observe(values, code, seconds);
    },
  };
}

const sortedLines = (text: string): string[] => text.split('\n').sort();

describe('RequestSeries', () => {
  it('prints what prom-client prints for the same requests', async () => {
    const p = pair();
    const next = seededRandom(11);
    const verbs = ['GET', 'LIST', 'POST', 'WATCH', 'APPLY'];
    const resources = ['pods', 'configmaps', 'services', ''];
    const codes = [200, 201, 404, 409, 500, 0];
    for (let i = 0; i < 2000; i++) {
      const values = [verbs[Math.floor(next() * verbs.length)]!, '', 'v1', resources[Math.floor(next() * resources.length)]!, next() < 0.1 ? 'status' : '', 'namespace', 'apiserver'];
      // Some exactly on a bound, some above the last one (only in +Inf), the rest anywhere.
      const r = next();
      const seconds = r < 0.1 ? REQUEST_DURATION_BUCKETS[Math.floor(next() * REQUEST_DURATION_BUCKETS.length)]! : r < 0.15 ? 61 + next() * 100 : next() * next() * 2;
      p.observe(values, codes[Math.floor(next() * codes.length)]!, seconds);
    }
    const [want, got] = [await p.reference.metrics(), await p.ours.metrics()];
    assert.ok(want.includes('apiserver_request_duration_seconds_bucket{le="+Inf"'), 'the reference has data');
    assert.deepEqual(sortedLines(got), sortedLines(want));
    // Key order inside a value is not part of the contract: compare canonical forms.
    const canonical = (v: object): string => JSON.stringify(v, (_k, x: unknown) => (x !== null && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => a.localeCompare(b))) : x));
    const json = async (r: Registry): Promise<string[]> => (await r.getMetricsAsJSON()).flatMap((m) => m.values.map(canonical)).sort();
    assert.deepEqual(await json(p.ours), await json(p.reference));
  });

  it('serves a histogram alone (no codes), read under two names, as prom-client would', async () => {
    const reference = new Registry();
    const ours = new Registry();
    const config = (name: string) => ({ name, help: 'storage latency', labelNames: ['operation', 'type'], buckets: [...REQUEST_DURATION_BUCKETS] });
    const refs = [new Histogram({ ...config('a_seconds'), registers: [reference] }), new Histogram({ ...config('b_seconds'), registers: [reference] })];
    const series = new RequestSeries(['operation', 'type'], REQUEST_DURATION_BUCKETS);
    new SeriesHistogram({ ...config('a_seconds'), registers: [ours] }).bind(series);
    new SeriesHistogram({ ...config('b_seconds'), registers: [ours] }).bind(series);
    const next = seededRandom(5);
    for (let i = 0; i < 500; i++) {
      const labels = { operation: next() < 0.5 ? 'get' : 'create', type: next() < 0.5 ? 'pods' : 'configmaps' };
      const seconds = next() * 0.3;
      for (const h of refs) h.observe(labels, seconds);
      series.observe([labels.operation, labels.type], undefined, seconds);
    }
    const [want, got] = [await reference.metrics(), await ours.metrics()];
    assert.match(want, /b_seconds_count\{operation="get",type="pods"\} \d+/);
    assert.deepEqual(sortedLines(got), sortedLines(want));
  });

  it('starts again from nothing after a reset', async () => {
    const p = pair();
    p.observe(['GET', '', 'v1', 'pods', '', 'resource', 'apiserver'], 200, 0.01);
    p.reference.resetMetrics();
    p.ours.resetMetrics();
    p.observe(['LIST', '', 'v1', 'pods', '', 'namespace', 'apiserver'], 200, 0.3);
    const got = await p.ours.metrics();
    assert.doesNotMatch(got, /verb="GET"/);
    assert.deepEqual(sortedLines(got), sortedLines(await p.reference.metrics()));
  });
});
