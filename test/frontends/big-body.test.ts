/**
 * Large bodies in parts (ApiResponse.endParts) on every front end: uWS over
 * TLS, node over HTTP/1.1 and HTTP/2. The bytes arrive exactly, with
 * Content-Length; a client that stops reading holds the server to about a
 * socket's worth of buffering, not the body; a client that leaves mid-body
 * costs nothing and breaks nothing.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Frontend } from '../../src/frontends/frontend.ts';
import { startTestNode, startTestUws } from './support/servers.ts';
import { createUwsLoader } from '../../src/frontends/uws-loader.ts';
import type { TestPki } from './support/certs.ts';
import { makeTestPki } from './support/certs.ts';
import type { ChildServer } from './support/child-server.ts';
import { startChildServer } from './support/child-server.ts';
import type { OpenResponse, Target } from './support/clients.ts';
import { call, h1Target, h2Target } from './support/clients.ts';
import { BIG_BYTES, makePartsHandler, partsOf, PartsRecorder, sha256 } from './support/parts-handler.ts';

const MiB = 1024 * 1024;

let unavailable = '';
const uws = createUwsLoader({ log: (message) => (unavailable = message) })();

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

let ids = 0;
const nextId = (t: Target): string => `${t.name}-${ids++}`;

function expected(kind: string): { length: number; sha: string } {
  const parts = partsOf(kind);
  return { length: parts.reduce((n, p) => n + p.byteLength, 0), sha: sha256(parts) };
}

/** Reads a response to its end, hashing as it goes (a 48 MiB body is not kept). */
async function drain(res: OpenResponse): Promise<{ length: number; sha: string }> {
  const hash = createHash('sha256');
  let length = 0;
  for await (const chunk of res.stream) {
    hash.update(chunk as Buffer);
    length += (chunk as Buffer).byteLength;
  }
  return { length, sha: hash.digest('hex') };
}

async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

interface Env {
  /** The shared client of the front end under test. */
  target(): Target;
  recorder(): PartsRecorder;
  /** A client on a connection of its own. */
  fresh(): Target;
  /** The same front end in a process of its own, and a client for it. */
  isolated(): Promise<{ server: ChildServer; target: Target }>;
}

function partsTests(env: Env): void {
  const target = (): Target => env.target();
  const recorder = (): PartsRecorder => env.recorder();
  const fresh = (): Target => env.fresh();

  it('sends the parts exactly, with Content-Length and the extra headers', async () => {
    const t = target();
    for (const kind of ['small', 'big', 'many']) {
      const res = await t.open({ path: `/parts?kind=${kind}&id=${nextId(t)}` });
      const want = expected(kind);
      assert.equal(res.status, 200, kind);
      assert.equal(res.headers['content-length'], String(want.length), kind);
      assert.equal(res.headers['transfer-encoding'], undefined, kind);
      const warning = res.headers['warning'] as string | string[] | undefined;
      assert.equal(Array.isArray(warning) ? warning.join(', ') : warning, '299 - "first", 299 - "second"', kind);
      assert.deepEqual(await drain(res), want, kind);
    }
  });

  it('streams to a client that stops reading without buffering the body', async () => {
    // The server runs in a process of its own: here, memory freed by the
    // tests before would be reused without showing in RSS.
    const { server, target: t } = await env.isolated();
    try {
      const id = 'slow';
      const want = expected('big');
      assert.ok(want.length > BIG_BYTES);
      const base = (await server.measure(undefined, true)).rss;
      const res = await t.open({ path: `/parts?kind=big&id=${id}` });
      // Not reading: node's client stops taking bytes off the socket once its
      // own small buffer is full, and the server meets backpressure.
      let maxGrowth = 0;
      let last = await server.measure(id);
      for (let i = 0; i < 15; i++) {
        await delay(100);
        last = await server.measure(id);
        maxGrowth = Math.max(maxGrowth, last.rss - base);
      }
      assert.ok(maxGrowth < 24 * MiB, `the server's RSS grew by ${(maxGrowth / MiB).toFixed(1)} MiB while the client did not read`);
      // node's HTTP/2 bufferSize counts a write in flight twice: allow a few MiB over.
      assert.ok(last.buffered >= 16 * MiB && last.buffered <= want.length + 4 * MiB, `bufferedBytes reports the unsent rest (${last.buffered})`);
      assert.equal(last.closeCalls, 0, 'the exchange stays open until the body is out');
      assert.deepEqual(await drain(res), want);
      for (let i = 0; i < 50 && last.closeCalls === 0; i++) {
        await delay(20);
        last = await server.measure(id);
      }
      assert.equal(last.closeCalls, 1, 'onClose ran once the body was out');
      assert.equal(last.buffered, 0);
      assert.equal(last.errors, 0);
    } finally {
      t.close();
      await server.stop();
    }
  });

  it('survives a client that leaves mid-body, and serves the next connection', async () => {
    const t = fresh();
    const id = nextId(t);
    try {
      const res = await t.open({ path: `/parts?kind=big&id=${id}` });
      await new Promise<void>((resolve) => res.stream.once('data', () => resolve()));
      res.stream.pause();
      await delay(100);
      assert.ok(recorder().get(id).res.bufferedBytes > 0, 'the body was still going out');
      res.cancel();
      await within(5000, 'onClose after the client left', recorder().whenClosed(id));
    } finally {
      t.close();
    }
    const rec = recorder().get(id);
    assert.equal(rec.signalAborted, true, 'the request signal saw the client leave');
    assert.equal(rec.res.bufferedBytes, 0, 'the parts were let go');
    assert.equal(rec.closeCalls, 1);
    assert.deepEqual(recorder().errors, []);

    const next = fresh();
    try {
      const res = await next.open({ path: `/parts?kind=big&id=${nextId(next)}` });
      assert.equal(res.status, 200);
      assert.deepEqual(await drain(res), expected('big'));
    } finally {
      next.close();
    }
  });

  it('sends parts backed by a SharedArrayBuffer', async () => {
    const t = target();
    for (const kind of ['shared', 'shared-small']) {
      const parts = partsOf(kind);
      assert.ok(parts.every((p) => p.buffer instanceof SharedArrayBuffer));
      const reply = await call(t, { path: `/parts?kind=${kind}&id=${nextId(t)}` });
      assert.equal(reply.status, 200);
      assert.equal(reply.headers['content-length'], String(expected(kind).length));
      assert.ok(reply.body.equals(Buffer.concat(parts)), kind);
    }
  });

  it('answers an empty parts array, or only empty parts, with Content-Length 0', async () => {
    const t = target();
    for (const kind of ['empty', 'empty-parts']) {
      const reply = await call(t, { path: `/parts?kind=${kind}&id=${nextId(t)}` });
      assert.equal(reply.status, 200, kind);
      assert.equal(reply.headers['content-length'], '0', kind);
      assert.equal(reply.body.byteLength, 0, kind);
    }
  });

  it('sends no body for HEAD (with the length) or 204, and the connection goes on', async () => {
    const t = target();
    const head = await call(t, { method: 'HEAD', path: `/parts?kind=big&id=${nextId(t)}` });
    assert.equal(head.status, 200);
    assert.equal(head.headers['content-length'], String(expected('big').length));
    assert.equal(head.body.byteLength, 0);
    const none = await call(t, { path: `/parts?kind=big&status=204&id=${nextId(t)}` });
    assert.equal(none.status, 204);
    assert.equal(none.body.byteLength, 0);
    const after = await call(t, { path: `/parts?kind=small&id=${nextId(t)}` });
    assert.equal(after.body.toString(), '{"a":1}');
  });

  it('ends a response that already wrote, streaming the parts to a slow reader', async () => {
    const t = target();
    const res = await t.open({ path: `/parts?kind=medium&write=1&id=${nextId(t)}` });
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-length'], undefined, 'the head went out before the length was known');
    await delay(300);
    const got = await drain(res);
    const parts = [new TextEncoder().encode('prefix:'), ...partsOf('medium')];
    assert.deepEqual(got, { length: parts.reduce((n, p) => n + p.byteLength, 0), sha: sha256(parts) });
  });
}

/**
 * uWS only: an upload nobody reads is paused after a little, and a paused
 * uWS socket gets no writable events either, so a streamed answer would
 * stall unless ending the response lets the rest of the upload be read away.
 */
function unreadUploadTest(fresh: () => Target): void {
  it('streams a large answer while the request body goes unread', async () => {
    const t = fresh();
    try {
      // 1 MiB: paused after the first 64 KiB, and too much left to drain
      // (the answer asks the client to close). Larger uploads still being
      // received while the answer is backed up make this uWS drop the
      // connection, old code or new.
      const res = await t.open({ method: 'POST', path: `/parts?kind=medium&id=${nextId(t)}`, body: new Uint8Array(MiB) });
      assert.equal(res.status, 200);
      assert.equal(res.headers['connection'], 'close');
      assert.deepEqual(await within(20_000, 'the whole answer', drain(res)), expected('medium'));
    } finally {
      t.close();
    }
  });
}

/** HTTP/1.1 only: Connection: close on a streamed body. */
function closeTest(fresh: () => Target): void {
  it('sends Connection: close on a streamed body when asked, with every byte', async () => {
    const t = fresh();
    try {
      const res = await t.open({ path: `/parts?kind=medium&close=1&id=${nextId(t)}` });
      assert.equal(res.headers['connection'], 'close');
      assert.deepEqual(await drain(res), expected('medium'));
    } finally {
      t.close();
    }
  });
}

describe('bodies in parts (endParts)', () => {
  let pki: TestPki;
  before(async () => {
    pki = await makeTestPki();
  });
  after(() => pki.cleanup());

  describe('uWS over TLS', { skip: uws === null ? unavailable : false }, () => {
    let frontend: Frontend;
    let recorder: PartsRecorder;
    let h1: Target;
    const fresh = (): Target => h1Target('uws-fresh', 'uws', frontend.port, { ca: pki.serverCaPem });
    before(async () => {
      recorder = new PartsRecorder();
      frontend = await startTestUws(pki, makePartsHandler(recorder), recorder.onError, uws!);
      h1 = h1Target('uws-h1', 'uws', frontend.port, { ca: pki.serverCaPem });
    });
    after(async () => {
      h1.close();
      await frontend.close();
    });
    partsTests({
      target: () => h1,
      recorder: () => recorder,
      fresh,
      isolated: async () => {
        const server = await startChildServer('uws', pki.serverCertFile, pki.serverKeyFile);
        return { server, target: h1Target('uws-isolated', 'uws', server.port, { ca: pki.serverCaPem }) };
      },
    });
    closeTest(fresh);
    unreadUploadTest(fresh);
  });

  for (const engine of ['nghttp2', 'js'] as const) describe(`node (${engine} HTTP/2)`, () => {
    let frontend: Frontend;
    let recorder: PartsRecorder;
    let h1: Target;
    let h2: Target;
    before(async () => {
      recorder = new PartsRecorder();
      frontend = await startTestNode(pki, makePartsHandler(recorder), recorder.onError, { http2Engine: engine });
      h1 = h1Target('node-h1', 'node', frontend.port, { ca: pki.serverCaPem });
      h2 = h2Target('node-h2', frontend.port, { ca: pki.serverCaPem });
    });
    after(async () => {
      h1.close();
      h2.close();
      await frontend.close();
    });
    describe('over HTTP/1.1', () => {
      const fresh = (): Target => h1Target('node-h1-fresh', 'node', frontend.port, { ca: pki.serverCaPem });
      partsTests({
        target: () => h1,
        recorder: () => recorder,
        fresh,
        isolated: async () => {
          const server = await startChildServer('node', pki.serverCertFile, pki.serverKeyFile);
          return { server, target: h1Target('node-h1-isolated', 'node', server.port, { ca: pki.serverCaPem }) };
        },
      });
      closeTest(fresh);
    });
    describe('over HTTP/2', () => {
      partsTests({
        target: () => h2,
        recorder: () => recorder,
        fresh: () => h2Target('node-h2-fresh', frontend.port, { ca: pki.serverCaPem }),
        isolated: async () => {
          const server = await startChildServer(engine === 'js' ? 'node-js' : 'node', pki.serverCertFile, pki.serverKeyFile);
          return { server, target: h2Target('node-h2-isolated', server.port, { ca: pki.serverCaPem }) };
        },
      });
    });
  });
});
