/**
 * EventRateLimit with the original's TestEventRateLimiting cases (a fake
 * clock, qps 1), its configuration validation, the 429 Status, dry runs,
 * and buckets shared through one SharedArrayBuffer: two plugin instances on
 * the same memory (as two serving threads) and a real worker thread draw
 * from one allowance.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { names } from '../../src/naming/index.ts';
import type { KObject } from '../../src/registry/object.ts';
import { eventRateLimit, loadEventRateLimitConfig, type EventRateLimitConfig, type LimitType } from '../../src/admission/plugins/event-rate-limit.ts';
import { SharedTokenBuckets } from '../../src/admission/plugins/shared-token-buckets.ts';
import { attrs, obj, rt, run } from './misc-support.ts';

const events = rt('', 'v1', 'events');
const configmaps = rt('', 'v1', 'configmaps');
const CONFIG_VERSION = `${names.admissionNames.eventRateLimitConfigGroups[0]}/v1alpha1`;

interface Req {
  kind?: 'Event' | 'NonEvent';
  namespace?: string;
  user?: string;
  event?: KObject;
  delay?: number;
  blocked?: boolean;
}

const ev = (source: Record<string, string> = {}, involvedObject: Record<string, string> = {}): KObject => obj('Event', { name: 'name' }, { source, involvedObject });
const comp = (c: string): Req => ({ event: ev({ component: c }) });

function keyInclusion(make: (label: string) => KObject): Req[] {
  return [{ event: make('A') }, { event: make('A'), blocked: true }, { event: make('B') }];
}

interface Case {
  name: string;
  server?: number;
  namespace?: [number, number];
  user?: [number, number];
  sourceAndObject?: [number, number];
  requests: Req[];
}

const N = (namespace: string, blocked = false, delay = 0): Req => ({ namespace, blocked, delay });
const C = (c: string, blocked = false, delay = 0): Req => ({ ...comp(c), blocked, delay });
const cases: Case[] = [
  { name: 'event not blocked when tokens available', server: 3, requests: [{}] },
  { name: 'non-event not blocked', server: 3, requests: [{ kind: 'NonEvent' }] },
  { name: 'event blocked after tokens exhausted', server: 3, requests: [{}, {}, {}, { blocked: true }] },
  { name: 'non-event not blocked after tokens exhausted', server: 3, requests: [{}, {}, {}, { kind: 'NonEvent' }] },
  { name: 'non-events should not count against limit', server: 3, requests: [{}, {}, { kind: 'NonEvent' }, {}] },
  { name: 'event accepted after token refill', server: 3, requests: [{}, {}, {}, { blocked: true }, { delay: 1 }] },
  { name: 'event blocked by namespace limits', server: 100, namespace: [3, 10], requests: [N('A'), N('A'), N('A'), N('A', true)] },
  { name: 'event from other namespace not blocked', server: 100, namespace: [3, 10], requests: [N('A'), N('A'), N('A'), N('B')] },
  { name: 'events from other namespaces should not count against limit', server: 100, namespace: [3, 10], requests: [N('A'), N('A'), N('B'), N('A')] },
  { name: 'event accepted after namespace token refill', server: 100, namespace: [3, 10], requests: [N('A'), N('A'), N('A'), N('A', true), N('A', false, 1)] },
  { name: 'event from other namespaces should not clear namespace limits', server: 100, namespace: [3, 10], requests: [N('A'), N('A'), N('A'), N('B'), N('A', true)] },
  {
    name: 'namespace limits from lru namespace should clear when cache size exceeded',
    server: 100,
    namespace: [3, 2],
    requests: [N('A'), N('A'), N('B'), N('B'), N('B'), N('A'), N('B', true), N('A', true), N('C'), N('A', true), N('B')],
  },
  { name: 'event blocked by source+object limits', server: 100, sourceAndObject: [3, 10], requests: [C('A'), C('A'), C('A'), C('A', true)] },
  { name: 'event from other source+object not blocked', server: 100, sourceAndObject: [3, 10], requests: [C('A'), C('A'), C('A'), C('B')] },
  { name: 'events from other source+object should not count against limit', server: 100, sourceAndObject: [3, 10], requests: [C('A'), C('A'), C('B'), C('A')] },
  { name: 'event accepted after source+object token refill', server: 100, sourceAndObject: [3, 10], requests: [C('A'), C('A'), C('A'), C('A', true), C('A', false, 1)] },
  { name: 'event from other source+object should not clear source+object limits', server: 100, sourceAndObject: [3, 10], requests: [C('A'), C('A'), C('A'), C('B'), C('A', true)] },
  {
    name: 'source+object limits from lru source+object should clear when cache size exceeded',
    server: 100,
    sourceAndObject: [3, 2],
    requests: [C('A'), C('A'), C('B'), C('B'), C('B'), C('A'), C('B', true), C('A', true), C('C'), C('A', true), C('B')],
  },
  { name: 'source host should be included in source+object key', server: 100, sourceAndObject: [1, 10], requests: keyInclusion((l) => ev({ host: l })) },
  { name: 'involved object kind should be included in source+object key', server: 100, sourceAndObject: [1, 10], requests: keyInclusion((l) => ev({}, { kind: l })) },
  { name: 'involved object namespace should be included in source+object key', server: 100, sourceAndObject: [1, 10], requests: keyInclusion((l) => ev({}, { namespace: l })) },
  { name: 'involved object name should be included in source+object key', server: 100, sourceAndObject: [1, 10], requests: keyInclusion((l) => ev({}, { name: l })) },
  { name: 'involved object UID should be included in source+object key', server: 100, sourceAndObject: [1, 10], requests: keyInclusion((l) => ev({}, { uid: l })) },
  { name: 'involved object APIVersion should be included in source+object key', server: 100, sourceAndObject: [1, 10], requests: keyInclusion((l) => ev({}, { apiVersion: l })) },
  { name: 'event blocked by user limits', user: [3, 10], requests: [{ user: 'A' }, { user: 'A' }, { user: 'A' }, { user: 'A', blocked: true }] },
  { name: 'event from other user not blocked', requests: [{ user: 'A' }, { user: 'A' }, { user: 'A' }, { user: 'B' }] },
  { name: 'events from other user should not count against limit', requests: [{ user: 'A' }, { user: 'A' }, { user: 'B' }, { user: 'A' }] },
];

function configOf(c: Case): EventRateLimitConfig {
  const limits: Array<{ type: LimitType; qps: number; burst: number; cacheSize: number }> = [];
  if (c.server) limits.push({ type: 'Server', qps: 1, burst: c.server, cacheSize: 0 });
  if (c.namespace) limits.push({ type: 'Namespace', qps: 1, burst: c.namespace[0], cacheSize: c.namespace[1] });
  if (c.user) limits.push({ type: 'User', qps: 1, burst: c.user[0], cacheSize: c.user[1] });
  if (c.sourceAndObject) limits.push({ type: 'SourceAndObject', qps: 1, burst: c.sourceAndObject[0], cacheSize: c.sourceAndObject[1] });
  return { limits };
}

function specsOf(config: EventRateLimitConfig): Array<{ qps: number; burst: number; slots: number }> {
  return config.limits.map((l) => ({ qps: l.qps, burst: l.burst, slots: l.type === 'Server' ? 1 : l.cacheSize || 4096 }));
}

test('EventRateLimit: the original TestEventRateLimiting cases', async () => {
  for (const c of cases) {
    let now = 1_700_000_000_000;
    const config = configOf(c);
    const specs = specsOf(config);
    const plugin = eventRateLimit(config, new SharedTokenBuckets(new SharedArrayBuffer(SharedTokenBuckets.bytesFor(specs)), specs, () => now));
    for (const [i, r] of c.requests.entries()) {
      now += (r.delay ?? 0) * 1000;
      const a = attrs({
        rt: r.kind === 'NonEvent' ? configmaps : events,
        op: 'CREATE',
        ns: r.namespace ?? '',
        name: 'name',
        obj: r.event ?? ev(),
        user: { name: r.user ?? '', groups: [] },
      });
      const err = await run(plugin, a);
      assert.equal(err === undefined, !r.blocked, `${c.name}: request ${i} should have been ${r.blocked ? 'blocked' : 'admitted'}`);
      if (err) {
        assert.equal(err.code, 429, c.name);
        assert.equal(err.reason, 'TooManyRequests');
      }
    }
  }
});

test('EventRateLimit: the message names each limit reached; updates count, dry runs do not', async () => {
  const config: EventRateLimitConfig = { limits: [{ type: 'Server', qps: 1, burst: 1, cacheSize: 0 }, { type: 'Namespace', qps: 1, burst: 1, cacheSize: 0 }] };
  const specs = specsOf(config);
  const plugin = eventRateLimit(config, new SharedTokenBuckets(new SharedArrayBuffer(SharedTokenBuckets.bytesFor(specs)), specs, () => 0));
  assert.equal(await run(plugin, attrs({ rt: events, op: 'CREATE', ns: 'ns', obj: ev(), dryRun: true })), undefined);
  assert.equal(await run(plugin, attrs({ rt: events, op: 'UPDATE', ns: 'ns', obj: ev(), old: ev() })), undefined, 'the first real write spends the only tokens');
  assert.equal(await run(plugin, attrs({ rt: events, op: 'CREATE', ns: 'ns', obj: ev(), dryRun: true })), undefined, 'a dry run is not limited');
  const err = await run(plugin, attrs({ rt: events, op: 'CREATE', ns: 'ns', obj: ev() }));
  assert.equal(err?.message, 'Too many requests: [limit reached on type Server for key , limit reached on type Namespace for key ns]');
  assert.equal(plugin.handles!(events, '', 'DELETE'), false);
});

test('EventRateLimit: configuration decoding and validation (the original messages)', () => {
  const ok = loadEventRateLimitConfig({ apiVersion: CONFIG_VERSION, kind: 'Configuration', limits: [{ type: 'Namespace', qps: 50, burst: 100, cacheSize: 2000 }, { type: 'User', qps: 10, burst: 50 }] });
  assert.deepEqual(ok.limits, [{ type: 'Namespace', qps: 50, burst: 100, cacheSize: 2000 }, { type: 'User', qps: 10, burst: 50, cacheSize: 0 }]);
  assert.throws(() => loadEventRateLimitConfig(undefined), /limits: Invalid value: null: must not be empty/, 'no configuration: the plugin cannot start');
  assert.throws(() => loadEventRateLimitConfig({ apiVersion: CONFIG_VERSION, kind: 'Configuration', limits: [] }), /limits: Invalid value: \[\]: must not be empty/);
  assert.throws(
    () => loadEventRateLimitConfig({ apiVersion: CONFIG_VERSION, kind: 'Configuration', limits: [{ type: 'Bogus', qps: 0, burst: -1, cacheSize: -1 }] }),
    (e: Error) =>
      e.message ===
      'EventRateLimit: [limits[0].type: Unsupported value: "Bogus": supported values: "Namespace", "Server", "SourceAndObject", "User", limits[0].burst: Invalid value: -1: must be positive, limits[0].qps: Invalid value: 0: must be positive, limits[0].cacheSize: Invalid value: -1: must not be negative]',
  );
  assert.throws(() => loadEventRateLimitConfig({ apiVersion: 'v1', kind: 'ConfigMap' }), /no kind "ConfigMap" is registered/);
});

test('EventRateLimit: two plugin instances on one buffer share one allowance, and so does a worker thread', async () => {
  const config: EventRateLimitConfig = { limits: [{ type: 'Server', qps: 1, burst: 10, cacheSize: 0 }] };
  const specs = specsOf(config);
  const buffer = new SharedArrayBuffer(SharedTokenBuckets.bytesFor(specs));
  const now = (): number => 5_000;
  const a = eventRateLimit(config, new SharedTokenBuckets(buffer, specs, now));
  const b = eventRateLimit(config, new SharedTokenBuckets(buffer, specs, now));
  let accepted = 0;
  for (let i = 0; i < 6; i++) {
    if ((await run(a, attrs({ rt: events, op: 'CREATE', ns: 'x', obj: ev() }))) === undefined) accepted++;
    if ((await run(b, attrs({ rt: events, op: 'CREATE', ns: 'x', obj: ev() }))) === undefined) accepted++;
  }
  assert.equal(accepted, 10, 'ten tokens in all, not ten per instance');

  // A real thread on the same memory: it takes what is left of a fresh allowance.
  const fresh = new SharedArrayBuffer(SharedTokenBuckets.bytesFor(specs));
  const main = new SharedTokenBuckets(fresh, specs, now);
  for (let i = 0; i < 4; i++) assert.equal(main.tryAccept(0, ''), true);
  const moduleUrl = new URL('../../src/admission/plugins/shared-token-buckets.ts', import.meta.url).href;
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    (async () => {
      const { register } = await import('tsx/esm/api');
      register();
      const { SharedTokenBuckets } = await import(workerData.moduleUrl);
      const b = new SharedTokenBuckets(workerData.buffer, workerData.specs, () => 5000);
      let n = 0;
      for (let i = 0; i < 20; i++) if (b.tryAccept(0, '')) n++;
      parentPort.postMessage(n);
    })().catch((e) => parentPort.postMessage(String(e)));
  `;
  const worker = new Worker(code, { eval: true, workerData: { buffer: fresh, specs, moduleUrl } });
  const fromWorker = await new Promise<unknown>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  await worker.terminate();
  assert.equal(fromWorker, 6, 'the worker saw the 4 tokens the main thread took');
  assert.equal(main.tryAccept(0, ''), false, 'and the main thread sees what the worker took');
});
