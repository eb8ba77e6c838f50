/**
 * A client worker process of the watch benchmark (forked with IPC by the
 * benchmark, several at once, so that the clients' TLS and parsing run
 * outside the benchmark process). It holds watchers (HTTP/1.1, one TLS
 * connection each, or HTTP/2 streams multiplexed on shared connections) and
 * records, per watcher and per event, the receipt time on the monotonic clock
 * (shared by every process on the machine); the delay to the writer's
 * acknowledgement is computed at the end of each step, when the benchmark
 * sends the acknowledgement times. It also runs the relist storm's clients.
 *
 * Events are found without JSON.parse: one watch event per line, the object's
 * name located by a byte search, so that a worker can take hundreds of
 * thousands of events per second. Protobuf watchers (what client-go
 * informers of built-in types use) split the stream into length-prefixed
 * frames and read the type, name and resourceVersion by offsets
 * (pbframes.ts), without decoding the object, for the same reason.
 */
import http2 from 'node:http2';
import https from 'node:https';
import tls from 'node:tls';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { Histogram } from './histogram.ts';
import { JSON_TYPE, PROTOBUF_TYPE, PROTOBUF_WATCH_TYPE } from './http.ts';
import { EventFields, eventText, FrameStream, isErrorEvent, scanWatchEvent, statusSummary } from './pbframes.ts';
import type { WatchEncoding } from './settings.ts';
import type { Conn, LevelResult, Progress, Reply, Request, StormPrepared, StormResult, WatchClosed, WatchOpened } from './protocol.ts';

const nowMs = (): number => Number(process.hrtime.bigint()) / 1e6;
const MAX_SAMPLES = 5;
const NEWLINE = 10;
const QUOTE = 34;
const ESTABLISH_TIMEOUT_MS = 60_000;

interface Watcher {
  readonly index: number;
  alive: boolean;
  established: boolean;
  /** Unfinished line carried over to the next chunk. */
  tail: Buffer | null;
  /** Protobuf watchers: the frame splitter of the stream (null for JSON). */
  readonly frames: FrameStream | null;
  close(): void;
}

class WatchSet {
  readonly watchers: Watcher[] = [];
  readonly sessions: http2.ClientHttp2Session[] = [];
  agent: https.Agent | null = null;
  readonly #pattern: Buffer;
  readonly #errorPattern = Buffer.from('"type":"ERROR"');
  /** The objects' name prefix, for Protobuf events (their names are bytes of their own, not within a JSON line). */
  readonly #prefix: Buffer;
  /** Scratch of the Protobuf scanner, reused for every frame. */
  readonly #fields = new EventFields();
  closing = false;
  dropped = 0;
  errors = 0;
  bytes = 0;
  /** Events of the run's objects since opened, whatever the step (for bytes per event). */
  events = 0;
  samples: string[] = [];
  // The current step.
  base = 0;
  count = 0;
  recv = new Float64Array(0);
  received = 0;
  duplicates = 0;
  outOfStep = 0;

  constructor(
    namePrefix: string,
    readonly encoding: WatchEncoding,
  ) {
    this.#pattern = Buffer.from(`"name":"${namePrefix}`);
    this.#prefix = Buffer.from(namePrefix);
  }

  sample(text: string): void {
    if (this.samples.length < MAX_SAMPLES) this.samples.push(text);
  }

  get alive(): number {
    let n = 0;
    for (const w of this.watchers) if (w.alive) n++;
    return n;
  }

  /** The stream of `w` ended or failed while the benchmark still listened. */
  lost(w: Watcher, why: string): void {
    if (!w.alive) return;
    w.alive = false;
    if (this.closing) return;
    this.dropped++;
    const partial = w.frames?.pending ?? 0;
    this.sample(`watcher ${w.index}: ${why}${partial > 0 ? ` (${partial} bytes of an unfinished frame left)` : ''}`);
  }

  /** The watch answered with something else than asked (status, Content-Type) after it was counted as opened. */
  failed(w: Watcher, why: string): void {
    if (w.alive && !this.closing) this.errors++;
    this.lost(w, why);
    w.close();
  }

  /** Event `seq` of the run reached watcher `w` at `t`. */
  record(w: Watcher, seq: number, t: number): void {
    this.events++;
    const off = seq - this.base;
    if (off >= 0 && off < this.count) {
      const slot = w.index * this.count + off;
      if (this.recv[slot] === 0) {
        this.recv[slot] = t;
        this.received++;
      } else this.duplicates++;
    } else this.outOfStep++;
  }

  onData(w: Watcher, chunk: Buffer): void {
    if (w.frames !== null) this.onProtobuf(w, w.frames, chunk);
    else this.onJson(w, chunk);
  }

  onProtobuf(w: Watcher, frames: FrameStream, chunk: Buffer): void {
    const t = nowMs();
    this.bytes += chunk.length;
    const err = frames.push(chunk, (buf, start, end) => this.#frame(w, buf, start, end, t));
    // A stream that cannot be framed any more is lost: counted once, as an error and a drop.
    if (err !== null && w.alive) this.failed(w, `Protobuf stream: ${err}`);
  }

  /** One Protobuf WatchEvent (buf[start, end), the length prefix excluded), received at `t`. */
  #frame(w: Watcher, buf: Buffer, start: number, end: number, t: number): void {
    const f = this.#fields;
    const err = scanWatchEvent(buf, start, end, f);
    if (err !== null) {
      this.errors++;
      this.sample(`watcher ${w.index}: unreadable Protobuf frame of ${end - start} bytes (${err}): ${buf.subarray(start, Math.min(end, start + 48)).toString('hex')}`);
      return;
    }
    if (isErrorEvent(buf, f)) {
      this.errors++;
      this.sample(`watcher ${w.index}: ERROR event: ${statusSummary(buf, f)}`);
      return;
    }
    const seq = this.#seqOf(buf, f);
    if (seq < 0) {
      this.errors++;
      this.sample(`watcher ${w.index}: unexpected event ${JSON.stringify(eventText(buf, f))}`);
      return;
    }
    this.record(w, seq, t);
  }

  /** The sequence number in an event's object name (`${namePrefix}${seq}`), or -1 for another name. */
  #seqOf(buf: Buffer, f: EventFields): number {
    const p = this.#prefix;
    const digits = f.nameStart + p.length;
    if (f.nameStart < 0 || digits >= f.nameEnd || p.compare(buf, f.nameStart, digits) !== 0) return -1;
    let seq = 0;
    for (let i = digits; i < f.nameEnd; i++) {
      const c = buf[i]! - 48;
      if (c < 0 || c > 9) return -1;
      seq = seq * 10 + c;
    }
    return seq;
  }

  onJson(w: Watcher, chunk: Buffer): void {
    const t = nowMs();
    this.bytes += chunk.length;
    let buf = chunk;
    if (w.tail !== null) {
      buf = Buffer.concat([w.tail, chunk]);
      w.tail = null;
    }
    const pat = this.#pattern;
    let pos = 0;
    for (;;) {
      const nl = buf.indexOf(NEWLINE, pos);
      if (nl < 0) break;
      const at = buf.indexOf(pat, pos);
      if (at >= 0 && at < nl) {
        let seq = 0;
        let i = at + pat.length;
        for (; i < nl; i++) {
          const c = buf[i]!;
          if (c === QUOTE) break;
          seq = seq * 10 + (c - 48);
        }
        this.record(w, seq, t);
      } else {
        const line = buf.subarray(pos, nl);
        if (line.indexOf(this.#errorPattern) >= 0) {
          this.errors++;
          this.sample(`watcher ${w.index}: ${line.toString('utf8').slice(0, 300)}`);
        } else if (line.toString('latin1').trim() !== '') {
          this.errors++;
          this.sample(`watcher ${w.index}: unexpected event ${line.toString('utf8').slice(0, 200)}`);
        }
      }
      pos = nl + 1;
    }
    if (pos < buf.length) {
      // A leading space (the server's "established" filler) or the start of an event.
      const rest = buf.subarray(pos);
      w.tail = rest.every((c) => c === 32) ? null : Buffer.from(rest);
    }
  }
}

let watchSet: WatchSet | null = null;

async function limited<T>(n: number, concurrency: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array<T>(n);
  let next = 0;
  const run = async (): Promise<void> => {
    while (next < n) {
      const i = next++;
      out[i] = await fn(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, run));
  return out;
}

function authHeaders(conn: Conn, accept: string = JSON_TYPE): Record<string, string> {
  const h: Record<string, string> = { accept };
  if (conn.token) h['authorization'] = `Bearer ${conn.token}`;
  return h;
}

/** Why a watch answer's head is not what the watcher asked for, or null when it is. */
function badHead(encoding: WatchEncoding, status: number, contentType: string | string[] | undefined): string | null {
  if (status !== 200) return `status ${status}`;
  if (encoding !== 'protobuf') return null;
  const got = String(contentType ?? '').replace(/\s+/g, '').toLowerCase();
  return got === PROTOBUF_WATCH_TYPE ? null : `Content-Type ${contentType === undefined ? '(none)' : String(contentType)}, expected ${PROTOBUF_WATCH_TYPE}`;
}

function newWatcher(set: WatchSet, index: number, close: () => void): Watcher {
  const w: Watcher = { index, alive: false, established: false, tail: null, frames: set.encoding === 'protobuf' ? new FrameStream() : null, close };
  set.watchers[index] = w;
  return w;
}

/**
 * Calls `cb` once the whole request is written on an established TLS
 * connection (the agent makes a new connection per watch). Why Protobuf
 * watches on HTTP/1.1 count as opened then, not at the response head: uWS
 * cannot send a head alone and a Protobuf stream has no filler to carry it,
 * so the head comes with the first event, and waiting for it would hold
 * every watcher until the first write. The watch starts at a
 * resourceVersion, so no event is missed however late the server registers
 * it; the head is checked when it comes (status, Content-Type), and the
 * warm-up step shows every watcher getting its events.
 */
function whenSent(req: ClientRequest, cb: () => void): void {
  let connected = false;
  let finished = false;
  const check = (): void => {
    if (connected && finished) cb();
  };
  req.on('socket', (sock) =>
    sock.once('secureConnect', () => {
      connected = true;
      check();
    }),
  );
  req.on('finish', () => {
    finished = true;
    check();
  });
}

/** Opens one HTTP/1.1 watch on its own TLS connection; resolves once the response head is in (Protobuf: see whenSent). */
function openH1(set: WatchSet, index: number, agent: https.Agent, conn: Conn, path: string): Promise<string | null> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (err: string | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(err);
    };
    let req: ClientRequest | null = null;
    const w = newWatcher(set, index, () => req?.destroy());
    const establish = (): void => {
      if (w.established) return;
      w.alive = true;
      w.established = true;
      settle(null);
    };
    // Before it counts as opened, a bad answer is a failure to open; after, an error and a drop.
    const fail = (why: string): void => (w.established ? set.failed(w, why) : settle(why));
    const timer = setTimeout(() => {
      req?.destroy(new Error(`no response head within ${ESTABLISH_TIMEOUT_MS} ms`));
    }, ESTABLISH_TIMEOUT_MS);
    const accept = set.encoding === 'protobuf' ? PROTOBUF_TYPE : JSON_TYPE;
    req = https.request(
      { host: '127.0.0.1', port: conn.port, path, method: 'GET', headers: authHeaders(conn, accept), agent },
      (res: IncomingMessage) => {
        if (res.statusCode !== 200) {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => fail(`status ${res.statusCode}: ${Buffer.concat(chunks).toString('utf8').slice(0, 200)}`));
          return;
        }
        const wrong = badHead(set.encoding, 200, res.headers['content-type']);
        if (wrong !== null) {
          fail(wrong);
          req?.destroy();
          return;
        }
        establish();
        res.on('data', (c: Buffer) => set.onData(w, c));
        res.on('end', () => set.lost(w, 'stream ended by the server'));
        res.on('aborted', () => set.lost(w, 'response aborted'));
        res.on('error', (e: Error) => set.lost(w, `response error: ${e.message}`));
        res.on('close', () => set.lost(w, 'connection closed'));
      },
    );
    if (set.encoding === 'protobuf') {
      whenSent(req, establish);
      // Opened before the head (see whenSent): a connection closed before it is a drop.
      req.on('close', () => set.lost(w, 'connection closed before the response head'));
    }
    req.on('error', (e: Error) => {
      if (!w.established) settle(`request error: ${e.message}`);
      else set.lost(w, `socket error: ${e.message}`);
    });
    req.end();
  });
}

async function connectH2(conn: Conn): Promise<http2.ClientHttp2Session> {
  const session = http2.connect(`https://127.0.0.1:${conn.port}`, { ca: conn.caPem, settings: { initialWindowSize: 4 << 20 } });
  await new Promise<void>((resolve, reject) => {
    session.once('connect', () => resolve());
    session.once('error', reject);
  });
  session.setLocalWindowSize(1 << 30);
  return session;
}

function openH2(set: WatchSet, index: number, session: http2.ClientHttp2Session, conn: Conn, path: string): Promise<string | null> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (err: string | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(err);
    };
    const accept = set.encoding === 'protobuf' ? PROTOBUF_TYPE : JSON_TYPE;
    const stream = session.request({ ':method': 'GET', ':path': path, ...authHeaders(conn, accept) }, { endStream: true });
    const w = newWatcher(set, index, () => stream.close(http2.constants.NGHTTP2_CANCEL));
    const timer = setTimeout(() => {
      stream.close(http2.constants.NGHTTP2_CANCEL);
      settle(`no response head within ${ESTABLISH_TIMEOUT_MS} ms`);
    }, ESTABLISH_TIMEOUT_MS);
    stream.on('response', (h) => {
      const wrong = badHead(set.encoding, Number(h[':status'] ?? 0), h['content-type']);
      if (wrong !== null) {
        settle(wrong);
        if (h[':status'] === 200) stream.close(http2.constants.NGHTTP2_CANCEL);
        return;
      }
      w.alive = true;
      w.established = true;
      settle(null);
    });
    stream.on('data', (c: Buffer) => {
      if (w.established) set.onData(w, c);
    });
    stream.on('end', () => set.lost(w, 'stream ended by the server'));
    stream.on('error', (e: Error) => {
      if (!w.established) settle(`stream error: ${e.message}`);
      else set.lost(w, `stream error: ${e.message}`);
    });
    stream.on('close', () => {
      if (!w.established) settle(`stream closed before the head (code ${stream.rstCode})`);
      else set.lost(w, `stream closed (code ${stream.rstCode})`);
    });
  });
}

async function watchOpen(m: Extract<Request, { t: 'watch-open' }>): Promise<WatchOpened> {
  if (watchSet !== null) throw new Error('watchers already open');
  const set = new WatchSet(m.namePrefix, m.encoding);
  watchSet = set;
  const t0 = nowMs();
  let errs: Array<string | null>;
  if (m.proto === 'h1') {
    // One agent (one TLS context) for all; each watch holds a socket of its own.
    const agent = new https.Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY, ca: m.conn.caPem });
    set.agent = agent;
    errs = await limited(m.count, m.connectConcurrency, (i) => openH1(set, i, agent, m.conn, m.path));
  } else {
    const nConn = Math.ceil(m.count / m.streamsPerConn);
    const sessions = await limited(nConn, Math.min(nConn, 16), () => connectH2(m.conn));
    for (const s of sessions) {
      set.sessions.push(s);
      s.on('error', (e: Error) => set.sample(`session error: ${e.message}`));
      s.on('goaway', (code: number) => set.sample(`GOAWAY from the server (code ${code})`));
    }
    errs = await limited(m.count, m.connectConcurrency, (i) => openH2(set, i, sessions[Math.floor(i / m.streamsPerConn)]!, m.conn, m.path));
  }
  const failed = errs.filter((e) => e !== null) as string[];
  // A watch that could not be opened is not a drop: it is reported as a failure to open.
  return { opened: m.count - failed.length, failed: failed.length, samples: failed.slice(0, MAX_SAMPLES), ms: nowMs() - t0 };
}

function levelStart(m: Extract<Request, { t: 'level-start' }>): null {
  const set = watchSet!;
  set.base = m.base;
  set.count = m.count;
  set.recv = new Float64Array(set.watchers.length * m.count);
  set.received = 0;
  set.duplicates = 0;
  set.outOfStep = 0;
  return null;
}

function progress(): Progress {
  const set = watchSet;
  if (set === null) return { received: 0, alive: 0, dropped: 0, errors: 0 };
  return { received: set.received, alive: set.alive, dropped: set.dropped, errors: set.errors };
}

function levelEnd(m: Extract<Request, { t: 'level-end' }>): LevelResult {
  const set = watchSet!;
  const hist = new Histogram();
  const histSend = new Histogram();
  let missingAlive = 0;
  let missingDropped = 0;
  let firstRecv = Number.POSITIVE_INFINITY;
  let lastRecv = Number.NEGATIVE_INFINITY;
  const count = set.count;
  for (const w of set.watchers) {
    if (!w.established) continue;
    const row = w.index * count;
    for (let off = 0; off < count; off++) {
      const ack = m.acks[off];
      if (ack === null || ack === undefined) continue;
      const r = set.recv[row + off]!;
      if (r === 0) {
        if (w.alive) missingAlive++;
        else missingDropped++;
        continue;
      }
      hist.add(r - ack);
      const sent = m.sends[off];
      if (sent !== null && sent !== undefined) histSend.add(r - sent);
      if (r < firstRecv) firstRecv = r;
      if (r > lastRecv) lastRecv = r;
    }
  }
  const samples = set.samples;
  set.samples = [];
  return {
    hist: hist.summary(),
    histSend: histSend.summary(),
    received: set.received,
    missingAlive,
    missingDropped,
    duplicates: set.duplicates,
    outOfStep: set.outOfStep,
    firstRecv,
    lastRecv,
    alive: set.alive,
    dropped: set.dropped,
    errors: set.errors,
    samples,
  };
}

async function watchClose(): Promise<WatchClosed> {
  const set = watchSet;
  if (set === null) return { dropped: 0, errors: 0, samples: [], bytes: 0, events: 0 };
  set.closing = true;
  for (const w of set.watchers) if (w) w.close();
  await Promise.all(
    set.sessions.map(
      (s) =>
        new Promise<void>((resolve) => {
          const t = setTimeout(() => {
            s.destroy();
            resolve();
          }, 2000);
          s.close(() => {
            clearTimeout(t);
            resolve();
          });
        }),
    ),
  );
  set.agent?.destroy();
  watchSet = null;
  return { dropped: set.dropped, errors: set.errors, samples: set.samples, bytes: set.bytes, events: set.events };
}

// ---- relist storm ----

interface StormClient {
  readonly agent: https.Agent;
}

let storm: { clients: StormClient[]; conn: Conn } | null = null;

function stormRequest(c: StormClient, conn: Conn, path: string, timeoutMs: number): Promise<{ status: number; bytes: number; err: string | null }> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (status: number, bytes: number, err: string | null): void => {
      if (done) return;
      done = true;
      resolve({ status, bytes, err });
    };
    const req = https.request({ host: '127.0.0.1', port: conn.port, path, method: 'GET', headers: authHeaders(conn), agent: c.agent }, (res) => {
      const status = res.statusCode ?? 0;
      let bytes = 0;
      const keep = status !== 200;
      const chunks: Buffer[] = [];
      res.on('data', (b: Buffer) => {
        bytes += b.length;
        if (keep && bytes < 4096) chunks.push(b);
      });
      res.on('end', () => finish(status, bytes, keep ? `status ${status}: ${Buffer.concat(chunks).toString('utf8').slice(0, 200)}` : null));
      res.on('aborted', () => finish(0, bytes, 'response aborted'));
      res.on('error', (e: Error) => finish(0, bytes, `response error: ${e.message}`));
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (e: Error) => finish(0, 0, `request error: ${e.message}`));
    req.end();
  });
}

async function stormPrepare(m: Extract<Request, { t: 'storm-prepare' }>): Promise<StormPrepared> {
  if (storm !== null) throw new Error('storm clients already prepared');
  const clients: StormClient[] = [];
  // One TLS context shared; one agent (one keep-alive connection) per client.
  const secureContext = tls.createSecureContext({ ca: m.conn.caPem, ...(m.conn.certPem ? { cert: m.conn.certPem, key: m.conn.keyPem } : {}) });
  for (let i = 0; i < m.count; i++) clients.push({ agent: new https.Agent({ keepAlive: true, maxSockets: 1, secureContext }) });
  storm = { clients, conn: m.conn };
  // One cheap request each, so every client holds an open keep-alive connection before the storm.
  const res = await limited(m.count, m.connectConcurrency, (i) => stormRequest(clients[i]!, m.conn, '/version', 60_000));
  const failed = res.filter((r) => r.err !== null);
  return { ready: m.count - failed.length, failed: failed.length, samples: failed.slice(0, MAX_SAMPLES).map((r) => r.err!) };
}

async function stormGo(m: Extract<Request, { t: 'storm-go' }>): Promise<StormResult> {
  const s = storm!;
  const t0 = nowMs();
  const results = await Promise.all(
    s.clients.map(async (c) => {
      const r = await stormRequest(c, s.conn, m.path, m.timeoutMs);
      return { ...r, ms: nowMs() - t0 };
    }),
  );
  const samples: string[] = [];
  const seen = new Set<string>();
  for (const r of results) {
    if (r.err === null) continue;
    const key = r.err.slice(0, 60);
    if (seen.has(key) || samples.length >= MAX_SAMPLES) continue;
    seen.add(key);
    samples.push(r.err);
  }
  return { ms: results.map((r) => r.ms), status: results.map((r) => r.status), bytes: results.map((r) => r.bytes), samples };
}

function stormClose(): null {
  if (storm !== null) for (const c of storm.clients) c.agent.destroy();
  storm = null;
  return null;
}

async function handle(m: Request): Promise<unknown> {
  switch (m.t) {
    case 'watch-open':
      return watchOpen(m);
    case 'level-start':
      return levelStart(m);
    case 'progress':
      return progress();
    case 'level-end':
      return levelEnd(m);
    case 'watch-close':
      return watchClose();
    case 'storm-prepare':
      return stormPrepare(m);
    case 'storm-go':
      return stormGo(m);
    case 'storm-close':
      return stormClose();
  }
}

process.on('message', (raw: unknown) => {
  const { id, msg } = raw as { id: number; msg: Request };
  handle(msg).then(
    (result) => process.send!({ id, ok: true, result } satisfies Reply),
    (err: unknown) => process.send!({ id, ok: false, error: err instanceof Error ? (err.stack ?? err.message) : String(err) } satisfies Reply),
  );
});
// The benchmark going away (even by SIGKILL) closes the IPC channel: leave with it.
process.on('disconnect', () => process.exit(0));
