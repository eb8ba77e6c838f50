/**
 * Issue 9, finding 5: watchers on the uWS port that never read held a copy
 * of every event each, with no bound across them. Now they share the event
 * bytes, and one budget for the whole process (--watch-max-total-buffered-bytes)
 * drops the watcher holding the most first; watchers that read get every
 * event in order, stalled ones that were not dropped get theirs intact once
 * they read, and the server answers throughout.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import http2 from 'node:http2';
import tls from 'node:tls';
import { startTestServer, type TestServer } from '../support/test-server.ts';

const MiB = 1024 * 1024;
const BUDGET = 12 * MiB;
const BLOB = 'x'.repeat(512 * 1024);
const NS = '/api/v1/namespaces/default/configmaps';
/** Stalled watchers besides the worst one. */
const STALLED = 32;

/** A watch that reads the response head and then stops reading. */
interface StalledWatcher {
  /** Starts reading again. */
  resume(): void;
  /** Whether the server ended the watch (seen only once reading). */
  readonly closed: boolean;
  /** Names of the objects of the complete events received so far. */
  names(): string[];
  destroy(): void;
}

/** Over a raw HTTP/1.1 connection (to either port). */
async function stalledWatcher(port: number, ca: Buffer, token: string, path: string): Promise<StalledWatcher> {
  const socket = tls.connect({ host: '127.0.0.1', port, ca, servername: 'localhost', ALPNProtocols: ['http/1.1'] });
  socket.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    socket.once('secureConnect', () => resolve());
    socket.once('error', reject);
  });
  socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\nAccept: application/json\r\n\r\n`);
  const chunks: Buffer[] = [];
  // The head (and the space that establishes a JSON watch) comes at once: the watch is registered.
  await new Promise<void>((resolve) => {
    const onData = (c: Buffer): void => {
      chunks.push(c);
      if (Buffer.concat(chunks).includes('\r\n\r\n')) {
        socket.off('data', onData);
        socket.pause();
        resolve();
      }
    };
    socket.on('data', onData);
  });
  let closed = false;
  socket.on('close', () => (closed = true));
  return {
    resume: () => {
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.resume();
    },
    get closed() {
      return closed;
    },
    names: () => {
      const raw = Buffer.concat(chunks).toString('latin1');
      return eventNames(dechunk(raw.slice(raw.indexOf('\r\n\r\n') + 4)));
    },
    destroy: () => socket.destroy(),
  };
}

/** Over HTTP/2 (node's port): the paused stream stops granting flow-control window. */
async function stalledH2Watcher(port: number, ca: Buffer, token: string, path: string): Promise<StalledWatcher> {
  const session = http2.connect(`https://127.0.0.1:${port}`, { ca, servername: 'localhost' });
  session.on('error', () => undefined);
  const stream = session.request({ ':path': path, authorization: `Bearer ${token}`, accept: 'application/json' });
  stream.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    stream.once('response', () => resolve());
    stream.once('error', reject);
  });
  stream.pause();
  const chunks: Buffer[] = [];
  let closed = false;
  stream.on('close', () => (closed = true));
  return {
    resume: () => {
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.resume();
    },
    get closed() {
      return closed;
    },
    names: () => eventNames(Buffer.concat(chunks).toString('utf8')),
    destroy: () => session.destroy(),
  };
}

/** A chunked HTTP/1.1 body without its framing (as far as it is complete). */
function dechunk(chunkedBody: string): string {
  let text = '';
  for (let at = 0; at < chunkedBody.length; ) {
    const eol = chunkedBody.indexOf('\r\n', at);
    if (eol < 0) break;
    const size = parseInt(chunkedBody.slice(at, eol), 16);
    if (!(size > 0) || eol + 2 + size > chunkedBody.length) break;
    text += chunkedBody.slice(eol + 2, eol + 2 + size);
    at = eol + 2 + size + 2;
  }
  return Buffer.from(text, 'latin1').toString('utf8');
}

/** Names of the objects in a JSON watch stream, in order. */
function eventNames(text: string): string[] {
  // Complete lines only: a dropped watcher's stream may stop mid-event.
  const lines = text.split('\n').slice(0, -1);
  return lines.filter((l) => l.trim() !== '').map((l) => (JSON.parse(l) as { object: { metadata: { name: string } } }).object.metadata.name);
}

describe('watch output budget across all watchers (uWS)', () => {
  let t: TestServer;
  before(async () => {
    // The per-watcher bound stays at its default (64 MiB): only the global one can act here.
    t = await startTestServer([`--watch-max-total-buffered-bytes=${BUDGET}`]);
  });
  after(async () => {
    await t?.stop();
  });

  const metric = async (name: string): Promise<number> => {
    const text = (await t.request('GET', '/metrics')).body;
    const m = new RegExp(`^${name} ([0-9.e+]+)$`, 'm').exec(text);
    return m === null ? NaN : Number(m[1]);
  };

  it('holds the total under the bound, drops the worst watcher first, and keeps the others whole', async () => {
    const ca = await fs.readFile(t.server.files.caCertPath);
    const token = t.server.files.adminToken;
    const uwsPort = t.uwsPort!;
    const list = await t.request('GET', NS);
    const rv = list.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
    const watchPath = (from: string): string => `${NS}?watch=1&resourceVersion=${from}&timeoutSeconds=600`;

    // RSS is watched from when the many stalled watchers open.
    let rssBefore = Infinity;
    let rssMax = 0;
    let heldMax = 0;
    let queuedMax = 0;
    const sample = async (): Promise<void> => {
      rssMax = Math.max(rssMax, process.memoryUsage().rss);
      const held = await metric('apiserver_watch_buffered_bytes');
      heldMax = Math.max(heldMax, held);
      queuedMax = Math.max(queuedMax, await metric('apiserver_watch_queued_bytes'));
      assert.ok(!(held > BUDGET), `watch output held ${held} bytes, over the ${BUDGET} bound`);
    };
    const create = async (name: string): Promise<string> => {
      const r = await t.request('POST', NS, { metadata: { name }, data: { blob: BLOB } });
      assert.equal(r.status, 201, r.body.slice(0, 200));
      return r.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
    };

    // Readers on both front ends, and the worst watcher: it stops reading first.
    const uwsReader = await t.watch(watchPath(rv), { uws: true, as: 'token' });
    const nodeReader = await t.watch(watchPath(rv));
    const worst = await stalledWatcher(uwsPort, ca, token, watchPath(rv));

    const names: string[] = [];
    let last = rv;
    for (let i = 0; i < 12; i++) {
      names.push(`early-${i}`);
      last = await create(`early-${i}`);
      await sample();
    }
    const heldByWorst = await metric('apiserver_watch_buffered_bytes');
    assert.ok(heldByWorst > 2 * MiB, `the stalled watcher queued its backlog (${heldByWorst} bytes)`);

    // Many more stalled watchers, from here on: they share every later event.
    const stalled: StalledWatcher[] = [];
    rssBefore = rssMax = process.memoryUsage().rss;
    for (let i = 0; i < STALLED; i++) stalled.push(await stalledWatcher(uwsPort, ca, token, watchPath(last)));
    const later: string[] = [];
    for (let i = 0; i < 24 && (await metric('apiserver_watch_budget_dropped_watchers_total')) === 0; i++) {
      later.push(`late-${i}`);
      await create(`late-${i}`);
      await sample();
      assert.equal((await t.request('GET', '/readyz', undefined, { uws: true, as: 'token' })).status, 200, 'the server answers meanwhile');
    }
    names.push(...later);
    assert.equal(await metric('apiserver_watch_budget_dropped_watchers_total'), 1, 'one drop was enough');

    // Every event, in order, for the readers.
    await uwsReader.until(() => uwsReader.events.length >= names.length, 'every event on uWS', 30_000);
    await nodeReader.until(() => nodeReader.events.length >= names.length, 'every event on node', 30_000);
    assert.deepEqual(uwsReader.events.map((e) => e.object.metadata.name), names);
    assert.deepEqual(nodeReader.events.map((e) => e.object.metadata.name), names);

    // The one dropped was the worst: it ends, short of its events.
    worst.resume();
    for (const s of stalled) s.resume();
    const deadline = Date.now() + 30_000;
    while (!worst.closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    assert.ok(worst.closed, 'the watcher holding the most was closed');
    assert.ok(worst.names().length < names.length, 'it got only part of the stream');
    // The others were kept, and their queued output arrives whole and in order.
    for (const s of stalled) {
      while (s.names().length < later.length && !s.closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
      assert.deepEqual(s.names(), later, 'a kept stalled watcher gets every later event, intact');
      assert.equal(s.closed, false, 'and stays open');
      s.destroy();
    }
    uwsReader.close();
    nodeReader.close();

    // What the watchers held is let go.
    const until = Date.now() + 10_000;
    while ((await metric('apiserver_watch_buffered_bytes')) > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
    assert.equal(await metric('apiserver_watch_buffered_bytes'), 0);
    assert.equal(await metric('apiserver_watch_queued_bytes'), 0);
    const grown = rssMax - rssBefore;
    console.log(
      `# watch output held at most ${(heldMax / MiB).toFixed(1)} of ${BUDGET / MiB} MiB (per-watcher sum up to ${(queuedMax / MiB).toFixed(0)} MiB); ` +
        `RSS +${(grown / MiB).toFixed(0)} MiB at most while ${STALLED + 1} watchers were stalled`,
    );
    // The rest of the growth is the events themselves: stored, cached, encoded, and parsed by the readers here.
    // Each stalled watcher holding its own copy of what it queued (queuedMax, ~170 MiB) would pass this:
    // before the fix RSS grew by 275 MiB here.
    assert.ok(grown < 128 * MiB, `RSS grew by ${(grown / MiB).toFixed(0)} MiB while ${STALLED + 1} watchers were stalled`);
  });

  it('counts node\'s HTTP/1.1 and HTTP/2 watchers in the same budget as uWS ones', async () => {
    const ca = await fs.readFile(t.server.files.caCertPath);
    const token = t.server.files.adminToken;
    const dropsBefore = await metric('apiserver_watch_budget_dropped_watchers_total');
    const rv = (await t.request('GET', NS)).json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
    const watchPath = (from: string): string => `${NS}?watch=1&resourceVersion=${from}&timeoutSeconds=600`;
    const create = async (name: string): Promise<string> => {
      const r = await t.request('POST', NS, { metadata: { name }, data: { blob: BLOB } });
      assert.equal(r.status, 201, r.body.slice(0, 200));
      return r.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
    };

    // The worst is on node's HTTP/1.1; it stalls first.
    const worst = await stalledWatcher(t.securePort, ca, token, watchPath(rv));
    let last = rv;
    for (let i = 0; i < 14; i++) last = await create(`node-early-${i}`);
    const heldByWorst = await metric('apiserver_watch_buffered_bytes');
    assert.ok(heldByWorst > 2 * MiB, `node's stalled watcher is counted (${heldByWorst} bytes)`);

    const kept = [
      await stalledH2Watcher(t.securePort, ca, token, watchPath(last)),
      await stalledWatcher(t.securePort, ca, token, watchPath(last)),
      await stalledWatcher(t.uwsPort!, ca, token, watchPath(last)),
    ];
    const later: string[] = [];
    for (let i = 0; i < 30 && (await metric('apiserver_watch_budget_dropped_watchers_total')) === dropsBefore; i++) {
      later.push(`node-late-${i}`);
      await create(`node-late-${i}`);
      const held = await metric('apiserver_watch_buffered_bytes');
      assert.ok(held <= BUDGET, `watch output held ${held} bytes, over the ${BUDGET} bound`);
    }
    assert.equal(await metric('apiserver_watch_budget_dropped_watchers_total'), dropsBefore + 1, 'one drop');

    worst.resume();
    for (const k of kept) k.resume();
    const deadline = Date.now() + 30_000;
    while (!worst.closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    assert.ok(worst.closed, 'the node watcher holding the most was closed');
    for (const k of kept) {
      while (k.names().length < later.length && !k.closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
      assert.deepEqual(k.names(), later, 'a kept stalled watcher gets every later event, intact');
      assert.equal(k.closed, false);
      k.destroy();
    }
  });
});
