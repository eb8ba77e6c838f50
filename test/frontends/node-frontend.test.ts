/**
 * The node front end (node:http2 with HTTP/1.1 fallback) against real TLS
 * clients: the shared suite over both protocols, then what only it does:
 * ALPN, HTTP/2 settings, client certificates. All of it once per HTTP/2
 * engine (`http2Engine`): nothing here is about nghttp2's internals, and
 * HTTP/1.1 and TLS, node's whichever the engine, must keep working beside
 * either.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import type { IncomingHttpHeaders } from 'node:http2';
import http2 from 'node:http2';
import tls from 'node:tls';
import type { Frontend, Http2Engine } from '../../src/frontends/node-http2.ts';
import { startNodeFrontend } from '../../src/frontends/node-http2.ts';
import type { Target } from './support/clients.ts';
import { call, h1Target, h2Target } from './support/clients.ts';
import type { TestPki } from './support/certs.ts';
import { makeTestPki } from './support/certs.ts';
import { sharedFrontendTests } from './support/shared-suite.ts';
import { makeTestHandler, Recorder } from './support/test-handler.ts';

const ENGINES: readonly Http2Engine[] = ['nghttp2', 'js'];

for (const engine of ENGINES) {
  describe(`node front end (${engine} HTTP/2)`, () => {
    let pki: TestPki;
    let frontend: Frontend;
    let recorder: Recorder;
    let h1: Target;
    let h2: ReturnType<typeof h2Target>;

    before(async () => {
      pki = await makeTestPki();
      recorder = new Recorder();
      frontend = await startNodeFrontend({
        host: '127.0.0.1',
        port: 0,
        tls: { cert: pki.serverCertPem, key: pki.serverKeyPem, clientCa: pki.clientCaPem },
        handler: makeTestHandler(recorder),
        onError: recorder.onError,
        maxStreamsPerConnection: 64,
        http2Engine: engine,
      });
      assert.ok(frontend.port > 0);
      h1 = h1Target('node-h1', 'node', frontend.port, { ca: pki.serverCaPem });
      h2 = h2Target('node-h2', frontend.port, { ca: pki.serverCaPem });
    });

    after(async () => {
      h1.close();
      h2.close();
      await frontend.close();
      await pki.cleanup();
    });

    describe('over HTTP/1.1', () => sharedFrontendTests(() => h1, () => recorder));
    describe('over HTTP/2', () => sharedFrontendTests(() => h2, () => recorder));

    it('chooses cipher suites in the original\'s order (AES-128-GCM first), whatever the client prefers, and still serves any suite', async () => {
      const negotiate = (opts: tls.ConnectionOptions): Promise<string> =>
        new Promise((resolve, reject) => {
          const s = tls.connect({ host: '127.0.0.1', port: frontend.port, ca: pki.serverCaPem, ALPNProtocols: ['http/1.1'], ...opts }, () => {
            const name = s.getCipher().standardName;
            s.end();
            resolve(name);
          });
          s.on('error', reject);
        });
      // node's own client, as curl's and Python's, lists AES-256-GCM first.
      assert.equal(await negotiate({}), 'TLS_AES_128_GCM_SHA256');
      assert.equal(await negotiate({ ciphers: 'TLS_AES_256_GCM_SHA384' }), 'TLS_AES_256_GCM_SHA384');
      assert.equal(await negotiate({ ciphers: 'TLS_CHACHA20_POLY1305_SHA256' }), 'TLS_CHACHA20_POLY1305_SHA256');
      assert.equal(await negotiate({ maxVersion: 'TLSv1.2' }), 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256', 'TLS 1.2: AES-128-GCM too (an ECDSA test key)');
    });

    it('negotiates HTTP/2 and HTTP/1.1 by ALPN, and serves clients that offer none', async () => {
      const viaH2 = await call(h2, { path: '/echo' });
      assert.equal(viaH2.alpn, 'h2');
      assert.equal(viaH2.json().protocol, 'h2');
      const viaH1 = await call(h1, { path: '/echo' });
      assert.equal(viaH1.alpn, 'http/1.1');
      assert.equal(viaH1.json().protocol, 'http/1.1');

      // A client offering both gets HTTP/2.
      const both = tls.connect({ host: '127.0.0.1', port: frontend.port, ca: pki.serverCaPem, ALPNProtocols: ['h2', 'http/1.1'] });
      await new Promise<void>((resolve, reject) => both.once('secureConnect', resolve).once('error', reject));
      assert.equal(both.alpnProtocol, 'h2');
      both.destroy();

      // A bare TLS client without ALPN still gets HTTP/1.1.
      const socket = tls.connect({ host: '127.0.0.1', port: frontend.port, ca: pki.serverCaPem, ALPNProtocols: [] });
      await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
      assert.equal(socket.alpnProtocol, false);
      socket.write('GET /echo?bare=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      let text = '';
      for await (const chunk of socket) text += String(chunk);
      assert.match(text, /^HTTP\/1\.1 200 /);
      assert.match(text, /"protocol":"http\/1\.1"/);
    });

    it('announces maxStreamsPerConnection as SETTINGS_MAX_CONCURRENT_STREAMS', async () => {
      await call(h2, { path: '/echo' });
      assert.equal(h2.session.remoteSettings.maxConcurrentStreams, 64);
    });

    it('shows the client certificate chain as DER, leaf first, over both protocols', async () => {
      const clientTls = { ca: pki.serverCaPem, cert: pki.clientCertChainPem, key: pki.clientKeyPem };
      const targets = [h1Target('node-h1-cert', 'node', frontend.port, clientTls), h2Target('node-h2-cert', frontend.port, clientTls)];
      try {
        for (const t of targets) {
          const chain = (await call(t, { path: '/echo' })).json<{ peerCertificates: string[] | null }>().peerCertificates;
          assert.ok(chain !== null, t.name);
          const expected = pki.clientChainDer.map((der) => Buffer.from(der).toString('base64'));
          // Leaf, then the intermediate the client sent; node may append the
          // root it found in clientCa.
          assert.deepEqual(chain.slice(0, 2), expected, t.name);
          // Asked twice on one connection: the same (cached) chain.
          const again = (await call(t, { path: '/echo' })).json<{ peerCertificates: string[] | null }>().peerCertificates;
          assert.deepEqual(again, chain);
        }
      } finally {
        for (const t of targets) t.close();
      }
      // Without a certificate: undefined (null in the echo).
      assert.equal((await call(h1, { path: '/echo' })).json().peerCertificates, null);
      assert.equal((await call(h2, { path: '/echo' })).json().peerCertificates, null);
    });

    it('over HTTP/2, a body is complete at its declared length: answered before the client ends its side, which then closes cleanly', async () => {
      const body = Buffer.from(JSON.stringify({ v: 'x'.repeat(3000) }));
      const stream = h2.session.request({ ':method': 'POST', ':path': '/echo', 'content-length': body.byteLength }, { endStream: false });
      stream.write(body.subarray(0, 1000));
      await new Promise((resolve) => setTimeout(resolve, 30));
      stream.write(body.subarray(1000));
      // END_STREAM is not sent: the declared length alone must complete the body.
      const head = await Promise.race([
        once(stream, 'response').then(([h]) => h as IncomingHttpHeaders),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no answer before END_STREAM')), 3000)),
      ]);
      assert.equal(head[':status'], 200);
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      await once(stream, 'end');
      const echo = JSON.parse(Buffer.concat(chunks).toString()) as { bodyLength: number; bodySha256: string };
      assert.equal(echo.bodyLength, body.byteLength);
      assert.equal(echo.bodySha256, createHash('sha256').update(body).digest('hex'));
      stream.end();
      await once(stream, 'close');
      assert.equal(stream.rstCode, http2.constants.NGHTTP2_NO_ERROR);
      // The connection serves on.
      assert.equal((await call(h2, { path: '/echo', method: 'POST', body: Buffer.from('{}') })).json().bodyLength, 2);
    });

    it('over HTTP/2, a body shorter or longer than its declared length resets only its stream', async () => {
      for (const [declared, sent] of [
        [100, 40],
        [10, 4000],
      ] as const) {
        const stream = h2.session.request({ ':method': 'POST', ':path': '/echo', 'content-length': declared }, { endStream: false });
        stream.on('response', () => assert.fail(`an answer to ${sent} bytes declared as ${declared}`));
        stream.on('error', () => {});
        stream.end(Buffer.alloc(sent, 0x61));
        // Not events.once: it rejects on the stream's 'error', which a reset stream emits first.
        await new Promise<void>((resolve) => stream.once('close', resolve));
        assert.equal(stream.rstCode, http2.constants.NGHTTP2_PROTOCOL_ERROR, `${sent} bytes declared as ${declared}`);
      }
      // The connection and the server serve on.
      assert.equal((await call(h2, { path: '/echo', method: 'POST', body: Buffer.from('{"ok":1}') })).json().bodyLength, 8);
    });

    it('close() ends open connections and aborts requests still running', async () => {
      const rec = new Recorder();
      const other = await startNodeFrontend({
        host: '127.0.0.1',
        port: 0,
        tls: { cert: pki.serverCertPem, key: pki.serverKeyPem },
        handler: makeTestHandler(rec),
        onError: rec.onError,
        http2Engine: engine,
      });
      const clients = [h1Target('close-h1', 'node', other.port, { ca: pki.serverCaPem }), h2Target('close-h2', other.port, { ca: pki.serverCaPem })];
      const opened = await Promise.all(clients.map((c, i) => c.open({ path: `/hang?id=close-${i}` })));
      await Promise.all(opened.map((r) => new Promise((resolve) => r.stream.once('data', resolve))));
      const gone = Promise.all([rec.whenGone('close-0'), rec.whenGone('close-1')]);
      await other.close(50);
      await gone;
      for (const c of clients) c.close();
    });
  });
}
