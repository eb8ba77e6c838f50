/**
 * Starts a real orch-apiserver in this process on free loopback ports with a
 * fresh data dir, and gives tests a kubectl runner and an HTTPS client using
 * the generated admin credentials.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { processApiFlavor } from '../../src/naming/flavor.ts';
import { parseArgs } from '../../src/server/options.ts';
import { createLogger, type LogDestination, type LogLevel } from '../../src/server/logging.ts';
import { startServer, type RunningServer } from '../../src/server/server.ts';
import { uwsPortArg } from './uws-toggle.ts';

const STOP_WATCHDOG_MS = 90_000;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The body's bytes (for binary answers such as Protobuf). */
  raw: Buffer;
  json<T = Record<string, unknown>>(): T;
}

export interface RequestAuth {
  /** 'admin' (client certificate), 'token' (the admin bearer token), 'none', or an explicit bearer token. */
  as?: 'admin' | 'token' | 'none' | { token: string };
  /** Send to the uWS listener instead of the secure port. */
  uws?: boolean;
  headers?: Record<string, string>;
}

export interface WatchStream {
  status: number;
  events: Array<{ type: string; object: { kind?: string; apiVersion?: string; code?: number; reason?: string; metadata: { name?: string; resourceVersion?: string; annotations?: Record<string, string> } } }>;
  ended: boolean;
  until(pred: () => boolean, what: string, timeoutMs?: number): Promise<void>;
  close(): void;
}

export interface TestServer {
  server: RunningServer;
  dataDir: string;
  securePort: number;
  uwsPort: number | null;
  kubeconfig: string;
  tokenKubeconfig: string;
  kubectl(args: string[], opts?: { kubeconfig?: string; input?: string; timeoutMs?: number }): Promise<{ code: number; stdout: string; stderr: string }>;
  request(method: string, urlPath: string, body?: unknown, auth?: RequestAuth): Promise<HttpAnswer>;
  /** Opens a watch (or any streamed GET) and collects its JSON lines. */
  watch(urlPath: string, auth?: RequestAuth): Promise<WatchStream>;
  stop(): Promise<void>;
}

export async function startTestServer(
  extraArgs: string[] = [],
  opts: { dataDir?: string; logs?: { level: LogLevel; destination: LogDestination } } = {},
): Promise<TestServer> {
  const freshDir = (): Promise<string> => fs.mkdtemp(path.join(os.tmpdir(), 'orch-e2e-'));
  let dataDir = opts.dataDir ?? (await freshDir());
  const logger = createLogger(opts.logs ?? { level: (process.env['ORCH_TEST_LOG'] as 'info' | undefined) ?? 'silent' });
  // A free port can be taken by a parallel test file between freePort() and the server's listen; the server
  // cleans up after a failed start, so another pair of ports is tried, in a new data dir when the dir is ours
  // (a real listen fault fails every try).
  let server: RunningServer | undefined;
  for (let attempt = 1; server === undefined; attempt++) {
    try {
      server = await startServer(await testServerOptions(dataDir, extraArgs), logger);
    } catch (err) {
      const lostPort = err instanceof Error && /could not listen|EADDRINUSE/.test(`${err.message} ${(err as NodeJS.ErrnoException).code ?? ''}`);
      if (!lostPort || attempt >= 3) throw err;
      // The failed start may have written objects that name its ports (cluster-info, never overwritten, as the
      // original's set-up tool leaves it): a data dir of our own starts again empty.
      if (opts.dataDir === undefined) {
        await fs.rm(dataDir, { recursive: true, force: true });
        dataDir = await freshDir();
      }
    }
  }
  return connectTestServer(server, dataDir, opts.dataDir === undefined);
}

async function testServerOptions(dataDir: string, extraArgs: string[]): Promise<ReturnType<typeof parseArgs>> {
  const securePort = await freePort();
  const uwsPort = await freePort();
  return parseArgs([
    `--secure-port=${securePort}`,
    `--uws-port=${uwsPortArg(uwsPort)}`,
    '--bind-address=127.0.0.1',
    `--data-dir=${dataDir}`,
    '--shards=2',
    // One serving thread unless a test asks for more (or ORCH_TEST_FRONTEND_THREADS runs the suite with more).
    `--frontend-threads=${process.env['ORCH_TEST_FRONTEND_THREADS'] ?? '1'}`,
    // Every serving thread on the uWS port too (the server's default leaves one out), unless a test says otherwise.
    '--uws-threads=256',
    // The process's flavor (test/support/kubernetes-flavor.ts); extraArgs may contradict it on purpose.
    `--api-flavor=${processApiFlavor()}`,
    // The root CA config map the publisher puts in every namespace would show in the exact namespace lists
    // older tests compare; tests of the controllers pass --controllers themselves (the last flag wins).
    ...(extraArgs.some((a) => a.startsWith('--controllers')) ? [] : ['--controllers=*,-root-ca-cert-publisher']),
    ...extraArgs,
  ]);
}

async function connectTestServer(server: RunningServer, dataDir: string, ownsDataDir: boolean): Promise<TestServer> {
  const files = server.files;
  const [ca, cert, key] = await Promise.all([fs.readFile(files.caCertPath), fs.readFile(files.adminCertPath), fs.readFile(files.adminKeyPath)]);
  const agent = new https.Agent({ ca, keepAlive: true });
  const certAgent = new https.Agent({ ca, cert, key, keepAlive: true });

  const request = (method: string, urlPath: string, body?: unknown, auth: RequestAuth = {}): Promise<HttpAnswer> =>
    new Promise((resolve, reject) => {
      const as = auth.as ?? 'admin';
      const headers: Record<string, string> = { accept: 'application/json', ...(auth.headers ?? {}) };
      if (as === 'token') headers['authorization'] = `Bearer ${files.adminToken}`;
      else if (typeof as === 'object') headers['authorization'] = `Bearer ${as.token}`;
      let payload: Buffer | undefined;
      if (body !== undefined) {
        payload = body instanceof Uint8Array ? Buffer.from(body) : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
        headers['content-type'] ??= 'application/json';
        headers['content-length'] = String(payload.length);
      }
      const port = auth.uws ? server.uwsPort! : server.securePort;
      const req = https.request(
        { host: '127.0.0.1', port, method, path: urlPath, headers, agent: as === 'admin' ? certAgent : agent, servername: 'localhost' },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const raw = Buffer.concat(chunks);
            const text = raw.toString('utf8');
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, raw, json: <T>() => JSON.parse(text) as T });
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });

  const watch = (urlPath: string, auth: RequestAuth = {}): Promise<WatchStream> =>
    new Promise((resolve, reject) => {
      const as = auth.as ?? 'admin';
      const headers: Record<string, string> = { accept: 'application/json', ...(auth.headers ?? {}) };
      if (as === 'token') headers['authorization'] = `Bearer ${files.adminToken}`;
      const port = auth.uws ? server.uwsPort! : server.securePort;
      const req = https.request({ host: '127.0.0.1', port, method: 'GET', path: urlPath, headers, agent: as === 'admin' ? certAgent : agent, servername: 'localhost' }, (res) => {
        const stream: WatchStream = {
          status: res.statusCode ?? 0,
          events: [],
          ended: false,
          until: async (pred, what, timeoutMs = 15_000) => {
            const deadline = Date.now() + timeoutMs;
            while (!pred()) {
              if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; got ${JSON.stringify(stream.events.map((e) => e.type))}`);
              await new Promise((r) => setTimeout(r, 20));
            }
          },
          close: () => req.destroy(),
        };
        let buf = '';
        res.on('data', (chunk: Buffer) => {
          buf += chunk.toString('utf8');
          const lines = buf.split('\n');
          buf = lines.pop()!;
          for (const line of lines) if (line.trim() !== '') stream.events.push(JSON.parse(line) as WatchStream['events'][number]);
        });
        res.on('end', () => (stream.ended = true));
        res.on('close', () => (stream.ended = true));
        res.on('error', () => (stream.ended = true));
        resolve(stream);
      });
      req.on('error', (err) => reject(err));
      req.end();
    });

  const kubectl: TestServer['kubectl'] = (args, o = {}) =>
    new Promise((resolve) => {
      const child = execFile(
        'kubectl',
        ['--kubeconfig', o.kubeconfig ?? files.adminKubeconfigPath, ...args],
        { timeout: o.timeoutMs ?? 60_000, maxBuffer: 256 * 1024 * 1024, env: { ...process.env, KUBECACHEDIR: path.join(dataDir, '.kube-cache'), HOME: dataDir } },
        (err, stdout, stderr) => {
          const code = err === null ? 0 : typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : 1;
          resolve({ code, stdout, stderr });
        },
      );
      if (o.input !== undefined) child.stdin?.end(o.input);
    });

  return {
    server,
    dataDir,
    securePort: server.securePort,
    uwsPort: server.uwsPort,
    kubeconfig: files.adminKubeconfigPath,
    tokenKubeconfig: files.adminTokenKubeconfigPath,
    kubectl,
    request,
    watch,
    stop: async () => {
      agent.destroy();
      certAgent.destroy();
      // A server that does not stop fails the test that stops it instead of stalling the whole run.
      let timer: NodeJS.Timeout | undefined;
      const watchdog = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the test server did not stop within ${STOP_WATCHDOG_MS / 1000} s`)), STOP_WATCHDOG_MS);
      });
      try {
        await Promise.race([server.close(), watchdog]);
      } finally {
        clearTimeout(timer);
      }
      if (ownsDataDir) await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}
