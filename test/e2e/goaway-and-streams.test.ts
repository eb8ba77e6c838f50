/**
 * --goaway-chance and --http2-max-streams-per-connection on a real server,
 * with node:http2 as the client: the client sees GOAWAY now and then, opens a
 * new connection and loses no request; the SETTINGS the server announces carry
 * the stream limit. And the shutdown flags' defaults and validation.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http2 from 'node:http2';
import { after, before, describe, it } from 'node:test';
import { OptionsError, parseArgs, validateOptions } from '../../src/server/options.ts';
import type { TestServer } from '../support/test-server.ts';
import { startTestServer } from '../support/test-server.ts';

/** GETs over one HTTP/2 connection at a time; a new one after each GOAWAY. */
async function getMany(port: number, ca: Buffer, token: string, count: number): Promise<{ goaways: number; sessions: number; statuses: Map<number, number> }> {
  let goaways = 0;
  let sessions = 0;
  const statuses = new Map<number, number>();
  let session: http2.ClientHttp2Session | null = null;
  const connect = (): http2.ClientHttp2Session => {
    const s = http2.connect(`https://127.0.0.1:${port}`, { ca });
    sessions++;
    s.on('error', () => {});
    s.on('goaway', () => {
      goaways++;
      if (session === s) session = null;
    });
    return s;
  };
  const one = (s: http2.ClientHttp2Session): Promise<number> =>
    new Promise((resolve, reject) => {
      const req = s.request({ ':path': '/api/v1/namespaces/default/configmaps?limit=1', authorization: `Bearer ${token}` });
      req.on('response', (h) => {
        req.resume();
        req.on('end', () => resolve(Number(h[':status'])));
      });
      req.on('error', reject);
      req.end();
    });
  for (let i = 0; i < count; i++) {
    session ??= connect();
    let status: number;
    try {
      status = await one(session);
    } catch {
      // A stream the server refused past its GOAWAY: retried on a new connection, as clients do.
      session = connect();
      status = await one(session);
    }
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  }
  (session as http2.ClientHttp2Session | null)?.close();
  return { goaways, sessions, statuses };
}

describe('--goaway-chance with a node:http2 client', () => {
  let ts: TestServer;
  let ca: Buffer;

  before(async () => {
    ts = await startTestServer(['--goaway-chance=0.02', '--http2-max-streams-per-connection=37']);
    ca = fs.readFileSync(ts.server.files.caCertPath);
  });
  after(async () => {
    await ts.stop();
  });

  it('sends GOAWAY on about one response in fifty; the client reconnects and every request succeeds', async () => {
    // 1500 requests: the chance of no GOAWAY at all is 0.98^1500, about 7e-14.
    const r = await getMany(ts.securePort, ca, ts.server.files.adminToken, 1500);
    assert.deepEqual([...r.statuses], [[200, 1500]]);
    assert.ok(r.goaways >= 1, 'at least one GOAWAY');
    assert.ok(r.sessions >= r.goaways, 'a new connection after each GOAWAY');
    assert.ok(r.goaways < 200, `GOAWAY on a small share of requests, not on all (${r.goaways})`);
  });

  it('announces --http2-max-streams-per-connection in its SETTINGS', async () => {
    const s = http2.connect(`https://127.0.0.1:${ts.securePort}`, { ca });
    s.on('error', () => {});
    const settings = await new Promise<http2.Settings>((resolve) => s.once('remoteSettings', resolve));
    s.close();
    assert.equal(settings.maxConcurrentStreams, 37);
  });
});

describe('shutdown and connection flags', () => {
  it("has the original's defaults", () => {
    const o = parseArgs([]);
    assert.equal(o.shutdownDelayMs, 0);
    assert.equal(o.shutdownSendRetryAfter, false);
    assert.equal(o.livezGracePeriodMs, 0);
    assert.equal(o.goawayChance, 0);
    assert.equal(o.maxConnectionBytesPerSec, 0);
    assert.equal(o.http2MaxStreamsPerConnection, 0);
  });

  it('parses and validates them', () => {
    const o = parseArgs(['--shutdown-delay-duration=70s', '--shutdown-send-retry-after', '--livez-grace-period=2m', '--goaway-chance=0.001', '--max-connection-bytes-per-sec=4096']);
    assert.equal(o.shutdownDelayMs, 70_000);
    assert.equal(o.shutdownSendRetryAfter, true);
    assert.equal(o.livezGracePeriodMs, 120_000);
    assert.equal(o.goawayChance, 0.001);
    assert.equal(o.maxConnectionBytesPerSec, 4096);
    assert.equal(parseArgs(['--shutdown-send-retry-after=false']).shutdownSendRetryAfter, false);
    assert.throws(() => parseArgs(['--goaway-chance=0.03']), /--goaway-chance can not be less than 0 or greater than 0.02/);
    assert.throws(() => parseArgs(['--goaway-chance=-0.01']), /--goaway-chance can not be less than 0 or greater than 0.02/);
    assert.throws(() => parseArgs(['--goaway-chance=often']), OptionsError);
    assert.throws(() => parseArgs(['--shutdown-delay-duration=-1s']), OptionsError);
    assert.throws(() => parseArgs(['--livez-grace-period=soon']), OptionsError);
    assert.throws(() => parseArgs(['--max-connection-bytes-per-sec=-1']), OptionsError);
    assert.throws(() => parseArgs(['--http2-max-streams-per-connection=-1']), OptionsError);
    assert.throws(() => validateOptions(parseArgs(['--livez-grace-period=1000h'])), /--livez-grace-period/);
  });
});
