/**
 * Section 4: the cost of one request's round trip main thread -> shard ->
 * main thread, as router.get with read {kind:'any'} (served from the cache,
 * no store call): one at a time (latency) and with many in flight (µs per
 * request, amortized over the batches the ports carry).
 */
import { medianRun, summarize } from '../lib/stats.ts';
import { drive } from '../lib/timer.ts';
import { CEIL } from './ceilings.ts';
import { PREFIX, RESOURCE, type BackendHarness } from './harness.ts';
import { ObjectFactory } from './objects.ts';
import type { Report } from './report.ts';
import type { Settings } from './settings.ts';

const SECTION = 'hop';
const KEYS = 1000;
const TARGET_US = 10;

export async function hopSection(h: BackendHarness, report: Report, s: Settings): Promise<void> {
  const namespace = 'hop';
  await h.dataset(namespace, KEYS);
  const router = await h.router();
  const factory = new ObjectFactory(namespace);
  const keys = Array.from({ length: KEYS }, (_, i) => factory.key(PREFIX, i));
  const get = async (i: number, kind: 'any' | 'latest'): Promise<void> => {
    const reply = await router.get(RESOURCE, keys[i % KEYS]!, { kind });
    if (reply.object === null) throw new Error(`get ${keys[i % KEYS]} found nothing`);
  };
  await drive({ concurrency: 1, count: 500, latencies: false }, (i) => get(i, 'any'));

  for (const kind of ['any', 'latest'] as const) {
    const runs = [];
    for (let r = 0; r < s.runs; r++) runs.push(await drive({ concurrency: 1, count: s.hopSingle }, (i) => get(i, kind)));
    const run = medianRun(runs, (x) => summarize(x.latencies).p50);
    const lat = summarize(run.latencies);
    report.add({
      section: SECTION,
      label: `router.get read ${kind}, one at a time (latency)`,
      backend: h.backend.name,
      kind: 'time',
      value: lat.p50,
      p50: lat.p50,
      p99: lat.p99,
      ceiling: kind === 'any' ? report.ceiling(CEIL.mc1) : undefined,
      note:
        kind === 'any'
          ? `1 KiB object back; median run of ${s.runs} x ${s.hopSingle}`
          : `includes store.currentRevision() from the shard; median run of ${s.runs} x ${s.hopSingle}`,
    });
  }

  const runs = [];
  for (let r = 0; r < s.runs; r++) {
    runs.push(await drive({ concurrency: s.hopInflight, count: s.hopLoad }, (i) => get(i, 'any')));
  }
  const run = medianRun(runs, (x) => x.rate);
  const lat = summarize(run.latencies);
  const perRequestMs = 1000 / run.rate;
  report.add({
    section: SECTION,
    label: `router.get read any, ${s.hopInflight} in flight (per request, amortized)`,
    backend: h.backend.name,
    kind: 'time',
    value: perRequestMs,
    p50: lat.p50,
    p99: lat.p99,
    ceiling: report.ceiling(CEIL.mc64),
    target: { text: `<= ${TARGET_US} µs per request`, pass: perRequestMs * 1000 <= TARGET_US },
    note: `${Math.round(run.rate).toLocaleString('en-US')} gets/s; p50/p99 are per-request latencies under load; median of ${s.runs} x ${s.hopLoad.toLocaleString('en-US')}`,
  });
}
