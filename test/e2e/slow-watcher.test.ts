/**
 * A watcher that stops reading is dropped once its buffered output passes the
 * bound, while a watcher that keeps reading gets every event: one slow client
 * never stalls others or grows the server's memory without limit.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import tls from 'node:tls';
import { startTestServer, type TestServer } from '../support/test-server.ts';

describe('slow watchers', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer(['--watch-max-buffered-bytes=1048576']);
  });
  after(async () => {
    await t?.stop();
  });

  it('drops a watcher that stops reading and keeps serving one that reads', async () => {
    const files = t.server.files;
    const [ca, cert, key] = await Promise.all([fs.readFile(files.caCertPath), fs.readFile(files.adminCertPath), fs.readFile(files.adminKeyPath)]);
    const rv = (await t.request('GET', '/api/v1/namespaces/default/configmaps')).json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
    const path = `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${rv}`;

    // The slow client: a raw HTTP/1.1 connection that sends its request and then never reads.
    const slow = tls.connect({ host: '127.0.0.1', port: t.securePort, ca, cert, key, servername: 'localhost', ALPNProtocols: ['http/1.1'] });
    await new Promise<void>((resolve, reject) => {
      slow.once('secureConnect', () => resolve());
      slow.once('error', reject);
    });
    slow.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nAccept: application/json\r\n\r\n`);
    slow.pause();
    let slowClosed = false;
    slow.on('close', () => (slowClosed = true));
    slow.on('error', () => undefined);

    const fast = await t.watch(path);
    const big = 'x'.repeat(200 * 1024);
    const total = 60;
    for (let i = 0; i < total; i++) {
      const r = await t.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: `big-${i}` }, data: { blob: big } });
      assert.equal(r.status, 201);
    }
    await fast.until(() => fast.events.length >= total, 'every event for the reading watcher', 30_000);
    assert.equal(fast.events.length, total);
    assert.deepEqual(fast.events.map((e) => e.object.metadata.name), Array.from({ length: total }, (_, i) => `big-${i}`));

    // Now read what the slow client was sent: less than everything, then the connection ends.
    let received = 0;
    slow.on('data', (chunk: Buffer) => (received += chunk.length));
    slow.resume();
    const deadline = Date.now() + 15_000;
    while (!slowClosed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.ok(slowClosed, 'the server dropped the slow watcher');
    assert.ok(received < total * big.length, `the slow watcher got only part of the stream (${received} bytes)`);
    fast.close();
    assert.equal((await t.request('GET', '/readyz')).status, 200, 'the server is fine');
  });
});
