/**
 * An HTTP/2 request body read to its declared length leaves the stream's readable side open until the
 * response is written (holdReadableSide): node then never destroys the stream under a response write
 * still completing (which fails that write's callbacks with ERR_STREAM_DESTROYED), and every stream
 * still closes once both sides are done.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { holdReadableSide } from '../../src/frontends/node-h2-exchange.ts';
import { readStreamBody } from '../../src/frontends/stream-body.ts';
import type { TestPki } from './support/certs.ts';
import { makeTestPki } from './support/certs.ts';

interface Outcome {
  writeErrors: Array<Error | null | undefined>;
  closed: number;
  bodies: number[];
}

async function serveAndPost(pki: TestPki, hold: boolean, sendEndLater: boolean): Promise<Outcome> {
  const outcome: Outcome = { writeErrors: [], closed: 0, bodies: [] };
  const server = http2.createSecureServer({ cert: pki.serverCertPem, key: pki.serverKeyPem });
  server.on('stream', (stream, headers) => {
    stream.on('close', () => outcome.closed++);
    stream.on('error', () => {});
    const progress = { received: 0, complete: false };
    const declared = Number(headers['content-length']);
    readStreamBody(stream, 1 << 20, declared, progress, hold ? () => holdReadableSide(stream) : undefined).then(
      (body) => {
        outcome.bodies.push(body.byteLength);
        // Answer a turn later, as the API server does after its shard's reply.
        setImmediate(() => {
          stream.respond({ ':status': 201 });
          stream.end(Buffer.from('{"done":true}'), (err?: Error | null) => outcome.writeErrors.push(err));
        });
      },
      () => stream.close(http2.constants.NGHTTP2_CANCEL),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const session = http2.connect(`https://127.0.0.1:${port}`, { ca: pki.serverCaPem });
  try {
    const body = Buffer.from(JSON.stringify({ v: 'x'.repeat(1000) }));
    for (let i = 0; i < 10; i++) {
      const req = session.request({ ':method': 'POST', ':path': '/', 'content-length': body.byteLength });
      if (sendEndLater) {
        req.write(body);
        const [head] = (await once(req, 'response')) as [http2.IncomingHttpHeaders];
        assert.equal(head[':status'], 201);
        req.end();
      } else {
        req.end(body);
        const [head] = (await once(req, 'response')) as [http2.IncomingHttpHeaders];
        assert.equal(head[':status'], 201);
      }
      req.resume();
      await once(req, 'close');
    }
    // Every server stream closes (none kept alive by the held byte).
    for (let waited = 0; outcome.closed < 10 && waited < 3000; waited += 10) await new Promise((r) => setTimeout(r, 10));
    return outcome;
  } finally {
    session.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

describe('HTTP/2 request bodies read to their declared length', () => {
  let pki: TestPki;
  before(async () => {
    pki = await makeTestPki();
  });
  after(async () => {
    await pki.cleanup();
  });

  for (const sendEndLater of [false, true]) {
    const how = sendEndLater ? 'the client ends its side after the answer' : 'the body ends the client side';
    it(`held: no response write fails and every stream closes (${how})`, async () => {
      const outcome = await serveAndPost(pki, true, sendEndLater);
      assert.deepEqual(outcome.bodies, Array(10).fill(outcome.bodies[0]));
      assert.ok(outcome.bodies[0]! > 1000);
      assert.equal(outcome.closed, 10);
      assert.equal(outcome.writeErrors.length, 10);
      for (const err of outcome.writeErrors) assert.equal(err ?? null, null);
    });
  }

  it('not held: the response write completes on a destroyed stream (what holding avoids)', async () => {
    const outcome = await serveAndPost(pki, false, false);
    assert.equal(outcome.closed, 10);
    assert.ok(
      outcome.writeErrors.some((err) => (err as { code?: string } | null | undefined)?.code === 'ERR_STREAM_DESTROYED'),
      'node builds ERR_STREAM_DESTROYED for a write completing after the stream was destroyed; if it no longer does, holdReadableSide can go',
    );
  });
});
