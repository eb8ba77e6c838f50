/**
 * The checks every front end must pass over every protocol it speaks: the
 * same handler, the same expectations, whichever stack parsed the request.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { it } from 'node:test';
import type { Target } from './clients.ts';
import { call } from './clients.ts';
import type { Recorder } from './test-handler.ts';

const sha256 = (data: Uint8Array): string => createHash('sha256').update(data).digest('hex');

interface Echo {
  method: string;
  path: string;
  rawQuery: string;
  query: [string, string][];
  multi: string[];
  joined: string | null;
  auth: string[];
  host: string | null;
  names: string[];
  protocol: string;
  frontend: string;
  remoteAddress: string;
  peerCertificates: string[] | null;
  bodyLength: number;
  bodySha256: string;
}

interface StatusJson {
  kind: string;
  code: number;
  reason: string;
  message: string;
}

let streamIds = 0;

export function sharedFrontendTests(target: () => Target, recorder: () => Recorder): void {
  it('passes method, path, query, protocol and peer address for GET/POST/PUT/DELETE', async () => {
    const t = target();
    for (const method of ['GET', 'POST', 'PUT', 'DELETE']) {
      const body = method === 'POST' || method === 'PUT' ? Buffer.from(`{"verb":"${method}"}`) : undefined;
      const reply = await call(t, { method, path: '/echo?x=1&y=a%20b&y=c&empty=', ...(body ? { body } : {}) });
      assert.equal(reply.status, 200, method);
      assert.match(String(reply.headers['content-type']), /application\/json/);
      const echo = reply.json<Echo>();
      assert.equal(echo.method, method);
      assert.equal(echo.path, '/echo');
      assert.equal(echo.rawQuery, 'x=1&y=a%20b&y=c&empty=');
      assert.deepEqual(echo.query, [
        ['x', '1'],
        ['y', 'a b'],
        ['y', 'c'],
        ['empty', ''],
      ]);
      assert.equal(echo.protocol, t.protocol);
      assert.equal(echo.frontend, t.frontend);
      assert.equal(echo.remoteAddress, '127.0.0.1');
      assert.equal(echo.bodyLength, body?.byteLength ?? 0);
    }
  });

  it('keeps every value of a repeated header and looks names up case-insensitively', async () => {
    const t = target();
    // HTTP/2 clients refuse to send Authorization twice; over HTTP/1.1 it
    // must arrive twice (node's own req.headers would drop the second).
    const twice = t.protocol === 'http/1.1';
    const reply = await call(t, {
      path: '/echo',
      headers: {
        'X-Multi': ['first', 'second'],
        authorization: twice ? ['Bearer one', 'Bearer two'] : 'Bearer one',
      },
    });
    const echo = reply.json<Echo>();
    assert.deepEqual(echo.multi, ['first', 'second']);
    assert.equal(echo.joined, 'first, second');
    assert.deepEqual(echo.auth, twice ? ['Bearer one', 'Bearer two'] : ['Bearer one']);
    assert.match(echo.host ?? '', /^127\.0\.0\.1:\d+$/);
    assert.ok(echo.names.includes('x-multi'));
    assert.ok(echo.names.every((n) => n === n.toLowerCase() && !n.startsWith(':')));
    const replyHeader = reply.headers['x-reply'];
    assert.equal(Array.isArray(replyHeader) ? replyHeader.join(', ') : replyHeader, 'one, two');
  });

  it('reads request bodies whole, small and large, with and without Content-Length', async () => {
    const t = target();
    for (const size of [1, 1000, 5 * 1024 * 1024 + 17]) {
      const body = randomBytes(size);
      for (const streamBody of [false, true]) {
        const echo = (await call(t, { method: 'POST', path: '/echo', body, streamBody })).json<Echo>();
        assert.equal(echo.bodyLength, size, `size ${size} streamed ${streamBody}`);
        assert.equal(echo.bodySha256, sha256(body));
      }
    }
    const big = randomBytes(3 * 1024 * 1024);
    const raw = await call(t, { method: 'PUT', path: '/raw', body: big });
    assert.equal(raw.status, 200);
    assert.ok(raw.body.equals(big), 'the echoed bytes are the bytes sent');
  });

  it('holds an upload until a handler that awaited other work reads it', async () => {
    const t = target();
    for (const streamBody of [false, true]) {
      const body = randomBytes(2 * 1024 * 1024 + 3);
      const reply = await call(t, { method: 'POST', path: '/late-raw?delay=80', body, streamBody });
      assert.equal(reply.status, 200);
      assert.ok(reply.body.equals(body), `streamed ${streamBody}`);
    }
  });

  it('answers 413 past the body limit, and the connection stays usable', async () => {
    const t = target();
    for (const streamBody of [false, true]) {
      const reply = await call(t, { method: 'POST', path: '/echo?limit=1024', body: randomBytes(4096), streamBody });
      assert.equal(reply.status, 413, `streamed ${streamBody}`);
      const status = reply.json<StatusJson>();
      assert.equal(status.kind, 'Status');
      assert.equal(status.code, 413);
      assert.equal(status.reason, 'RequestEntityTooLarge');
      assert.match(status.message, /limit is 1024/);
      assert.equal((await call(t, { path: '/echo' })).status, 200);
    }
    // At the limit exactly is fine.
    const atLimit = await call(t, { method: 'POST', path: '/echo?limit=1024', body: randomBytes(1024) });
    assert.equal(atLimit.status, 200);
  });

  it('answers 413 to a large upload without reading it all', async () => {
    const t = target();
    const reply = await call(t, { method: 'POST', path: '/echo?limit=65536', body: randomBytes(8 * 1024 * 1024) });
    assert.equal(reply.status, 413);
    assert.equal(reply.json<StatusJson>().reason, 'RequestEntityTooLarge');
    assert.equal((await call(t, { path: '/echo' })).status, 200);
  });

  it('sends bodyless answers (HEAD, 204, 304) without breaking the connection', async () => {
    const t = target();
    const head = await call(t, { method: 'HEAD', path: '/status' });
    assert.equal(head.status, 200);
    assert.equal(head.body.byteLength, 0);
    assert.equal(head.headers['content-length'], '11');
    for (const code of [204, 304]) {
      const reply = await call(t, { path: `/status?code=${code}` });
      assert.equal(reply.status, code);
      assert.equal(reply.body.byteLength, 0);
    }
    const last = await call(t, { path: '/status' });
    assert.equal(last.body.toString(), 'status body');
    // /status answers without awaiting anything: still keep-alive.
    assert.notEqual(last.headers.connection, 'close');
  });

  it('refuses a response header carrying CR/LF instead of sending it', async () => {
    const before = recorder().errors.length;
    const reply = await call(target(), { path: '/bad-header' });
    assert.equal(reply.status, 500);
    assert.equal(reply.headers['x-injected'], undefined);
    assert.equal(reply.headers['x-split'], undefined);
    // The error escaped the handler, so the front end reported it.
    assert.equal(recorder().errors.length, before + 1);
    assert.ok(recorder().errors.at(-1) instanceof TypeError);
  });

  it('streams a long response to a slow reader with bounded buffering', async () => {
    const t = target();
    const id = `slow-${t.name}-${streamIds++}`;
    const total = 48 * 1024 * 1024;
    const res = await t.open({ path: `/stream?id=${id}&total=${total}&chunk=65536` });
    assert.equal(res.status, 200);
    const rec = recorder().record(id);
    let received = 0;
    let maxLag = 0;
    let sinceNap = 0;
    let intact = true;
    const pattern = Buffer.alloc(256 * 1024, 0x61);
    await new Promise<void>((resolve, reject) => {
      res.stream.on('data', (chunk: Buffer) => {
        // Every byte the handler wrote is 'a': a dropped or doubled piece shows.
        if (chunk.byteLength > pattern.byteLength || !chunk.equals(pattern.subarray(0, chunk.byteLength))) intact = false;
        received += chunk.byteLength;
        sinceNap += chunk.byteLength;
        maxLag = Math.max(maxLag, rec.written - received);
        if (sinceNap >= 512 * 1024) {
          // A slow reader: stop now and then, so the server outruns it.
          sinceNap = 0;
          res.stream.pause();
          setTimeout(() => res.stream.resume(), 3);
        }
      });
      res.stream.on('end', resolve);
      res.stream.on('error', reject);
    });
    assert.equal(received, total);
    assert.ok(intact, 'the bytes arrived as written');
    assert.ok(rec.finished, 'the handler ended the stream');
    assert.ok(rec.writesRefused > 0, 'write() returned false at least once');
    assert.equal(rec.drains, rec.writesRefused, 'every refusal was followed by onDrain');
    assert.ok(rec.maxBuffered <= 2 * 1024 * 1024, `bufferedBytes stayed small (max ${rec.maxBuffered})`);
    // What the handler got ahead of the reader is bounded by socket buffers,
    // not by the length of the stream.
    assert.ok(maxLag <= 16 * 1024 * 1024, `the writer stayed within ${maxLag} bytes of the reader`);
  });

  it('aborts the signal and calls onClose when the client leaves mid-stream', async () => {
    const t = target();
    const id = `hang-${t.name}-${streamIds++}`;
    const res = await t.open({ path: `/hang?id=${id}` });
    await new Promise<void>((resolve) => res.stream.once('data', () => resolve()));
    const gone = recorder().whenGone(id);
    res.cancel();
    await gone;
    const rec = recorder().record(id);
    assert.equal(rec.signalAborted, true);
    assert.equal(rec.closeCalls, 1);
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(rec.writeAfterClose, false, 'write() after the client left returns false');
    assert.equal(rec.closedAfterClose, true);
    assert.equal(rec.closeCalls, 1, 'onClose ran once');

    // The same while the handler is blocked on backpressure.
    const id2 = `abort-${t.name}-${streamIds++}`;
    const res2 = await t.open({ path: `/stream?id=${id2}&total=${1 << 30}&chunk=65536` });
    await new Promise<void>((resolve) => res2.stream.once('data', () => resolve()));
    res2.stream.pause();
    const gone2 = recorder().whenGone(id2);
    res2.cancel();
    await gone2;
    assert.equal(recorder().record(id2).finished, false);
  });

  it('serves many concurrent requests', async () => {
    const t = target();
    const bodies = Array.from({ length: 300 }, (_, i) => randomBytes(100 + i * 37));
    const replies = await Promise.all(bodies.map((body, i) => call(t, { method: 'POST', path: `/echo?n=${i}`, body })));
    replies.forEach((reply, i) => {
      assert.equal(reply.status, 200);
      const echo = reply.json<Echo>();
      assert.equal(echo.rawQuery, `n=${i}`);
      assert.equal(echo.bodySha256, sha256(bodies[i]!));
    });
  });
}
