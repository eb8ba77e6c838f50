/**
 * HTTP/2 conformance (RFC 9113, HPACK RFC 7541) and hostile input against the node front end's secure
 * port, once per HTTP/2 engine it can run (`http2Engine`): frames written raw onto TLS
 * (support/h2-raw.ts), plus node's own client, curl and h2load for the traffic real clients make. Every
 * case checks what the server answered, then that it still serves a GET on a fresh connection.
 *
 * Where node:http2 (nghttp2 1.61, Node 20) answers otherwise than the RFC, a case accepts the RFC's answer
 * and node's (its name says "node: ..."). What node:http2 sends, case by case:
 *
 *   §3.4    invalid client preface                 GOAWAY INTERNAL_ERROR, close    (RFC: PROTOCOL_ERROR, GOAWAY optional)
 *   §3.4    first frame not SETTINGS (a PING)      GOAWAY INTERNAL_ERROR, close    (RFC: PROTOCOL_ERROR)
 *   §4.2    HEADERS frame of MAX_FRAME_SIZE + 1    GOAWAY FRAME_SIZE_ERROR
 *   §5.1.1  HEADERS on stream 0                    GOAWAY INTERNAL_ERROR, close    (RFC: PROTOCOL_ERROR)
 *   §5.1.1  HEADERS on an even stream              GOAWAY INTERNAL_ERROR, close    (RFC: PROTOCOL_ERROR)
 *   §5.1.1  HEADERS on a lower stream id           ignored, the connection serves on (RFC: PROTOCOL_ERROR)
 *   §5.1    DATA on a half-closed (remote) stream  GOAWAY STREAM_CLOSED            (RFC: stream error STREAM_CLOSED)
 *   §5.1.2  a stream past MAX_CONCURRENT_STREAMS   session destroyed: RST_STREAM INTERNAL_ERROR on a stream under
 *                                                  way, no GOAWAY, close, the other streams aborted
 *                                                  (RFC: that stream alone, RST_STREAM REFUSED_STREAM or PROTOCOL_ERROR)
 *   §6.5    SETTINGS length not a multiple of 6    GOAWAY FRAME_SIZE_ERROR
 *   §6.5    SETTINGS ACK with a payload            GOAWAY FRAME_SIZE_ERROR
 *   §6.5    SETTINGS on a stream                   GOAWAY INTERNAL_ERROR, close    (RFC: PROTOCOL_ERROR)
 *   §6.5.2  INITIAL_WINDOW_SIZE 2^31               GOAWAY INTERNAL_ERROR, close    (RFC: FLOW_CONTROL_ERROR)
 *   §6.5.2  ENABLE_PUSH 2                          GOAWAY INTERNAL_ERROR, close    (RFC: PROTOCOL_ERROR)
 *   §6.5.2  MAX_FRAME_SIZE 16383 or 2^24           GOAWAY INTERNAL_ERROR, close    (RFC: PROTOCOL_ERROR)
 *   §6.7    PING                                   PING ACK with the same 8 bytes
 *   §6.7    a PING ACK nobody asked for            GOAWAY INTERNAL_ERROR, close    (RFC: ignore it)
 *   §6.7    PING of 7 bytes                        GOAWAY FRAME_SIZE_ERROR
 *   §6.7    PING on a stream                       GOAWAY INTERNAL_ERROR, close    (RFC: PROTOCOL_ERROR)
 *   §6.9    WINDOW_UPDATE 0 on the connection      GOAWAY INTERNAL_ERROR, close    (RFC: PROTOCOL_ERROR)
 *   §6.9    WINDOW_UPDATE 0 on a stream            GOAWAY INTERNAL_ERROR, close    (RFC: stream error PROTOCOL_ERROR)
 *   §6.9.1  connection window past 2^31-1          GOAWAY INTERNAL_ERROR, close    (RFC: FLOW_CONTROL_ERROR)
 *   §6.9.1  stream window past 2^31-1              RST_STREAM FLOW_CONTROL_ERROR, then close (no GOAWAY)
 *   §6.9.1  DATA past the stream's window          RST_STREAM FLOW_CONTROL_ERROR
 *   §6.10   CONTINUATION without HEADERS           GOAWAY PROTOCOL_ERROR
 *   §6.10   HEADERS without END_HEADERS, then
 *           another stream's HEADERS               GOAWAY PROTOCOL_ERROR
 *   §4.3    HPACK index 0, or past both tables     GOAWAY COMPRESSION_ERROR
 *   §8.2.1  uppercase field name                   RST_STREAM PROTOCOL_ERROR, the connection serves on
 *   §8.3.1  no :path                               RST_STREAM PROTOCOL_ERROR, the connection serves on
 *   §8.2.2  connection: keep-alive                 RST_STREAM PROTOCOL_ERROR, the connection serves on
 *   §8.1.1  content-length above or below the DATA RST_STREAM PROTOCOL_ERROR, the connection serves on
 *   §10.5.1 a 1.1 MiB header list (limit 1 MiB+320) RST_STREAM ENHANCE_YOUR_CALM, the connection serves on
 *           (0.9 MiB in 256 KiB CONTINUATIONs is served)
 *   §8.1    trailers                               served, 200
 *   §6.8    the client's GOAWAY                    GOAWAY NO_ERROR, the stream under way answered, close
 *           idle connection                        GOAWAY NO_ERROR after the idle timeout, close
 *
 * node:http2 leaves the TCP connection open after the GOAWAYs nghttp2 sends by itself (FRAME_SIZE_ERROR,
 * PROTOCOL_ERROR, COMPRESSION_ERROR, STREAM_CLOSED above) until the idle timeout, where §5.4.1 says the
 * endpoint MUST close it: the cases do not require the close.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import http2 from 'node:http2';
import { after, afterEach, before, describe, it } from 'node:test';
import type { TestContext } from 'node:test';
import { promisify } from 'node:util';
import type { Frontend } from '../../src/frontends/node-http2.ts';
import { DEFAULT_MAX_STREAMS, MAX_HEADER_BYTES, startNodeFrontend } from '../../src/frontends/node-http2.ts';
import type { RequestHandler } from '../../src/server/http.ts';
import type { TestPki } from './support/certs.ts';
import { makeTestPki } from './support/certs.ts';
import type { H2Frame, RawH2Connection, RawH2Options, StreamOutcome } from './support/h2-raw.ts';
import {
  connectRawH2,
  continuationFrame,
  dataFrame,
  dataFrames,
  errorName,
  FLAG,
  frame,
  FRAME,
  goawayFrame,
  H2_ERROR,
  headerBlock,
  headersFrame,
  parseSettings,
  pingFrame,
  PREFACE,
  requestBlock,
  SETTING,
  settingsFrame,
  windowUpdateFrame,
} from './support/h2-raw.ts';

const execFileAsync = promisify(execFile);

const ENGINES = ['nghttp2', 'js'] as const;
/** The stream limit of the second server, which also has short timeouts. */
const LIMITED_STREAMS = 8;
const IDLE_MS = 300;
/** How long a case waits for something that should come at once (or after IDLE_MS). */
const BOUND_MS = 5_000;
/** SETTINGS_MAX_HEADER_LIST_SIZE the server announces: the original's 1 MiB plus Go's 320 bytes. */
const HEADER_LIST_LIMIT = MAX_HEADER_BYTES + 320;
const BODY_LIMIT = 16 * 1024 * 1024;
const { PROTOCOL_ERROR, INTERNAL_ERROR, FLOW_CONTROL_ERROR, STREAM_CLOSED, FRAME_SIZE_ERROR, REFUSED_STREAM, COMPRESSION_ERROR, NO_ERROR }: Record<keyof typeof H2_ERROR, number> = H2_ERROR;

const sha256 = (data: Uint8Array): string => createHash('sha256').update(data).digest('hex');

function toolWorks(command: string, args: string[], expect: RegExp): boolean {
  try {
    return expect.test(execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
  } catch {
    return false;
  }
}
const CURL_HTTP2 = toolWorks('curl', ['-V'], /^Features:.*\bHTTP2\b/m);
const H2LOAD = toolWorks('h2load', ['--version'], /h2load/);

/** The /big body: bytes that differ with their position, so a reordered or shifted body shows. */
function bigBody(bytes: number): Buffer {
  const out = Buffer.alloc(bytes);
  for (let i = 0; i < bytes; i++) out[i] = (i * 31 + (i >>> 10)) & 0xff;
  return out;
}

/**
 * GET /ok: 200 {"ok":true}. A POST or PUT elsewhere: its body's length and sha256. /slow?ms=&id=:
 * 200 after `ms` (sooner if the client goes), never reading the body; its id is noted in `started`.
 * /big?bytes=: that many bytes of bigBody.
 */
function makeProtocolHandler(started: Set<string>): RequestHandler {
  return async (req, res) => {
    const json = (value: unknown): void => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    if (req.path === '/slow') {
      started.add(req.query.get('id') ?? '');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Number(req.query.get('ms') ?? 300));
        req.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      if (!res.closed) json({ ok: true });
      return;
    }
    if (req.path === '/big') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(bigBody(Number(req.query.get('bytes') ?? 0)));
      return;
    }
    if (req.method === 'POST' || req.method === 'PUT') {
      const body = await req.body(BODY_LIMIT);
      json({ length: body.byteLength, sha256: sha256(body) });
      return;
    }
    json({ ok: true });
  };
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

interface NodeReply {
  status: number;
  body: Buffer;
}

/** One request on a node:http2 client session, read to its end. */
function request(session: http2.ClientHttp2Session, headers: http2.OutgoingHttpHeaders, body?: Buffer): Promise<NodeReply> {
  return new Promise((resolve, reject) => {
    const stream = session.request(headers, { endStream: body === undefined });
    let status = 0;
    const chunks: Buffer[] = [];
    stream.on('response', (h) => (status = Number(h[':status'])));
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve({ status, body: Buffer.concat(chunks) }));
    stream.on('error', reject);
    if (body !== undefined) stream.end(body);
  });
}

/** The check every case ends with: a GET on a new connection is answered 200 {"ok":true}. */
async function servesFreshGet(port: number, ca: string): Promise<void> {
  const session = http2.connect(`https://127.0.0.1:${port}`, { ca });
  session.on('error', () => {});
  try {
    const reply = await within(BOUND_MS, 'a GET on a fresh connection', request(session, { ':path': '/ok' }));
    assert.equal(reply.status, 200, 'a GET on a fresh connection afterwards');
    assert.deepEqual(JSON.parse(reply.body.toString()), { ok: true });
  } finally {
    session.destroy();
  }
}

const get = (streamId: number, path = '/ok', extra: readonly (readonly [string, string])[] = []): Buffer =>
  headersFrame(streamId, requestBlock('GET', path, extra), { endStream: true });

const codeList = (codes: readonly number[]): string => codes.map(errorName).join(' or ');

/** The server's first SETTINGS (which settled waited for). */
function serverSettings(conn: RawH2Connection): Map<number, number> {
  const first = conn.frames.find((f) => f.type === FRAME.SETTINGS && (f.flags & FLAG.ACK) === 0);
  assert.ok(first !== undefined, 'the server sent SETTINGS');
  return parseSettings(first.payload);
}

/** A GOAWAY with one of `codes` (a connection error, RFC 9113 §5.4.1). */
async function expectGoaway(conn: RawH2Connection, codes: readonly number[], what: string): Promise<void> {
  const goaway = await conn.waitForGoaway(BOUND_MS);
  assert.ok(codes.includes(goaway.code), `${what}: GOAWAY ${errorName(goaway.code)}, expected ${codeList(codes)}; received ${conn.summary()}`);
}

/** A RST_STREAM on `streamId` with one of `resetCodes` (a stream error, §5.4.2), or a GOAWAY with one of `goawayCodes`. */
async function expectStreamOrConnectionError(
  conn: RawH2Connection,
  streamId: number,
  resetCodes: readonly number[],
  goawayCodes: readonly number[],
  what: string,
): Promise<H2Frame> {
  const f = await conn.waitForFrame((g) => (g.type === FRAME.RST_STREAM && g.streamId === streamId) || g.type === FRAME.GOAWAY, BOUND_MS, what);
  if (f.type === FRAME.RST_STREAM) {
    const code = f.payload.readUInt32BE(0);
    assert.ok(resetCodes.includes(code), `${what}: RST_STREAM ${errorName(code)}, expected ${codeList(resetCodes)}; received ${conn.summary()}`);
  } else {
    const code = f.payload.readUInt32BE(4);
    assert.ok(goawayCodes.includes(code), `${what}: GOAWAY ${errorName(code)}, expected ${codeList(goawayCodes)}; received ${conn.summary()}`);
  }
  return f;
}

function assertResponse(outcome: StreamOutcome, status: number, what: string): Buffer {
  assert.equal(outcome.kind, 'response', `${what}: ${JSON.stringify(outcome)}`);
  assert.equal((outcome as { status: number }).status, status, what);
  return (outcome as { body: Buffer }).body;
}

/** A malformed request's answer (§8.1.1): its stream reset with PROTOCOL_ERROR, or a 400. */
function assertMalformed(outcome: StreamOutcome, what: string): void {
  const ok = (outcome.kind === 'reset' && outcome.code === PROTOCOL_ERROR) || (outcome.kind === 'response' && outcome.status === 400);
  assert.ok(ok, `${what}: expected RST_STREAM PROTOCOL_ERROR or a 400, got ${JSON.stringify(outcome)}`);
}

/** A header block cut into a HEADERS frame and CONTINUATIONs of `frameSize` bytes. */
function headerFrames(streamId: number, block: Buffer, frameSize: number): Buffer[] {
  const frames: Buffer[] = [];
  for (let at = 0; at < block.length; at += frameSize) {
    const piece = block.subarray(at, at + frameSize);
    const last = at + frameSize >= block.length;
    frames.push(at === 0 ? headersFrame(streamId, piece, { endStream: true, endHeaders: last }) : continuationFrame(streamId, piece, last));
  }
  return frames;
}

/** A GET whose header list (RFC 9113 §6.5.2: names, values and 32 bytes a field) is about `listBytes`, in fields of 60 000 bytes. */
function bigHeaderBlock(listBytes: number): Buffer {
  // Under 64 KiB a field: nghttp2 refuses a single larger field with COMPRESSION_ERROR, whatever the list's size.
  const value = 'v'.repeat(60_000);
  const fields: [string, string][] = [];
  for (let size = 0, i = 0; size < listBytes; i++) {
    const name = `x-big-${i}`;
    fields.push([name, value]);
    size += name.length + value.length + 32;
  }
  return requestBlock('GET', '/ok', fields);
}

for (const engine of ENGINES) {
  describe(`HTTP/2 protocol conformance and hostile input (${engine} HTTP/2)`, () => {
    let pki: TestPki;
    let server: Frontend;
    let limited: Frontend;
    const started = new Set<string>();
    const conns: RawH2Connection[] = [];
    const sessions: http2.ClientHttp2Session[] = [];

    before(async () => {
      pki = await makeTestPki();
      const handler = makeProtocolHandler(started);
      const tls = { cert: pki.serverCertPem, key: pki.serverKeyPem };
      const onError = (): void => {}; // bodies cut short by a reset stream reject req.body(): expected here
      server = await startNodeFrontend({ host: '127.0.0.1', port: 0, tls, handler, onError, http2Engine: engine });
      limited = await startNodeFrontend({
        host: '127.0.0.1',
        port: 0,
        tls,
        handler,
        onError,
        http2Engine: engine,
        maxStreamsPerConnection: LIMITED_STREAMS,
        timeouts: { idleMs: IDLE_MS, headerReadMs: 2_000 },
      });
    });

    afterEach(() => {
      for (const c of conns.splice(0)) c.socket.destroy();
      for (const s of sessions.splice(0)) s.destroy();
    });

    after(async () => {
      await Promise.all([server?.close(), limited?.close()]);
      await pki?.cleanup();
    });

    /** A raw connection, closed after the case; waits for the server's SETTINGS unless `settle` is false. */
    const raw = async (port = server.port, opts: RawH2Options = {}, settle = true): Promise<RawH2Connection> => {
      const conn = await connectRawH2(port, pki.serverCaPem, opts);
      conns.push(conn);
      if (settle) await within(BOUND_MS, "the server's SETTINGS", conn.settled);
      return conn;
    };

    /** A node:http2 client session, closed after the case. */
    const nodeClient = (port = server.port, options: http2.SecureClientSessionOptions = {}): http2.ClientHttp2Session => {
      const session = http2.connect(`https://127.0.0.1:${port}`, { ca: pki.serverCaPem, ...options });
      session.on('error', () => {});
      sessions.push(session);
      return session;
    };

    /** A case: `body`, then a GET on a fresh connection to `target` (the main server by default). */
    const check = (name: string, body: (t: TestContext) => Promise<void>, target: () => Frontend = () => server): void => {
      it(name, { timeout: 20_000 }, async (t) => {
        await body(t);
        await servesFreshGet(target().port, pki.serverCaPem);
      });
    };

    // §3.4, §6.5: the connection preface.

    check("§3.4/§6.5: the server's preface is SETTINGS (MAX_CONCURRENT_STREAMS, MAX_FRAME_SIZE 256 KiB, MAX_HEADER_LIST_SIZE 1 MiB + 320), and it acknowledges the client's", async () => {
      for (const [fe, streams] of [
        [server, DEFAULT_MAX_STREAMS],
        [limited, LIMITED_STREAMS],
      ] as const) {
        const conn = await raw(fe.port);
        const first = conn.frames[0]!;
        assert.equal(first.type, FRAME.SETTINGS, 'the first frame is SETTINGS');
        assert.equal(first.flags & FLAG.ACK, 0, 'and not an ACK');
        const settings = parseSettings(first.payload);
        assert.equal(settings.get(SETTING.MAX_CONCURRENT_STREAMS), streams);
        assert.equal(settings.get(SETTING.MAX_FRAME_SIZE), 256 * 1024);
        assert.equal(settings.get(SETTING.MAX_HEADER_LIST_SIZE), HEADER_LIST_LIMIT);
        await conn.waitForFrame((f) => f.type === FRAME.SETTINGS && (f.flags & FLAG.ACK) !== 0 && f.payload.length === 0, BOUND_MS, 'SETTINGS ACK');
      }
    });

    check('§3.4: an invalid client preface closes the connection (GOAWAY PROTOCOL_ERROR optional; node: INTERNAL_ERROR)', async () => {
      for (const start of [Buffer.from('PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n', 'latin1'), Buffer.from('GET /ok HTTP/1.1\r\nHost: localhost\r\n\r\n', 'latin1')]) {
        const conn = await raw(server.port, { start }, false);
        assert.equal(await conn.closesWithin(BOUND_MS), true, `closed after ${JSON.stringify(start.toString('latin1'))}; received ${conn.summary()}`);
        const goaway = conn.frames.find((f) => f.type === FRAME.GOAWAY);
        if (goaway !== undefined) assert.ok([PROTOCOL_ERROR, INTERNAL_ERROR].includes(goaway.payload.readUInt32BE(4)), conn.summary());
        assert.equal(conn.frames.filter((f) => f.type === FRAME.HEADERS).length, 0, 'nothing was served');
      }
    });

    check('§3.4: a first frame other than SETTINGS is a connection error PROTOCOL_ERROR (node: INTERNAL_ERROR)', async () => {
      const conn = await raw(server.port, { start: Buffer.concat([PREFACE, pingFrame(Buffer.from('notfirst'))]) }, false);
      await expectGoaway(conn, [PROTOCOL_ERROR, INTERNAL_ERROR], 'PING first');
      assert.equal(conn.frames.filter((f) => f.type === FRAME.PING).length, 0, 'the PING was not answered');
    });

    // §4.2: frame size.

    check('§4.2: frames past 16 KiB up to the announced SETTINGS_MAX_FRAME_SIZE are taken; one byte more is a connection error FRAME_SIZE_ERROR', async () => {
      const ok = await raw();
      const maxFrame = serverSettings(ok).get(SETTING.MAX_FRAME_SIZE)!;
      assert.equal(maxFrame, 256 * 1024);
      // One DATA frame of 60 000 bytes: past the 16 KiB default, inside the stream's 64 KiB window.
      ok.send(headersFrame(1, requestBlock('POST', '/echo')), dataFrame(1, Buffer.alloc(60_000, 0x61), true));
      const echo = JSON.parse(assertResponse(await ok.streamOutcome(1, BOUND_MS), 200, 'a 60 000-byte DATA frame').toString()) as { length: number };
      assert.equal(echo.length, 60_000);

      // A HEADERS frame (which alters the connection's state: a connection error, not a stream error).
      const big = await raw();
      big.send(frame(FRAME.HEADERS, FLAG.END_HEADERS | FLAG.END_STREAM, 1, Buffer.alloc(maxFrame + 1)));
      await expectGoaway(big, [FRAME_SIZE_ERROR], 'a frame of MAX_FRAME_SIZE + 1 bytes');
    });

    // §5.1.1: stream identifiers.

    check('§5.1.1: HEADERS on stream 0 is a connection error PROTOCOL_ERROR (node: INTERNAL_ERROR)', async () => {
      const conn = await raw();
      conn.send(get(0));
      await expectGoaway(conn, [PROTOCOL_ERROR, INTERNAL_ERROR], 'HEADERS on stream 0');
    });

    check('§5.1.1: HEADERS on an even (server-initiated) stream id is a connection error PROTOCOL_ERROR (node: INTERNAL_ERROR)', async () => {
      const conn = await raw();
      conn.send(get(2));
      await expectGoaway(conn, [PROTOCOL_ERROR, INTERNAL_ERROR], 'HEADERS on stream 2');
    });

    check('§5.1.1: HEADERS on a lower stream id than one already opened is never served (RFC: PROTOCOL_ERROR; node: ignored)', async () => {
      const conn = await raw();
      conn.send(get(5), get(3), pingFrame(Buffer.from('barrier1')));
      // The PING's ACK comes once the server has read what came before it; a connection error comes instead of it.
      const f = await conn.waitForFrame((g) => g.type === FRAME.GOAWAY || (g.type === FRAME.PING && (g.flags & FLAG.ACK) !== 0), BOUND_MS, 'GOAWAY or PING ACK');
      if (f.type === FRAME.GOAWAY) {
        const code = f.payload.readUInt32BE(4);
        // STREAM_CLOSED is what §5.1 allows for a frame on a (here implicitly) closed stream.
        assert.ok([PROTOCOL_ERROR, STREAM_CLOSED].includes(code), `GOAWAY ${errorName(code)}`);
        assert.ok((f.payload.readUInt32BE(0) & 0x7fffffff) <= 5, 'stream 3 is not among the streams processed');
      } else {
        // node:http2: nghttp2 takes stream 3 for closed (implicitly, when 5 opened) and drops its HEADERS.
        assertResponse(await conn.streamOutcome(5, BOUND_MS), 200, 'stream 5');
        conn.send(get(7));
        assertResponse(await conn.streamOutcome(7, BOUND_MS), 200, 'stream 7, after');
      }
      assert.equal(conn.frames.filter((g) => g.streamId === 3 && (g.type === FRAME.HEADERS || g.type === FRAME.DATA)).length, 0, 'stream 3 got no answer');
    });

    // §6.5: SETTINGS.

    for (const [name, bad, codes] of [
      ['§6.5: a SETTINGS frame whose length is not a multiple of 6 is a connection error FRAME_SIZE_ERROR', frame(FRAME.SETTINGS, 0, 0, Buffer.alloc(7)), [FRAME_SIZE_ERROR]],
      ['§6.5: a SETTINGS ACK with a payload is a connection error FRAME_SIZE_ERROR', frame(FRAME.SETTINGS, FLAG.ACK, 0, Buffer.alloc(6)), [FRAME_SIZE_ERROR]],
      ['§6.5: SETTINGS on a stream is a connection error PROTOCOL_ERROR (node: INTERNAL_ERROR)', frame(FRAME.SETTINGS, 0, 1), [PROTOCOL_ERROR, INTERNAL_ERROR]],
      [
        '§6.5.2: SETTINGS_INITIAL_WINDOW_SIZE above 2^31-1 is a connection error FLOW_CONTROL_ERROR (node: INTERNAL_ERROR)',
        settingsFrame([[SETTING.INITIAL_WINDOW_SIZE, 2 ** 31]]),
        [FLOW_CONTROL_ERROR, INTERNAL_ERROR],
      ],
      ['§6.5.2: SETTINGS_ENABLE_PUSH 2 is a connection error PROTOCOL_ERROR (node: INTERNAL_ERROR)', settingsFrame([[SETTING.ENABLE_PUSH, 2]]), [PROTOCOL_ERROR, INTERNAL_ERROR]],
      [
        '§6.5.2: SETTINGS_MAX_FRAME_SIZE below 16384 is a connection error PROTOCOL_ERROR (node: INTERNAL_ERROR)',
        settingsFrame([[SETTING.MAX_FRAME_SIZE, 16_383]]),
        [PROTOCOL_ERROR, INTERNAL_ERROR],
      ],
      [
        '§6.5.2: SETTINGS_MAX_FRAME_SIZE above 2^24-1 is a connection error PROTOCOL_ERROR (node: INTERNAL_ERROR)',
        settingsFrame([[SETTING.MAX_FRAME_SIZE, 2 ** 24]]),
        [PROTOCOL_ERROR, INTERNAL_ERROR],
      ],
    ] as const) {
      check(name, async () => {
        const conn = await raw();
        conn.send(bad);
        await expectGoaway(conn, codes, name);
      });
    }

    // §6.7: PING.

    check('§6.7: a PING is answered with a PING ACK carrying the same 8 bytes', async () => {
      const conn = await raw();
      const data = Buffer.from('\x01ping\xfe\x00\x7f', 'latin1');
      conn.send(pingFrame(data));
      const ack = await conn.waitForFrame((f) => f.type === FRAME.PING && (f.flags & FLAG.ACK) !== 0, BOUND_MS, 'PING ACK');
      assert.equal(ack.streamId, 0);
      assert.deepEqual(ack.payload, data);
      conn.send(get(1));
      assertResponse(await conn.streamOutcome(1, BOUND_MS), 200, 'a GET after');
    });

    check('§6.7: a PING ACK nobody asked for is not answered and breaks nothing (node: GOAWAY INTERNAL_ERROR)', async () => {
      const conn = await raw();
      conn.send(pingFrame(Buffer.from('unasked!'), FLAG.ACK), get(1));
      const outcome = await conn.streamOutcome(1, BOUND_MS);
      // node:http2 takes an unsolicited PING ACK for a protocol error (node_http2.cc) and destroys the session,
      // where §6.7 only says not to respond to it; the GET in the same write may be answered before that lands.
      if (outcome.kind === 'goaway') assert.equal(outcome.code, INTERNAL_ERROR, conn.summary());
      else assertResponse(outcome, 200, 'a GET after');
      assert.equal(conn.frames.filter((f) => f.type === FRAME.PING).length, 0, 'the PING ACK was not answered');
    });

    check('§6.7: a PING whose length is not 8 is a connection error FRAME_SIZE_ERROR', async () => {
      const conn = await raw();
      conn.send(pingFrame(Buffer.from('1234567')));
      await expectGoaway(conn, [FRAME_SIZE_ERROR], 'PING of 7 bytes');
    });

    check('§6.7: a PING on a stream is a connection error PROTOCOL_ERROR (node: INTERNAL_ERROR)', async () => {
      const conn = await raw();
      conn.send(frame(FRAME.PING, 0, 1, Buffer.alloc(8)));
      await expectGoaway(conn, [PROTOCOL_ERROR, INTERNAL_ERROR], 'PING on stream 1');
    });

    // §6.9: WINDOW_UPDATE and flow control.

    check('§6.9: WINDOW_UPDATE with increment 0 on the connection is a connection error PROTOCOL_ERROR (node: INTERNAL_ERROR)', async () => {
      const conn = await raw();
      conn.send(windowUpdateFrame(0, 0));
      await expectGoaway(conn, [PROTOCOL_ERROR, INTERNAL_ERROR], 'WINDOW_UPDATE 0 on stream 0');
    });

    check('§6.9: WINDOW_UPDATE with increment 0 on a stream is a stream error PROTOCOL_ERROR (node: GOAWAY INTERNAL_ERROR)', async () => {
      const conn = await raw();
      conn.send(get(1, '/slow?ms=300&id=wu0'), windowUpdateFrame(1, 0));
      await expectStreamOrConnectionError(conn, 1, [PROTOCOL_ERROR], [PROTOCOL_ERROR, INTERNAL_ERROR], 'WINDOW_UPDATE 0 on stream 1');
    });

    check('§6.9.1: a WINDOW_UPDATE taking the connection window past 2^31-1 is a connection error FLOW_CONTROL_ERROR (node: INTERNAL_ERROR)', async () => {
      const conn = await raw();
      // The server's send window is the default 65 535: this takes it past 2^31-1.
      conn.send(windowUpdateFrame(0, 2 ** 31 - 1));
      await expectGoaway(conn, [FLOW_CONTROL_ERROR, INTERNAL_ERROR], 'connection window overflow');
    });

    check('§6.9.1: a WINDOW_UPDATE taking a stream window past 2^31-1 is a stream error FLOW_CONTROL_ERROR (node: then drops the connection)', async () => {
      const conn = await raw();
      conn.send(get(1, '/slow?ms=300&id=wu-overflow'), windowUpdateFrame(1, 2 ** 31 - 1));
      await expectStreamOrConnectionError(conn, 1, [FLOW_CONTROL_ERROR], [FLOW_CONTROL_ERROR], 'stream window overflow');
    });

    check("§6.9.1: DATA past the stream's flow-control window (a handler not reading) is a FLOW_CONTROL_ERROR", async () => {
      const conn = await raw();
      conn.send(headersFrame(1, requestBlock('POST', '/slow?ms=500&id=flow')), pingFrame(Buffer.from('barrier2')));
      await conn.waitForFrame((f) => f.type === FRAME.PING && (f.flags & FLAG.ACK) !== 0, BOUND_MS, 'PING ACK');
      // The window the server gave stream 1: its SETTINGS_INITIAL_WINDOW_SIZE and any WINDOW_UPDATE so far.
      let window = serverSettings(conn).get(SETTING.INITIAL_WINDOW_SIZE) ?? 65_535;
      for (const f of conn.frames) if (f.type === FRAME.WINDOW_UPDATE && f.streamId === 1) window += f.payload.readUInt32BE(0) & 0x7fffffff;
      conn.send(...dataFrames(1, Buffer.alloc(window + 16_384, 0x62), 16_384, false));
      await expectStreamOrConnectionError(conn, 1, [FLOW_CONTROL_ERROR], [FLOW_CONTROL_ERROR], `${window + 16_384} bytes into a window of ${window}`);
    });

    // §6.10: CONTINUATION.

    check('§6.10: a CONTINUATION not following HEADERS is a connection error PROTOCOL_ERROR', async () => {
      const conn = await raw();
      conn.send(continuationFrame(1, requestBlock('GET', '/ok')));
      await expectGoaway(conn, [PROTOCOL_ERROR], 'CONTINUATION alone');
    });

    check("§6.10: HEADERS without END_HEADERS followed by another stream's frame is a connection error PROTOCOL_ERROR", async () => {
      const conn = await raw();
      conn.send(headersFrame(1, requestBlock('GET', '/ok'), { endStream: true, endHeaders: false }), get(3));
      await expectGoaway(conn, [PROTOCOL_ERROR], 'HEADERS(1) then HEADERS(3)');
    });

    // §4.3 and RFC 7541: HPACK.

    check('§4.3: a header block that does not decode (index 0, an index past both tables) is a connection error COMPRESSION_ERROR', async () => {
      for (const block of [Buffer.from([0x80]), Buffer.from([0xff, 0x7f])]) {
        const conn = await raw();
        conn.send(headersFrame(1, block, { endStream: true }));
        await expectGoaway(conn, [COMPRESSION_ERROR], `block ${block.toString('hex')}`);
      }
    });

    // §8: malformed requests: the stream goes, the connection stays.

    for (const [name, block] of [
      ['§8.2.1: an uppercase field name', requestBlock('GET', '/ok', [['X-Upper', 'v']])],
      ['§8.3.1: a request without :path', headerBlock([[':method', 'GET'], [':scheme', 'https'], [':authority', 'localhost']])],
      ['§8.2.2: a connection-specific field (connection: keep-alive)', requestBlock('GET', '/ok', [['connection', 'keep-alive']])],
    ] as const) {
      check(`${name} is a malformed request: its stream reset with PROTOCOL_ERROR (or a 400), the connection serves on`, async () => {
        const conn = await raw();
        conn.send(headersFrame(1, block, { endStream: true }));
        assertMalformed(await conn.streamOutcome(1, BOUND_MS), name);
        conn.send(get(3));
        assertResponse(await conn.streamOutcome(3, BOUND_MS), 200, 'the next stream');
      });
    }

    check('§8.1.1: a content-length the DATA do not match (short or long) is malformed: RST_STREAM PROTOCOL_ERROR or a 400, the connection serves on', async () => {
      const conn = await raw();
      conn.send(headersFrame(1, requestBlock('POST', '/echo', [['content-length', '10']])), dataFrame(1, Buffer.from('abcd'), true));
      assertMalformed(await conn.streamOutcome(1, BOUND_MS), 'content-length 10, 4 bytes sent');
      conn.send(headersFrame(3, requestBlock('POST', '/echo', [['content-length', '2']])), dataFrame(3, Buffer.from('abcd'), true));
      assertMalformed(await conn.streamOutcome(3, BOUND_MS), 'content-length 2, 4 bytes sent');
      conn.send(headersFrame(5, requestBlock('POST', '/echo', [['content-length', '4']])), dataFrame(5, Buffer.from('abcd'), true));
      const echo = JSON.parse(assertResponse(await conn.streamOutcome(5, BOUND_MS), 200, 'a matching content-length').toString()) as { length: number };
      assert.equal(echo.length, 4);
    });

    check('§5.1: DATA on a half-closed (remote) stream is a STREAM_CLOSED error (node: a connection error)', async () => {
      const conn = await raw();
      // The handler answers after 300 ms: the stream is still half-closed (remote) when the DATA come.
      conn.send(get(1, '/slow?ms=300&id=half-closed'), dataFrame(1, Buffer.from('late')));
      await expectStreamOrConnectionError(conn, 1, [STREAM_CLOSED], [STREAM_CLOSED], 'DATA after END_STREAM');
    });

    check('§8.1: a request with trailers (HEADERS after DATA, with END_STREAM) is served', async () => {
      const conn = await raw();
      conn.send(
        headersFrame(1, requestBlock('POST', '/echo', [['content-type', 'application/json']])),
        dataFrame(1, Buffer.from('{"a":1}')),
        headersFrame(1, headerBlock([['x-checksum', 'abc']]), { endStream: true }),
      );
      const outcome = await conn.streamOutcome(1, BOUND_MS);
      // "Or cleanly refused": a reset of that stream alone, the connection serving on.
      if (outcome.kind !== 'reset') {
        const echo = JSON.parse(assertResponse(outcome, 200, 'trailers').toString()) as { length: number };
        assert.equal(echo.length, 7);
      }
      conn.send(get(3));
      assertResponse(await conn.streamOutcome(3, BOUND_MS), 200, 'the next stream');
    });

    check('§10.5.1: a header list past SETTINGS_MAX_HEADER_LIST_SIZE (1.1 MiB in 256 KiB CONTINUATIONs) is refused without harm; 0.9 MiB is served', async () => {
      const conn = await raw();
      const settings = serverSettings(conn);
      const maxFrame = settings.get(SETTING.MAX_FRAME_SIZE)!;
      assert.equal(settings.get(SETTING.MAX_HEADER_LIST_SIZE), HEADER_LIST_LIMIT);
      const under = headerFrames(1, bigHeaderBlock(900 * 1024), maxFrame);
      assert.ok(under.length >= 4, 'over CONTINUATION frames');
      conn.send(...under);
      assertResponse(await conn.streamOutcome(1, BOUND_MS), 200, 'a 0.9 MiB header list');

      conn.send(...headerFrames(3, bigHeaderBlock(1.1 * 1024 * 1024), maxFrame));
      const over = await conn.streamOutcome(3, BOUND_MS);
      // node: RST_STREAM ENHANCE_YOUR_CALM. A 431, or the stream or the connection refused with any error, will do.
      const refused = (over.kind === 'response' && over.status === 431) || (over.kind === 'reset' && over.code !== NO_ERROR) || (over.kind === 'goaway' && over.code !== NO_ERROR);
      assert.ok(refused, `a 1.1 MiB header list: ${JSON.stringify(over)}`);
      if (over.kind !== 'goaway') {
        conn.send(get(5));
        assertResponse(await conn.streamOutcome(5, BOUND_MS), 200, 'the next stream');
      }
    });

    // Flow control and concurrency as node's own client uses them.

    check('§6.9: a 3 MiB POST through node:http2 arrives intact (the server keeps granting window)', async () => {
      const session = nodeClient();
      const body = randomBytes(3 * 1024 * 1024);
      const reply = await within(BOUND_MS * 2, 'the 3 MiB POST', request(session, { ':method': 'POST', ':path': '/echo', 'content-length': body.length }, body));
      assert.equal(reply.status, 200);
      assert.deepEqual(JSON.parse(reply.body.toString()), { length: body.length, sha256: sha256(body) });
    });

    check('§6.9: a 5 MiB response to a client with a 65 535-byte window arrives intact and in order', async () => {
      const session = nodeClient(server.port, { settings: { initialWindowSize: 65_535 } });
      const bytes = 5 * 1024 * 1024;
      const reply = await within(BOUND_MS * 2, 'the 5 MiB response', request(session, { ':path': `/big?bytes=${bytes}` }));
      assert.equal(reply.status, 200);
      assert.equal(reply.body.length, bytes);
      assert.equal(sha256(reply.body), sha256(bigBody(bytes)));
    });

    check('§5.1.2: 100 concurrent GETs on one connection are all answered', async () => {
      const session = nodeClient();
      const replies = await within(BOUND_MS * 2, '100 GETs', Promise.all(Array.from({ length: 100 }, (_, i) => request(session, { ':path': `/ok?i=${i}` }))));
      assert.deepEqual(
        replies.map((r) => r.status),
        replies.map(() => 200),
      );
    });

    check(
      '§5.1.2: a stream past SETTINGS_MAX_CONCURRENT_STREAMS is refused (REFUSED_STREAM or PROTOCOL_ERROR; node: the whole connection is dropped) and never served',
      async () => {
        const conn = await raw(limited.port);
        const ids = Array.from({ length: LIMITED_STREAMS + 1 }, (_, i) => 2 * i + 1);
        conn.send(...ids.map((id, i) => get(id, `/slow?ms=400&id=cap-${i}`)));
        const last = ids[LIMITED_STREAMS]!;
        const outcome = await conn.streamOutcome(last, BOUND_MS);
        if (outcome.kind === 'reset' && (outcome.code === REFUSED_STREAM || outcome.code === PROTOCOL_ERROR)) {
          // RFC 9113: that stream alone; the others are answered.
          for (const id of ids.slice(0, LIMITED_STREAMS)) assertResponse(await conn.streamOutcome(id, BOUND_MS), 200, `stream ${id}`);
        } else {
          // node:http2: nghttp2 refuses the stream, and node takes that for a fatal error: it destroys the
          // session (RST_STREAM INTERNAL_ERROR on a stream under way, no GOAWAY) and aborts the others.
          assert.ok(outcome.kind === 'closed' || outcome.kind === 'goaway', `stream ${last}: ${JSON.stringify(outcome)}; received ${conn.summary()}`);
        }
        const deadline = Date.now() + BOUND_MS;
        while (ids.slice(0, LIMITED_STREAMS).some((_, i) => !started.has(`cap-${i}`)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
        assert.equal(started.has(`cap-${LIMITED_STREAMS}`), false, `stream ${last} reached the handler`);
        assert.equal(ids.slice(0, LIMITED_STREAMS).filter((_, i) => started.has(`cap-${i}`)).length, LIMITED_STREAMS, 'the streams within the limit were served');
        assert.equal(conn.frames.filter((f) => f.streamId === last && (f.type === FRAME.HEADERS || f.type === FRAME.DATA)).length, 0, `stream ${last} got no answer`);
      },
      () => limited,
    );

    // §6.8: GOAWAY, and the idle timeout.

    check("§6.8: after a client's GOAWAY the stream under way still completes (or closes cleanly), and the server stays up", async () => {
      const conn = await raw();
      conn.send(get(1, '/slow?ms=200&id=client-goaway'), goawayFrame(0, NO_ERROR));
      const outcome = await conn.streamOutcome(1, BOUND_MS);
      if (outcome.kind === 'reset') assert.ok([NO_ERROR, REFUSED_STREAM].includes(outcome.code), `stream 1 reset with ${errorName(outcome.code)}`);
      else assertResponse(outcome, 200, 'stream 1');
      for (const f of conn.frames.filter((g) => g.type === FRAME.GOAWAY)) assert.equal(f.payload.readUInt32BE(4), NO_ERROR, conn.summary());
    });

    check(
      'an idle connection gets GOAWAY NO_ERROR after the idle timeout and is closed',
      async () => {
        // Timed from before the connection is made: the server cannot start its idle clock any sooner.
        const t0 = performance.now();
        const conn = await raw(limited.port);
        const goaway = await conn.waitForGoaway(BOUND_MS);
        assert.equal(goaway.code, NO_ERROR);
        assert.ok(performance.now() - t0 >= IDLE_MS - 5, `not before the idle timeout (${(performance.now() - t0).toFixed(0)} ms)`);
        assert.equal(await conn.closesWithin(BOUND_MS), true, 'closed');
      },
      () => limited,
    );

    // Real clients.

    check('curl --http2 gets 200 and the body, for a GET and a POST', async (t) => {
      if (!CURL_HTTP2) {
        t.skip('no curl with HTTP2 here');
        return;
      }
      const curl = async (...args: string[]): Promise<{ body: string; version: string; status: string }> => {
        const { stdout } = await execFileAsync('curl', ['--http2', '-sk', '--max-time', '10', '-w', '\n%{http_version} %{http_code}', ...args], { timeout: 15_000 });
        const cut = stdout.lastIndexOf('\n');
        const [version = '', status = ''] = stdout.slice(cut + 1).split(' ');
        return { body: stdout.slice(0, cut), version, status };
      };
      const got = await curl(`https://127.0.0.1:${server.port}/ok`);
      assert.deepEqual([got.version, got.status], ['2', '200']);
      assert.deepEqual(JSON.parse(got.body), { ok: true });
      const posted = await curl('--data-binary', 'hello curl', `https://127.0.0.1:${server.port}/echo`);
      assert.deepEqual([posted.version, posted.status], ['2', '200']);
      assert.equal((JSON.parse(posted.body) as { length: number }).length, 10);
    });

    check('h2load -c 4 -n 400 -m 10: every request succeeds', async (t) => {
      if (!H2LOAD) {
        t.skip('no h2load here (Debian: nghttp2-client)');
        return;
      }
      const { stdout } = await execFileAsync('h2load', ['-c', '4', '-n', '400', '-m', '10', `https://127.0.0.1:${server.port}/ok`], { timeout: 20_000 });
      assert.match(stdout, /Application protocol: h2/);
      const m = /requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored/.exec(stdout);
      assert.ok(m !== null, stdout);
      assert.equal(Number(m[4]), 400, `succeeded: ${m[0]}`);
      assert.match(stdout, /status codes: 400 2xx/);
    });
  });
}
