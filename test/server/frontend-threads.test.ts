/**
 * Several serving threads (`--frontend-threads=2`, uWS on): connections to
 * the one uWS port land on both threads (SO_REUSEPORT); a request served by
 * the worker thread reads and writes through its own shard channels (JSON
 * and Protobuf); a watch held by one thread sees writes made through the
 * other; a shard restart under a worker-held watch loses and repeats
 * nothing; /metrics on any thread shows the whole process; a worker that
 * dies is restarted.
 *
 * Which thread serves a connection is read from
 * apiserver_frontend_thread_requests_total{thread}: two scrapes over the same
 * keep-alive connection differ by one at exactly that connection's thread.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import { readFileSync } from 'node:fs';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { KeepAliveConnection } from '../support/keepalive-connection.ts';
import { SKIP_WITHOUT_UWS } from '../support/uws-toggle.ts';
import { names } from '../../src/naming/index.ts';
import { decodeObject } from '../../src/protobuf/index.ts';
import { TEST_HOOKS_ENV } from '../../src/server/frontend-threads.ts';
import { sharedPortMethod } from '../../src/frontends/shared-port.ts';

interface WatchLine {
  type: string;
  object: { metadata: { name?: string; resourceVersion?: string } };
}

/** One TLS connection to the uWS port, kept alive so that every request on it goes to the same thread. */
class Conn extends KeepAliveConnection {
  constructor(t: TestServer, ca: Buffer, port: number = t.uwsPort!) {
    super(port, ca, t.server.files.adminToken);
  }

  /** A JSON watch on this connection (it holds the connection until closed). */
  watch(path: string): Promise<{ events: WatchLine[]; until(pred: () => boolean, what: string): Promise<void>; close(): void }> {
    return new Promise((resolve, reject) => {
      const req = https.request(
        {
          host: '127.0.0.1',
          port: this.port,
          path,
          agent: this.agent,
          ca: this.ca,
          servername: 'localhost',
          headers: { accept: 'application/json', authorization: `Bearer ${this.token}` },
        },
        (res) => {
          assert.equal(res.statusCode, 200);
          const events: WatchLine[] = [];
          let buf = '';
          res.on('data', (chunk: Buffer) => {
            buf += chunk.toString('utf8');
            const lines = buf.split('\n');
            buf = lines.pop()!;
            for (const line of lines) if (line.trim() !== '') events.push(JSON.parse(line) as WatchLine);
          });
          res.on('error', () => undefined);
          resolve({ events, until: (pred, what) => until(pred, () => `${what}; got ${events.length} events`), close: () => req.destroy() });
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  /** The serving thread of this connection (see the file comment). */
  async thread(): Promise<string> {
    const first = threadCounts((await this.request('GET', '/metrics')).text);
    const second = threadCounts((await this.request('GET', '/metrics')).text);
    const moved = [...second].filter(([thread, n]) => n !== (first.get(thread) ?? 0));
    assert.equal(moved.length, 1, `exactly one thread served the second scrape: ${JSON.stringify(moved)}`);
    assert.equal(moved[0]![1] - (first.get(moved[0]![0]) ?? 0), 1);
    return moved[0]![0];
  }
}

function threadCounts(metrics: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of metrics.matchAll(/^apiserver_frontend_thread_requests_total\{thread="(\d+)"\} (\d+)$/gm)) out.set(m[1]!, Number(m[2]));
  return out;
}

async function until(pred: () => boolean, what: () => string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what()}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('front-end threads (--frontend-threads=2, uWS)', { skip: SKIP_WITHOUT_UWS }, () => {
  let t: TestServer;
  let ca: Buffer;
  /** One open connection per serving thread, by thread label. */
  const conns = new Map<string, Conn>();
  const spare: Conn[] = [];

  before(async () => {
    process.env[TEST_HOOKS_ENV] = '1'; // inherited by the worker threads: lets the test crash one
    t = await startTestServer(['--frontend-threads=2']);
    ca = readFileSync(t.server.files.caCertPath);
    assert.equal(t.server.frontendThreads?.count, 1, 'one worker thread besides the main thread');
    // New connections until both threads hold one (the kernel spreads them; 2^-40 to miss one).
    for (let i = 0; i < 40 && conns.size < 2; i++) {
      const c = new Conn(t, ca);
      const thread = await c.thread();
      if (conns.has(thread)) spare.push(c);
      else conns.set(thread, c);
    }
  });

  after(async () => {
    for (const c of [...conns.values(), ...spare]) c.close();
    await t?.stop();
  });

  it('spreads connections over both threads, and /metrics on either shows both', async () => {
    assert.deepEqual([...conns.keys()].sort(), ['0', '1']);
    for (const c of conns.values()) {
      const text = (await c.request('GET', '/metrics')).text;
      const counts = threadCounts(text);
      assert.ok((counts.get('0') ?? 0) > 0 && (counts.get('1') ?? 0) > 0, `both threads counted in one scrape: ${JSON.stringify([...counts])}`);
      // Request counters of both threads are summed: at least the scrapes made so far over both connections.
      const scrapes = [...text.matchAll(/^apiserver_request_total\{[^}]*resource="",[^}]*\} (\d+)$/gm)].reduce((a, m) => a + Number(m[1]), 0);
      assert.ok(scrapes >= 4, `requests of both threads are in the total (${scrapes})`);
      assert.match(text, /^process_cpu_seconds_total /m, 'process metrics once, from the main thread');
    }
  });

  it('serves get, list, create, update, delete and Protobuf from the worker thread', async () => {
    const w = conns.get('1')!;
    const base = '/api/v1/namespaces/mt-crud/configmaps';
    assert.equal((await w.request('POST', '/api/v1/namespaces', { metadata: { name: 'mt-crud' } })).status, 201);
    const created = await w.request('POST', base, { metadata: { name: 'a' }, data: { k: 'v1' } });
    assert.equal(created.status, 201, created.text);
    const got = JSON.parse((await w.request('GET', `${base}/a`)).text) as { metadata: { resourceVersion: string }; data: { k: string } };
    assert.equal(got.data.k, 'v1');
    const updated = await w.request('PUT', `${base}/a`, { ...got, data: { k: 'v2' } });
    assert.equal(updated.status, 200, updated.text);
    const list = JSON.parse((await w.request('GET', base)).text) as { items: Array<{ data: { k: string } }> };
    assert.deepEqual(list.items.map((i) => i.data.k), ['v2']);
    const pb = await w.request('GET', `${base}/a`, undefined, { accept: names.protobufMediaType });
    assert.equal(pb.status, 200);
    assert.equal(pb.headers['content-type'], names.protobufMediaType);
    const decoded = decodeObject(pb.raw).object as { metadata: { name: string }; data: { k: string } };
    assert.equal(decoded.metadata.name, 'a');
    assert.equal(decoded.data.k, 'v2');
    assert.equal((await w.request('DELETE', `${base}/a`)).status, 200);
    assert.equal((await w.request('GET', `${base}/a`)).status, 404);
    // The main thread sees what the worker wrote (and deleted): one store, one owner shard.
    const fromMain = await conns.get('0')!.request('GET', `${base}/a`);
    assert.equal(fromMain.status, 404);
  });

  it('writes a plain type straight to the store host from both threads, and the other thread reads each write at once', async () => {
    const direct = t.server.router.directWriteResources();
    assert.ok(direct.includes('/configmaps'), `ConfigMaps are written directly: ${JSON.stringify(direct)}`);
    assert.ok(!direct.includes('/events'), 'Events (a TTL the shard times) go through the shard');
    const main = conns.get('0')!;
    const worker = conns.get('1')!;
    assert.equal((await main.request('POST', '/api/v1/namespaces', { metadata: { name: 'mt-direct' } })).status, 201);
    const base = '/api/v1/namespaces/mt-direct/configmaps';
    for (let i = 0; i < 20; i++) {
      const [writer, reader] = i % 2 === 0 ? [worker, main] : [main, worker];
      const created = await writer.request('POST', base, { metadata: { name: `d${i}` }, data: { k: 'a' } });
      assert.equal(created.status, 201, created.text);
      const rv = (JSON.parse(created.text) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
      // A consistent read on the other thread waits for the shard's cache to reach the store's revision.
      const got = await reader.request('GET', `${base}/d${i}`);
      assert.equal(got.status, 200, `d${i} read right after its create on the other thread`);
      assert.equal((JSON.parse(got.text) as { metadata: { resourceVersion: string } }).metadata.resourceVersion, rv);
      const updated = await writer.request('PUT', `${base}/d${i}`, { ...(JSON.parse(got.text) as object), data: { k: 'b' } });
      assert.equal(updated.status, 200, updated.text);
      assert.equal((JSON.parse((await reader.request('GET', `${base}/d${i}`)).text) as { data: { k: string } }).data.k, 'b');
      // A stale resourceVersion still conflicts (the store's compare-and-swap decides, as through the shard).
      const stale = await reader.request('PUT', `${base}/d${i}`, { ...(JSON.parse(got.text) as object), data: { k: 'c' } });
      assert.equal(stale.status, 409, stale.text);
      assert.equal((await reader.request('DELETE', `${base}/d${i}`)).status, 200);
      assert.equal((await writer.request('GET', `${base}/d${i}`)).status, 404);
    }
  });

  it('serves the same discovery and OpenAPI bytes on both threads, and a continue token from one works on the other', async () => {
    const main = conns.get('0')!;
    const worker = conns.get('1')!;
    for (const path of ['/api', '/apis', '/api/v1', '/openapi/v2', '/openapi/v3/api/v1', '/version']) {
      const [a, b] = [await main.request('GET', path), await worker.request('GET', path)];
      assert.equal(a.status, 200, `${path}: ${a.text.slice(0, 200)}`);
      assert.equal(b.status, a.status, path);
      assert.ok(a.raw.equals(b.raw), `${path}: the same bytes from both threads`);
    }
    assert.equal((await main.request('POST', '/api/v1/namespaces', { metadata: { name: 'mt-pages' } })).status, 201);
    const base = '/api/v1/namespaces/mt-pages/configmaps';
    for (const name of ['p1', 'p2', 'p3']) assert.equal((await main.request('POST', base, { metadata: { name } })).status, 201);
    const first = JSON.parse((await main.request('GET', `${base}?limit=2`)).text) as { metadata: { continue: string }; items: Array<{ metadata: { name: string } }> };
    assert.deepEqual(first.items.map((i) => i.metadata.name), ['p1', 'p2']);
    const next = await worker.request('GET', `${base}?limit=2&continue=${encodeURIComponent(first.metadata.continue)}`);
    assert.equal(next.status, 200, next.text);
    assert.deepEqual((JSON.parse(next.text) as { items: Array<{ metadata: { name: string } }> }).items.map((i) => i.metadata.name), ['p3']);
  });

  it('a watch on one thread sees the writes made through the other, both ways', async () => {
    const main = conns.get('0')!;
    const worker = conns.get('1')!;
    assert.equal((await main.request('POST', '/api/v1/namespaces', { metadata: { name: 'mt-cross' } })).status, 201);
    const base = '/api/v1/namespaces/mt-cross/configmaps';
    // Watches hold their connection: fresh connections, placed on a known thread.
    const onWorker = await connOn(t, ca, '1', spare);
    const onMain = await connOn(t, ca, '0', spare);
    const rv = JSON.parse((await main.request('GET', base)).text).metadata.resourceVersion as string;
    const wWatch = await onWorker.watch(`${base}?watch=1&resourceVersion=${rv}`);
    const mWatch = await onMain.watch(`${base}?watch=1&resourceVersion=${rv}`);
    assert.equal((await main.request('POST', base, { metadata: { name: 'from-main' } })).status, 201);
    assert.equal((await worker.request('POST', base, { metadata: { name: 'from-worker' } })).status, 201);
    for (const w of [wWatch, mWatch]) {
      await w.until(() => w.events.length >= 2, 'both events');
      assert.deepEqual(w.events.map((e) => `${e.type} ${e.object.metadata.name}`), ['ADDED from-main', 'ADDED from-worker']);
    }
    wWatch.close();
    mWatch.close();
  });

  it('a watcher held by the worker thread resumes across a shard restart without loss or duplicates', async () => {
    const main = conns.get('0')!;
    assert.equal((await main.request('POST', '/api/v1/namespaces', { metadata: { name: 'mt-restart' } })).status, 201);
    const base = '/api/v1/namespaces/mt-restart/configmaps';
    const onWorker = await connOn(t, ca, '1', spare);
    const rv = JSON.parse((await main.request('GET', base)).text).metadata.resourceVersion as string;
    const watch = await onWorker.watch(`${base}?watch=1&resourceVersion=${rv}`);
    const acked: string[] = [];
    let stop = false;
    const writer = (async () => {
      for (let i = 0; !stop; i++) {
        // Through the main thread's in-process pipeline; a write in flight during the restart may fail (503).
        const r = await main.request('POST', base, { metadata: { name: `c${i}` } });
        if (r.status === 201) acked.push(`c${i}`);
        else assert.equal(r.status, 503, r.text);
      }
    })();
    await watch.until(() => watch.events.length >= 10, 'events before the restart');
    await t.server.router.shardOf('/configmaps').restart();
    const atRestart = acked.length;
    await until(() => acked.length >= atRestart + 10, () => 'writes after the restart');
    stop = true;
    await writer;
    const final = JSON.parse((await main.request('GET', base)).text) as { items: Array<{ metadata: { name: string; resourceVersion: string } }> };
    const expected = final.items.map((i) => Number(i.metadata.resourceVersion)).sort((a, b) => a - b);
    await watch.until(() => watch.events.length >= expected.length, 'every event');
    assert.deepEqual(
      watch.events.map((e) => e.type),
      expected.map(() => 'ADDED'),
      'no ERROR (410) and nothing but the creates',
    );
    assert.deepEqual(watch.events.map((e) => Number(e.object.metadata.resourceVersion)), expected, 'each event exactly once, in order');
    for (const name of acked) assert.ok(final.items.some((i) => i.metadata.name === name), `acknowledged ${name} exists`);
    watch.close();
  });

  it('restarts a worker thread that dies, and it serves again', async () => {
    const threads = t.server.frontendThreads!;
    const before = threads.restarts[0]!;
    await threads.crashForTest(0);
    await until(() => threads.restarts[0] === before + 1 && threads.serving()[0] === true, () => 'the restart');
    const c = await connOn(t, ca, '1', spare);
    assert.equal((await c.request('GET', '/api/v1/namespaces/default')).status, 200);
    // Its writes reach the store host again, over a new channel.
    const created = await c.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'after-restart' } });
    assert.equal(created.status, 201, created.text);
  });
});

/** A connection served by `thread` (new connections until one lands there); the others are kept in `spare`. */
async function connOn(t: TestServer, ca: Buffer, thread: string, spare: Conn[], port: number = t.uwsPort!): Promise<Conn> {
  for (let i = 0; i < 60; i++) {
    const c = new Conn(t, ca, port);
    if ((await c.thread()) === thread) return c;
    spare.push(c);
  }
  throw new Error(`no connection landed on thread ${thread}`);
}

describe(`front-end threads on the secure port (node:http2, SO_REUSEPORT by ${sharedPortMethod() ?? 'neither node nor the addon'})`, { skip: sharedPortMethod() !== null ? false : `Node ${process.versions.node} cannot share a node:http2 port between threads (listen reusePort: 22.12 / 23.1) and the orch-reuseport addon is not built` }, () => {
  let t: TestServer;
  const spare: Conn[] = [];

  before(async () => {
    t = await startTestServer(['--frontend-threads=2']);
  });

  after(async () => {
    for (const c of spare) c.close();
    await t?.stop();
  });

  it('spreads secure-port connections over both threads; a watch on one sees a write through the other', async () => {
    const ca = readFileSync(t.server.files.caCertPath);
    const onWorker = await connOn(t, ca, '1', spare, t.securePort);
    const onMain = await connOn(t, ca, '0', spare, t.securePort);
    assert.equal((await onMain.request('POST', '/api/v1/namespaces', { metadata: { name: 'mt-secure' } })).status, 201);
    const base = '/api/v1/namespaces/mt-secure/configmaps';
    const rv = JSON.parse((await onMain.request('GET', base)).text).metadata.resourceVersion as string;
    const watch = await onWorker.watch(`${base}?watch=1&resourceVersion=${rv}`);
    const writer = await connOn(t, ca, '0', spare, t.securePort);
    assert.equal((await writer.request('POST', base, { metadata: { name: 'from-main' } })).status, 201);
    await watch.until(() => watch.events.length >= 1, 'the event');
    assert.deepEqual(watch.events.map((e) => `${e.type} ${e.object.metadata.name}`), ['ADDED from-main']);
    watch.close();
    for (const c of [onWorker, onMain, writer]) c.close();
  });
});

describe('uWS on fewer serving threads than the secure port (--frontend-threads=2 --uws-threads=1)', { skip: SKIP_WITHOUT_UWS }, () => {
  let t: TestServer;
  const opened: Conn[] = [];

  before(async () => {
    t = await startTestServer(['--frontend-threads=2', '--uws-threads=1']);
  });

  after(async () => {
    for (const c of opened) c.close();
    await t?.stop();
  });

  it('serves every uWS connection on the main thread, and the secure port on both where it can be shared', async () => {
    const ca = readFileSync(t.server.files.caCertPath);
    // Were the worker on the uWS port too, the kernel would put one of 20 connections there but for a 2^-20 chance.
    const threads = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const c = new Conn(t, ca);
      opened.push(c);
      threads.add(await c.thread());
    }
    assert.deepEqual([...threads], ['0'], 'the uWS port is the main thread’s alone');
    if (sharedPortMethod() === null) {
      assert.equal(t.server.frontendThreads, null, 'no worker: it would have no port to serve');
      return;
    }
    assert.equal(t.server.frontendThreads?.count, 1, 'one worker, on the secure port');
    const onWorker = await connOn(t, ca, '1', opened, t.securePort);
    opened.push(onWorker);
    const made = await onWorker.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'via-worker' } });
    assert.equal(made.status, 201, made.text);
    const read = await opened[0]!.request('GET', '/api/v1/namespaces/default/configmaps/via-worker');
    assert.equal(read.status, 200, 'a write through the worker reads back over uWS on the main thread');
  });
});
