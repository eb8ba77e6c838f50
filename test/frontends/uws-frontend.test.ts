/**
 * The uWS front end against real TLS clients: the shared suite over
 * HTTP/1.1, then what is particular to it. Skipped, with the loader's
 * reason, where the native binary does not load (Node other than 20).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import tls from 'node:tls';
import type { Frontend } from '../../src/frontends/uws.ts';
import { startUwsFrontend } from '../../src/frontends/uws.ts';
import { startTestUws } from './support/servers.ts';
import { createUwsLoader } from '../../src/frontends/uws-loader.ts';
import type { Target } from './support/clients.ts';
import { call, h1Target } from './support/clients.ts';
import type { TestPki } from './support/certs.ts';
import { makeTestPki } from './support/certs.ts';
import { sharedFrontendTests } from './support/shared-suite.ts';
import { makeTestHandler, Recorder } from './support/test-handler.ts';

let unavailable = '';
const uws = createUwsLoader({ log: (message) => (unavailable = message) })();

describe('uWS front end', { skip: uws === null ? unavailable : false }, () => {
  let pki: TestPki;
  let frontend: Frontend;
  let recorder: Recorder;
  let h1: Target;

  before(async () => {
    pki = await makeTestPki();
    recorder = new Recorder();
    frontend = await startTestUws(pki, makeTestHandler(recorder), recorder.onError, uws!);
    h1 = h1Target('uws-h1', 'uws', frontend.port, { ca: pki.serverCaPem });
  });

  after(async () => {
    h1.close();
    await frontend.close();
    await pki.cleanup();
  });

  describe('over HTTP/1.1', () => sharedFrontendTests(() => h1, () => recorder));

  it('binds a real port for port 0 and reports it', () => {
    assert.ok(frontend.port > 0 && frontend.port < 65536);
  });

  it('never shows a client certificate, even when one is presented', async () => {
    const t = h1Target('uws-cert', 'uws', frontend.port, { ca: pki.serverCaPem, cert: pki.clientCertChainPem, key: pki.clientKeyPem });
    try {
      const echo = (await call(t, { path: '/echo' })).json();
      assert.equal(echo.peerCertificates, null);
      assert.equal(echo.frontend, 'uws');
    } finally {
      t.close();
    }
  });

  it('flushes the tail of a stream that goes quiet after backpressure', async () => {
    // After write() returned false uWS keeps the rest in its own buffer and,
    // with an onWritable handler registered, drains it only on our say-so;
    // an idle stream must still deliver every byte it wrote.
    const socket = tls.connect({ host: '127.0.0.1', port: frontend.port, ca: pki.serverCaPem });
    await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
    const total = 24 * 1024 * 1024;
    socket.write(`GET /stream?id=tail&total=${total}&chunk=65536 HTTP/1.1\r\nHost: x\r\n\r\n`);
    socket.pause();
    await new Promise((r) => setTimeout(r, 200));
    let bytes = 0;
    let text = '';
    socket.on('data', (chunk: Buffer) => {
      bytes += chunk.byteLength;
      if (text.length < 512) text += chunk.toString('latin1');
    });
    socket.resume();
    // Chunked framing ends with 0\r\n\r\n; wait until it has arrived.
    const deadline = Date.now() + 10_000;
    while (bytes < total && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 100));
    socket.destroy();
    assert.ok(bytes >= total, `got ${bytes} of at least ${total} bytes`);
    assert.match(text, /^HTTP\/1\.1 200 OK\r\n/);
    assert.ok(recorder.record('tail').finished);
  });

  it('close() ends keep-alive connections and aborts requests still running', async () => {
    const rec = new Recorder();
    const other = await startUwsFrontend({
      host: '127.0.0.1',
      port: 0,
      tls: { certFile: pki.serverCertFile, keyFile: pki.serverKeyFile },
      handler: makeTestHandler(rec),
      onError: rec.onError,
      uws: uws!,
    });
    const client = h1Target('uws-close', 'uws', other.port, { ca: pki.serverCaPem });
    assert.equal((await call(client, { path: '/echo' })).status, 200); // leaves an idle keep-alive socket
    const res = await client.open({ path: '/hang?id=uws-close' });
    await new Promise((resolve) => res.stream.once('data', resolve));
    const gone = rec.whenGone('uws-close');
    await other.close(50);
    await gone;
    client.close();
  });
});
