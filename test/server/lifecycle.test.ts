/**
 * The pieces of a graceful shutdown on their own: the shared phase, the
 * drain (wait group + long-running ends), the shutdown filter's answers in
 * both modes and its exemptions, --livez-grace-period on boot-sequence
 * checks, and the byte rate of --max-connection-bytes-per-sec.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PHASE_NOT_ACCEPTING, PHASE_SHUTDOWN_INITIATED, RequestDrain, ShutdownSignals } from '../../src/server/lifecycle.ts';
import { HealthChecks } from '../../src/server/health/index.ts';
import { ByteRate } from '../../src/endpoints/byte-rate.ts';
import { withShutdown, SHUTDOWN_RETRY_AFTER_MESSAGE } from '../../src/server/filters/with-shutdown.ts';
import { RequestContext } from '../../src/server/context.ts';
import { TrackedResponse } from '../../src/server/filters/tracked-response.ts';
import type { ApiRequest, ApiResponse } from '../../src/server/http.ts';
import { drainThread } from '../../src/server/drain-thread.ts';
import type { Frontend } from '../../src/frontends/frontend.ts';
import { createLogger } from '../../src/server/logging.ts';

describe('ShutdownSignals', () => {
  it('moves forward only, and every view of the buffer sees it', () => {
    const a = new ShutdownSignals();
    const b = new ShutdownSignals(a.buffer);
    assert.equal(b.shutdownInitiated, false);
    a.stopAcceptingNewRequests();
    assert.equal(b.phase, PHASE_NOT_ACCEPTING);
    b.initiateShutdown();
    assert.equal(a.phase, PHASE_NOT_ACCEPTING, 'never back to an earlier phase');
    assert.ok(a.shutdownInitiated && a.notAcceptingNewRequests);
    assert.ok(PHASE_SHUTDOWN_INITIATED < PHASE_NOT_ACCEPTING);
  });
});

describe('draining serving threads together (--shutdown-send-retry-after)', () => {
  /** A front end that records when it stopped listening and closed. */
  const front = (events: string[], name: string): Frontend => ({
    port: 0,
    stopListening: () => events.push(`${name} stops listening`),
    close: async () => {
      events.push(`${name} closes`);
    },
  });
  const logger = createLogger({ level: 'silent' });

  it('counts every thread drained and waits for the last one; at once when no drain was begun', async () => {
    const a = new ShutdownSignals();
    const b = new ShutdownSignals(a.buffer);
    assert.equal(await a.allThreadsDrained(0), true, 'nothing counted: nothing to wait for');
    a.beginDrain(2);
    b.threadDrained();
    assert.equal(await a.allThreadsDrained(30), false, 'one thread still draining');
    a.threadDrained();
    assert.equal(await b.allThreadsDrained(30), true);
  });

  it('keeps a drained thread listening (answering 429) until every other thread is drained too', async () => {
    const signals = new ShutdownSignals();
    signals.beginDrain(2);
    const events: string[] = [];
    // This thread has nothing in flight; the other still has a request.
    const idle = drainThread({ drain: new RequestDrain(), fronts: [front(events, 'idle')], sendRetryAfter: true, requestTimeoutMs: 10_000, logger, signals });
    const busyDrain = new RequestDrain();
    busyDrain.add();
    const busy = drainThread({ drain: busyDrain, fronts: [front(events, 'busy')], sendRetryAfter: true, requestTimeoutMs: 10_000, logger, signals: new ShutdownSignals(signals.buffer) });
    await new Promise((r) => setTimeout(r, 60));
    assert.equal(events.length, 0, 'no listener closed while a request is in flight anywhere');
    busyDrain.done();
    await Promise.all([idle, busy]);
    assert.deepEqual(events.filter((e) => e.endsWith('stops listening')).sort(), ['busy stops listening', 'idle stops listening']);
    assert.ok(events.indexOf('idle stops listening') < events.indexOf('idle closes'));
  });

  it('without --shutdown-send-retry-after stops listening at once, whatever the other threads do', async () => {
    const signals = new ShutdownSignals();
    signals.beginDrain(2);
    const events: string[] = [];
    const drain = new RequestDrain();
    drain.add();
    const done = drainThread({ drain, fronts: [front(events, 'a')], sendRetryAfter: false, requestTimeoutMs: 10_000, logger, signals });
    assert.deepEqual(events, ['a stops listening']);
    drain.done();
    await done;
    assert.deepEqual(events, ['a stops listening', 'a closes']);
  });
});

describe('RequestDrain', () => {
  it('waits for requests in flight, then refuses new ones', async () => {
    const d = new RequestDrain();
    assert.equal(d.add(), true);
    assert.equal(d.add(), true);
    let drained: boolean | undefined;
    const p = d.drain(10_000).then((v) => (drained = v));
    assert.equal(d.add(), false, 'no new member once waited on');
    d.done();
    await new Promise((r) => setImmediate(r));
    assert.equal(drained, undefined, 'one still in flight');
    d.done();
    await p;
    assert.equal(drained, true);
  });

  it('gives up after its bound', async () => {
    const d = new RequestDrain();
    d.add();
    assert.equal(await d.drain(20), false);
  });

  it('ends every registered long-running request once; unregistered ones are left alone', () => {
    const d = new RequestDrain();
    const ended: string[] = [];
    d.registerLongRunning(() => ended.push('a'));
    const unregister = d.registerLongRunning(() => ended.push('b'));
    d.registerLongRunning(() => {
      throw new Error('one failing end does not stop the others');
    });
    d.registerLongRunning(() => ended.push('c'));
    unregister();
    assert.equal(d.endLongRunning(), 3);
    assert.deepEqual(ended, ['a', 'c']);
    assert.equal(d.endLongRunning(), 0);
  });
});

/** A response that records what the filter wrote. */
function recorder(): ApiResponse & { status: number; headers: Record<string, string | string[]>; body: string } {
  const r = {
    status: 0,
    headers: {} as Record<string, string | string[]>,
    body: '',
    closed: false,
    bufferedBytes: 0,
    writeHead(status: number, headers: Record<string, string | string[]>) {
      r.status = status;
      r.headers = { ...headers };
    },
    write: () => true,
    flushHead: () => true,
    onDrain: () => {},
    onClose: () => {},
    destroy: () => {},
    end(chunk?: Uint8Array | string) {
      r.body += chunk === undefined ? '' : typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
      r.closed = true;
    },
    endParts: () => {},
  };
  return r;
}

function request(path: string, headers: Record<string, string> = {}): ApiRequest {
  return {
    method: 'GET',
    path,
    rawQuery: '',
    query: new URLSearchParams(),
    header: (n: string) => headers[n.toLowerCase()],
    headerValues: (n: string) => (headers[n.toLowerCase()] === undefined ? [] : [headers[n.toLowerCase()]!]),
    headerNames: () => Object.keys(headers),
    remoteAddress: '127.0.0.1',
    protocol: 'http/1.1',
    frontend: 'node',
    peerCertificates: undefined,
    body: async () => new Uint8Array(),
    signal: new AbortController().signal,
  };
}

async function run(filter: ReturnType<typeof withShutdown>, path: string, opts: { longRunning?: boolean; headers?: Record<string, string> } = {}) {
  const raw = recorder();
  const ctx = new RequestContext(request(path, opts.headers), new TrackedResponse(raw));
  ctx.longRunning = opts.longRunning ?? false;
  let served = false;
  await filter(ctx, async () => {
    served = true;
  });
  return { served, raw };
}

describe('the shutdown filter', () => {
  it('serves and counts ordinary requests until the delay is over; long-running ones are not counted', async () => {
    const signals = new ShutdownSignals();
    const drain = new RequestDrain();
    const f = withShutdown({ signals, drain, sendRetryAfter: true });
    signals.initiateShutdown();
    let during = -1;
    const raw = recorder();
    const ctx = new RequestContext(request('/api/v1/pods'), new TrackedResponse(raw));
    await f(ctx, async () => {
      during = drain.inflight;
    });
    assert.equal(during, 1);
    assert.equal(drain.inflight, 0);
    const watch = await run(f, '/api/v1/pods', { longRunning: true });
    assert.equal(watch.served, true);
  });

  it('with --shutdown-send-retry-after: 429, Retry-After 5, Connection: close and the original text after the delay', async () => {
    const signals = new ShutdownSignals();
    const f = withShutdown({ signals, drain: new RequestDrain(), sendRetryAfter: true });
    signals.stopAcceptingNewRequests();
    for (const longRunning of [false, true]) {
      const { served, raw } = await run(f, '/api/v1/namespaces/default/configmaps', { longRunning });
      assert.equal(served, false);
      assert.equal(raw.status, 429);
      assert.equal(raw.headers['retry-after'], '5');
      assert.equal(raw.headers['connection'], 'close');
      assert.equal(raw.body, `${SHUTDOWN_RETRY_AFTER_MESSAGE}\n`);
    }
  });

  it('without it: 503 ServiceUnavailable with Retry-After 1 once the drain began', async () => {
    const signals = new ShutdownSignals();
    const drain = new RequestDrain();
    const f = withShutdown({ signals, drain, sendRetryAfter: false });
    signals.stopAcceptingNewRequests();
    await drain.drain(10);
    const { served, raw } = await run(f, '/api/v1/pods');
    assert.equal(served, false);
    assert.equal(raw.status, 503);
    assert.equal(raw.headers['Retry-After'] ?? raw.headers['retry-after'], '1');
    assert.equal(raw.headers['connection'], 'close');
    assert.match(raw.body, /"reason":"ServiceUnavailable"/);
    assert.match(raw.body, /apiserver is shutting down/);
  });

  it('never turns away health probes, metrics scrapes or its own loopback client', async () => {
    const signals = new ShutdownSignals();
    const f = withShutdown({ signals, drain: new RequestDrain(), sendRetryAfter: true });
    signals.stopAcceptingNewRequests();
    for (const path of ['/readyz', '/livez/ping', '/healthz', '/metrics']) assert.equal((await run(f, path)).served, true, path);
    const ua = (await import('../../src/naming/index.ts')).names.apiServerFieldManager;
    assert.equal((await run(f, '/api/v1/pods', { headers: { 'user-agent': `${ua}/v1.25.0` } })).served, true);
    assert.equal((await run(f, '/api/v1/pods', { headers: { 'user-agent': 'kubectl/v1.32' } })).served, false);
  });
});

describe('--livez-grace-period', () => {
  it('counts a failing boot-sequence check as live during the grace period, never as ready', async () => {
    let now = 1_000;
    let shuttingDown = false;
    const h = new HealthChecks({ livezGracePeriodMs: 5_000, now: () => now, shuttingDown: () => shuttingDown });
    h.addBootSequence('poststarthook/x', () => {
      throw new Error('not finished');
    });
    const results = async (endpoint: 'livez' | 'readyz' | 'healthz'): Promise<string[]> => {
      const out: string[] = [];
      for (const c of h.checksFor(endpoint)) {
        try {
          await c.check();
          out.push(`+${c.name}`);
        } catch {
          out.push(`-${c.name}`);
        }
      }
      return out;
    };
    assert.deepEqual(await results('livez'), ['+ping', '+poststarthook/x']);
    assert.deepEqual(await results('readyz'), ['+ping', '-poststarthook/x', '+shutdown']);
    assert.deepEqual(await results('healthz'), ['+ping', '-poststarthook/x']);
    now += 5_000;
    assert.deepEqual(await results('livez'), ['+ping', '-poststarthook/x']);
    shuttingDown = true;
    assert.deepEqual(await results('readyz'), ['+ping', '-poststarthook/x', '-shutdown']);
  });
});

describe('ByteRate (--max-connection-bytes-per-sec)', () => {
  it('lets a second of bytes through, then paces the rest; a chunk larger than a second waits for a full bucket', () => {
    let now = 0;
    const r = new ByteRate(1000, () => now);
    assert.equal(r.take(600), 0);
    assert.equal(r.take(400), 0);
    assert.equal(r.take(500), 500, '500 bytes at 1000/s: 500 ms');
    now += 500;
    assert.equal(r.take(500), 0);
    now += 100;
    assert.equal(r.take(3000), 900, 'a big chunk waits for a full bucket');
    now += 900;
    assert.equal(r.take(3000), 0, 'and then goes whole');
    now += 1000;
    assert.ok(r.take(1) > 0, 'leaving the bucket in debt: the average holds');
  });
});
