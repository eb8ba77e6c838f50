/**
 * Graceful shutdown of the real process (`node --import tsx src/main.ts`)
 * under load: writers keep creating ConfigMaps and watches are open on both
 * front ends (node:http2 over HTTP/2 and HTTP/1.1, uWS) when SIGTERM
 * arrives. Checked: /readyz fails at once while /livez and /healthz pass and
 * writes still succeed during --shutdown-delay-duration; after it, new
 * requests get 429 with Retry-After and Connection: close
 * (--shutdown-send-retry-after); every watcher's stream ends cleanly (no
 * reset, every line a whole JSON event); the process exits 0; and every
 * write that was acknowledged is there after a restart on the same data dir.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http2 from 'node:http2';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../support/test-server.ts';
import { loadUws } from '../../src/frontends/uws-loader.ts';
import { startEtcd } from '../support/etcd-server.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const START_TIMEOUT_MS = 90_000;

interface Child {
  proc: ChildProcess;
  securePort: number;
  uwsPort: number;
  exited: Promise<number | null>;
  stderr(): string;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

const dirs: string[] = [];
after(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function startChild(dataDir: string, extra: string[]): Promise<Child> {
  const securePort = await freePort();
  const uwsPort = loadUws() === null ? 0 : await freePort();
  const proc = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/main.ts',
      `--data-dir=${dataDir}`,
      `--secure-port=${securePort}`,
      `--uws-port=${uwsPort}`,
      '--bind-address=127.0.0.1',
      '--shards=1',
      '--log-level=warn',
      ...extra,
    ],
    { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let err = '';
  proc.stderr!.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-20_000)));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const child: Child = { proc, securePort, uwsPort, exited, stderr: () => err };
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`server exited with ${proc.exitCode}: ${err}`);
    if (Date.now() > deadline) throw new Error(`server did not become ready: ${err}`);
    const ok = await get(dataDir, securePort, '/readyz').then(
      (a) => a.status === 200,
      () => false,
    );
    if (ok) return child;
    await sleep(250);
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function credentials(dataDir: string): Promise<{ ca: Buffer; token: string }> {
  const [ca, tokens] = await Promise.all([readFile(path.join(dataDir, 'ca.crt')), readFile(path.join(dataDir, 'tokens.csv'), 'utf8')]);
  return { ca, token: tokens.split('\n')[0]!.split(',')[0]! };
}

/** One HTTP/1.1 request on a fresh connection (no keep-alive agent). */
async function request(dataDir: string, port: number, method: string, urlPath: string, body?: unknown): Promise<Answer> {
  const { ca, token } = await credentials(dataDir);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: urlPath,
        ca,
        agent: false,
        headers: { authorization: `Bearer ${token}`, ...(payload !== undefined ? { 'content-type': 'application/json' } : {}) },
        timeout: 20_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.end(payload);
  });
}

/**
 * A create whose body arrives in two parts: in flight from its first byte
 * until `finish()` sends the rest. It holds the server's drain open.
 */
async function slowCreate(dataDir: string, port: number, name: string): Promise<{ finish(): void; answer: Promise<Answer> }> {
  const { ca, token } = await credentials(dataDir);
  const payload = Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: name } }));
  let req: ReturnType<typeof https.request> | undefined;
  const answer = new Promise<Answer>((resolve, reject) => {
    req = https.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/api/v1/namespaces/default/configmaps',
        ca,
        agent: false,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': String(payload.length) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.flushHeaders();
    req.write(payload.subarray(0, 10));
  });
  return { finish: () => req!.end(payload.subarray(10)), answer };
}

const get = (dataDir: string, port: number, urlPath: string): Promise<Answer> => request(dataDir, port, 'GET', urlPath);

interface WatchResult {
  lines: string[];
  /** 'end': the stream ended cleanly; anything else says how it broke. */
  outcome: Promise<string>;
}

/** A watch over HTTP/1.1 (the node front end or uWS). */
async function watchH1(dataDir: string, port: number, urlPath: string): Promise<WatchResult> {
  const { ca, token } = await credentials(dataDir);
  const lines: string[] = [];
  let rest = '';
  const outcome = new Promise<string>((resolve) => {
    const req = https.get({ host: '127.0.0.1', port, path: urlPath, ca, agent: false, headers: { authorization: `Bearer ${token}` } }, (res) => {
      if (res.statusCode !== 200) resolve(`status ${res.statusCode}`);
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        const parts = (rest + d).split('\n');
        rest = parts.pop()!;
        lines.push(...parts.filter((l) => l.trim() !== ''));
      });
      res.on('aborted', () => resolve('aborted'));
      res.on('error', (e) => resolve(`error ${e.message}`));
      res.on('end', () => resolve(rest.trim() === '' ? 'end' : `partial frame ${JSON.stringify(rest.slice(0, 80))}`));
    });
    req.on('error', (e) => resolve(`error ${e.message}`));
  });
  return { lines, outcome };
}

/** A watch over HTTP/2 (the node front end). */
async function watchH2(dataDir: string, port: number, urlPath: string): Promise<WatchResult> {
  const { ca, token } = await credentials(dataDir);
  const lines: string[] = [];
  let rest = '';
  const session = http2.connect(`https://127.0.0.1:${port}`, { ca });
  session.on('error', () => {});
  const outcome = new Promise<string>((resolve) => {
    const stream = session.request({ ':path': urlPath, authorization: `Bearer ${token}` });
    stream.setEncoding('utf8');
    stream.on('response', (h) => {
      if (h[':status'] !== 200) resolve(`status ${h[':status']}`);
    });
    stream.on('data', (d: string) => {
      const parts = (rest + d).split('\n');
      rest = parts.pop()!;
      lines.push(...parts.filter((l) => l.trim() !== ''));
    });
    stream.on('error', (e) => resolve(`error ${e.message}`));
    stream.on('close', () => {
      if (stream.rstCode !== http2.constants.NGHTTP2_NO_ERROR) resolve(`reset ${stream.rstCode}`);
      else resolve(rest.trim() === '' ? 'end' : `partial frame ${JSON.stringify(rest.slice(0, 80))}`);
      session.close();
    });
  });
  return { lines, outcome };
}

describe('graceful shutdown of the server process (SIGTERM under load)', () => {
  for (const backend of ['embedded', 'etcd3'] as const) {
    it(`fails readyz first, serves through the delay, answers 429 + Retry-After after it, ends every watch cleanly, exits 0, loses no acknowledged write (${backend})`, async () => {
      const dataDir = await mkdtemp(path.join(tmpdir(), 'orch-shutdown-'));
      dirs.push(dataDir);
      const etcd = backend === 'etcd3' ? await startEtcd() : null;
      const store = etcd === null ? [] : ['--storage-backend=etcd3', `--etcd-servers=${etcd.endpoint}`];
      try {
        const DELAY_MS = 3000;
        const child = await startChild(dataDir, [`--shutdown-delay-duration=${DELAY_MS}ms`, '--shutdown-send-retry-after', '--frontend-threads=2', ...store]);
        const ports = [child.securePort, ...(child.uwsPort !== 0 ? [child.uwsPort] : [])];
        const watchPath = '/api/v1/namespaces/default/configmaps?watch=true';
        const watches = [await watchH2(dataDir, child.securePort, watchPath), await watchH1(dataDir, child.securePort, watchPath)];
        if (child.uwsPort !== 0) watches.push(await watchH1(dataDir, child.uwsPort, watchPath));

        // Writers: create ConfigMaps until the server turns them away.
        const acknowledged: string[] = [];
        const turnedAway: Answer[] = [];
        let stopWriters = false;
        let n = 0;
        let ackedAfterSigterm = 0;
        let sigtermAt = Infinity;
        const writer = async (port: number): Promise<void> => {
          while (!stopWriters) {
            const name = `cm-${n++}`;
            try {
              const a = await request(dataDir, port, 'POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: name } });
              if (a.status === 201) {
                acknowledged.push(name);
                if (Date.now() > sigtermAt) ackedAfterSigterm++;
              } else {
                turnedAway.push(a);
                if (a.status === 429) await sleep(50);
              }
            } catch {
              await sleep(50); // refused once the listeners closed
            }
          }
        };
        const writers = [...ports, ...ports].map((p) => writer(p));
        await sleep(1000);
        assert.ok(acknowledged.length > 0, `no write acknowledged before SIGTERM: ${JSON.stringify(turnedAway.slice(0, 2))}`);

        // In flight across the whole delay: the listeners stay open (429s) until it is done.
        const slow = await slowCreate(dataDir, child.securePort, 'slow-one');
        await sleep(200);
        sigtermAt = Date.now();
        child.proc.kill('SIGTERM');
        // readyz fails at once; livez and healthz pass during the delay.
        const stage = async <T>(what: string, p: Promise<T>): Promise<T> => {
          try {
            return await p;
          } catch (err) {
            await sleep(500);
            throw new Error(`${what} at ${Date.now() - sigtermAt} ms after SIGTERM: ${err instanceof Error ? err.message : String(err)} (server exit ${child.proc.exitCode} ${child.proc.signalCode}) ${child.stderr()}`);
          }
        };
        let readyz = await stage('readyz', get(dataDir, child.securePort, '/readyz?verbose'));
        for (let i = 0; i < 20 && readyz.status === 200; i++) readyz = await stage('readyz', get(dataDir, child.securePort, '/readyz?verbose'));
        assert.equal(readyz.status, 500, readyz.body);
        assert.match(readyz.body, /\[-\]shutdown failed/);
        assert.ok(Date.now() - sigtermAt < DELAY_MS, 'readyz check ran within the delay');
        for (const port of ports) {
          assert.equal((await stage('livez', get(dataDir, port, '/livez'))).status, 200);
          assert.equal((await stage('healthz', get(dataDir, port, '/healthz'))).status, 200);
        }

        // After the delay: 429 with Retry-After and Connection: close, on every front end.
        const rejections: Answer[] = [];
        for (const port of ports) {
          let a: Answer | undefined;
          for (let i = 0; i < 200; i++) {
            a = await get(dataDir, port, '/api/v1/namespaces/default/configmaps?limit=1').catch(() => undefined);
            if (a?.status === 429) break;
            await sleep(50);
          }
          assert.ok(a !== undefined && a.status === 429, `port ${port}: no 429 after the delay (last ${a?.status})`);
          rejections.push(a);
        }
        assert.ok(Date.now() - sigtermAt >= DELAY_MS - 100, 'the 429s came only after the delay');
        // The request in flight since before SIGTERM still completes, and is acknowledged.
        slow.finish();
        const slowAnswer = await slow.answer;
        assert.equal(slowAnswer.status, 201, slowAnswer.body);
        acknowledged.push('slow-one');
        for (const a of rejections) {
          assert.equal(a.headers['retry-after'], '5');
          assert.equal(a.headers['connection'], 'close', JSON.stringify(a.headers));
          assert.equal(a.body, 'The apiserver is shutting down, please try again later.\n');
        }

        assert.equal(await child.exited, 0, child.stderr());
        stopWriters = true;
        await Promise.all(writers);
        assert.ok(ackedAfterSigterm > 0, 'writes were still served during the shutdown delay');

        for (const w of watches) {
          assert.equal(await w.outcome, 'end', 'every watch ends cleanly');
          for (const line of w.lines) assert.doesNotThrow(() => JSON.parse(line), `a whole event: ${line.slice(0, 80)}`);
          assert.ok(w.lines.length > 0, 'the watch saw events before its end');
        }

        // Restart on the same data dir: every acknowledged write is there.
        const again = await startChild(dataDir, store);
        try {
          const list = await get(dataDir, again.securePort, '/api/v1/namespaces/default/configmaps');
          assert.equal(list.status, 200);
          const stored = new Set((JSON.parse(list.body) as { items: { metadata: { name: string } }[] }).items.map((i) => i.metadata.name));
          const lost = acknowledged.filter((name) => !stored.has(name));
          assert.deepEqual(lost, [], `${acknowledged.length} acknowledged, lost: ${lost.join(', ')}`);
        } finally {
          again.proc.kill('SIGTERM');
          assert.equal(await again.exited, 0, again.stderr());
        }
      } finally {
        await etcd?.stop();
      }
    });
  }

  it('without --shutdown-send-retry-after closes the listeners after the delay (new connections refused) while the request in flight completes', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'orch-shutdown-'));
    dirs.push(dataDir);
    const child = await startChild(dataDir, ['--shutdown-delay-duration=1s', '--frontend-threads=2']);
    const ports = [child.securePort, ...(child.uwsPort !== 0 ? [child.uwsPort] : [])];
    const watchPath = '/api/v1/namespaces/default/configmaps?watch=true';
    const watches = [await watchH2(dataDir, child.securePort, watchPath)];
    if (child.uwsPort !== 0) watches.push(await watchH1(dataDir, child.uwsPort, watchPath));
    const slow = await slowCreate(dataDir, child.securePort, 'slow-two');
    await sleep(200);
    const sigtermAt = Date.now();
    child.proc.kill('SIGTERM');
    // Served during the delay.
    const during = await request(dataDir, child.uwsPort || child.securePort, 'POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'during-delay' } });
    assert.equal(during.status, 201, during.body);
    // After it: every listener refuses new connections.
    for (const port of ports) {
      let outcome = '';
      for (let i = 0; i < 200; i++) {
        outcome = await get(dataDir, port, '/api/v1/namespaces/default/configmaps?limit=1').then(
          (a) => `status ${a.status}`,
          (e: NodeJS.ErrnoException) => e.code ?? e.message,
        );
        if (outcome === 'ECONNREFUSED') break;
        await sleep(50);
      }
      assert.equal(outcome, 'ECONNREFUSED', `port ${port}`);
    }
    assert.ok(Date.now() - sigtermAt >= 900, 'refused only after the delay');
    assert.equal(child.proc.exitCode, null, 'still draining the request in flight');
    slow.finish();
    const answer = await slow.answer;
    assert.equal(answer.status, 201, answer.body);
    assert.equal(await child.exited, 0, child.stderr());
    for (const w of watches) {
      assert.equal(await w.outcome, 'end', 'every watch ends cleanly');
      for (const line of w.lines) assert.doesNotThrow(() => JSON.parse(line), `a whole event: ${line.slice(0, 80)}`);
    }
    const again = await startChild(dataDir, []);
    try {
      for (const name of ['slow-two', 'during-delay']) assert.equal((await get(dataDir, again.securePort, `/api/v1/namespaces/default/configmaps/${name}`)).status, 200, name);
    } finally {
      again.proc.kill('SIGTERM');
      assert.equal(await again.exited, 0, again.stderr());
    }
  });
});
