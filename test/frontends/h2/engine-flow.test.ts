/**
 * The js HTTP/2 engine's flow control on its own: responses larger than every
 * window the client gives, several at once on one connection, a client that
 * stops reading for a while, and large uploads. Each checks the bytes, not
 * only the status, and that the server still answers afterwards.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import http2 from 'node:http2';
import { after, before, describe, it } from 'node:test';
import type { Frontend } from '../../../src/frontends/node-http2.ts';
import { startNodeFrontend } from '../../../src/frontends/node-http2.ts';
import type { RequestHandler } from '../../../src/server/http.ts';
import type { TestPki } from '../support/certs.ts';
import { makeTestPki } from '../support/certs.ts';

const MiB = 1024 * 1024;

/** Deterministic bytes of `size` for `seed`. */
function pattern(size: number, seed: number): Buffer {
  const out = Buffer.allocUnsafe(size);
  let x = seed * 2654435761 + 1;
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

/** GET /big/<MiB>/<seed>: the pattern in 1 MiB parts; POST: the body's length and digest. */
const handler: RequestHandler = (req, res) => {
  if (req.method === 'POST') {
    return req.body(64 * MiB).then((body) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ length: body.byteLength, sha: sha(body) }));
    });
  }
  const [, kind, size, seed] = req.path.split('/');
  if (kind !== 'big') {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
    return undefined;
  }
  const body = pattern(Number(size) * MiB, Number(seed));
  const parts: Uint8Array[] = [];
  for (let at = 0; at < body.byteLength; at += MiB) parts.push(body.subarray(at, at + MiB));
  res.writeHead(200, { 'content-type': 'application/octet-stream' });
  res.endParts(parts);
  return undefined;
};

interface Got {
  status: number;
  body: Buffer;
}

function get(session: http2.ClientHttp2Session, path: string, pauseMs = 0): Promise<Got> {
  return new Promise((resolve, reject) => {
    const req = session.request({ ':path': path });
    const chunks: Buffer[] = [];
    let status = 0;
    req.on('response', (headers) => {
      status = Number(headers[':status']);
      if (pauseMs > 0) {
        req.pause();
        setTimeout(() => req.resume(), pauseMs);
      }
    });
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve({ status, body: Buffer.concat(chunks) }));
    req.on('error', reject);
    req.end();
  });
}

describe('js HTTP/2 engine: flow control', () => {
  let pki: TestPki;
  let frontend: Frontend;
  let session: http2.ClientHttp2Session;

  before(async () => {
    pki = await makeTestPki();
    frontend = await startNodeFrontend({
      host: '127.0.0.1',
      port: 0,
      tls: { cert: pki.serverCertPem, key: pki.serverKeyPem },
      handler,
      http2Engine: 'js',
    });
    // node's client: 64 KiB windows for every stream and for the connection, as an HTTP/2 client starts.
    session = http2.connect(`https://127.0.0.1:${frontend.port}`, { ca: pki.serverCaPem, settings: { initialWindowSize: 65_535 } });
    session.on('error', () => {});
  });

  after(async () => {
    session.close();
    await frontend.close();
    await pki.cleanup();
  });

  it('sends responses larger than every window, four at once on one connection, each whole and in order', async () => {
    const got = await Promise.all([1, 2, 3, 4].map((seed) => get(session, `/big/3/${seed}`)));
    for (const [i, g] of got.entries()) {
      assert.equal(g.status, 200);
      assert.equal(g.body.byteLength, 3 * MiB);
      assert.equal(sha(g.body), sha(pattern(3 * MiB, i + 1)), `response ${i + 1}`);
    }
  });

  it('waits for a client that stops reading, and the other streams of its connection go on meanwhile', async () => {
    const slow = get(session, '/big/2/7', 500);
    const quick = await get(session, '/small');
    assert.equal(quick.status, 200);
    assert.equal(quick.body.toString(), 'ok');
    const g = await slow;
    assert.equal(sha(g.body), sha(pattern(2 * MiB, 7)));
  });

  it('takes uploads larger than its stream window (256 KiB) and its connection window (8 MiB)', async () => {
    for (const size of [300 * 1024, 9 * MiB]) {
      const body = pattern(size, size);
      const answer = await new Promise<string>((resolve, reject) => {
        const req = session.request({ ':method': 'POST', ':path': '/upload', 'content-type': 'application/octet-stream' });
        let text = '';
        req.setEncoding('utf8');
        req.on('data', (c: string) => (text += c));
        req.on('end', () => resolve(text));
        req.on('error', reject);
        req.end(body);
      });
      assert.deepEqual(JSON.parse(answer), { length: size, sha: sha(body) });
    }
  });
});
