/**
 * The secure port's connection timeouts as the server's flags set them: a
 * whole server, started with small values so the test takes a second.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http2 from 'node:http2';
import { after, before, describe, it } from 'node:test';
import tls from 'node:tls';
import { OptionsError, parseArgs } from '../../src/server/options.ts';
import type { TestServer } from '../support/test-server.ts';
import { startTestServer } from '../support/test-server.ts';

describe('secure port connection flags', () => {
  let ts: TestServer;
  let ca: Buffer;

  before(async () => {
    ts = await startTestServer(['--http-idle-timeout=600ms', '--http-read-header-timeout=300ms']);
    ca = fs.readFileSync(ts.server.files.caCertPath);
  });

  after(async () => {
    await ts.stop();
  });

  it("defaults to the original's 90 s idle and 32 s header-read timeouts, and refuses zero", () => {
    const o = parseArgs([]);
    assert.equal(o.httpIdleTimeoutMs, 90_000);
    assert.equal(o.httpReadHeaderTimeoutMs, 32_000);
    assert.equal(parseArgs(['--http-idle-timeout=2m']).httpIdleTimeoutMs, 120_000);
    assert.throws(() => parseArgs(['--http-read-header-timeout=0']), OptionsError);
  });

  it('closes a connection that sends nothing within --http-read-header-timeout', async () => {
    const socket = tls.connect({ host: '127.0.0.1', port: ts.securePort, ca, servername: 'localhost', ALPNProtocols: ['http/1.1'] });
    socket.on('error', () => {});
    socket.resume();
    const closed = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 5_000);
      socket.once('close', () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    socket.destroy();
    assert.equal(closed, true);
  });

  it('sends GOAWAY to an idle HTTP/2 client after --http-idle-timeout', async () => {
    const session = http2.connect(`https://127.0.0.1:${ts.securePort}`, { ca, servername: 'localhost' });
    session.on('error', () => {});
    const code = await new Promise<number | string>((resolve) => {
      const timer = setTimeout(() => resolve('no GOAWAY'), 5_000);
      session.once('goaway', (c: number) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    session.destroy();
    assert.equal(code, http2.constants.NGHTTP2_NO_ERROR);
  });
});
