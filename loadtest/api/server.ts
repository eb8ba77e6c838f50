/**
 * The server under test as a child process (`node dist/src/main.js`, compiled),
 * so that its RSS (all threads) is measurable by pid and the load generator
 * runs in a process of its own. Children are killed when this process exits,
 * also on an error or SIGINT/SIGTERM.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEtcd, etcdVersion, type EtcdServer } from '../../test/support/etcd-server.ts';
import { pidsWithArg } from '../lib/memory.ts';
import { makeTempDir, removeTempDir } from '../lib/tmp.ts';
import { sleep } from '../lib/timer.ts';
import { H1Client } from './client.ts';

export const REPO_ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

export type BackendName = 'embedded' | 'etcd3';
export const BACKENDS: readonly BackendName[] = ['embedded', 'etcd3'];

const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 10_000;
const STDERR_TAIL = 16_384;

/** Every child this process started, SIGKILLed on exit (the last resort). */
const liveChildren = new Set<ChildProcess>();
const liveEtcds = new Set<EtcdServer>();
process.once('exit', () => {
  for (const c of liveChildren) c.kill('SIGKILL');
});

/** Stops every etcd and server this process started (for SIGINT and fatal errors). */
export async function stopEverything(): Promise<void> {
  for (const c of liveChildren) c.kill('SIGKILL');
  await Promise.all([...liveEtcds].map((e) => e.stop().catch(() => undefined)));
}

export async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => (port ? res(port) : rej(new Error('no port assigned'))));
    });
  });
}

export interface EtcdHandle {
  readonly server: EtcdServer;
  readonly version: string;
  /** The etcd process id (found by its temp data dir on the command line). */
  readonly pid: number | null;
  stop(): Promise<void>;
}

export async function startBenchEtcd(): Promise<EtcdHandle> {
  const server = await startEtcd(); // fsync on: a load test measures a real etcd
  liveEtcds.add(server);
  const pids = pidsWithArg(`--data-dir=${join(server.dataDir, 'data')}`);
  return {
    server,
    version: etcdVersion(),
    pid: pids.length === 1 ? pids[0]! : null,
    async stop() {
      await server.stop();
      liveEtcds.delete(server);
    },
  };
}

export interface ServerHandle {
  readonly pid: number;
  readonly securePort: number;
  readonly uwsPort: number;
  readonly dataDir: string;
  readonly ca: Buffer;
  readonly token: string;
  /** The last lines the server wrote to stderr. */
  stderrTail(): string;
  /** True while the child runs. */
  alive(): boolean;
  /** SIGTERM, then SIGKILL after a timeout; removes the data dir. Idempotent. */
  stop(): Promise<void>;
}

let built = false;

/** Compiles the server once per benchmark run (`npm run build`), as `npm start` does. */
function ensureBuilt(): void {
  if (built) return;
  execFileSync(process.execPath, [join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: REPO_ROOT, stdio: 'inherit' });
  built = true;
}

export async function startApiServer(backend: BackendName, etcd: EtcdHandle | null): Promise<ServerHandle> {
  const dataDir = await makeTempDir('orch-api-bench');
  const securePort = await freePort();
  let uwsPort = await freePort();
  while (uwsPort === securePort) uwsPort = await freePort();
  // The compiled server, as `npm start` runs it (npm run build first).
  ensureBuilt();
  const args = [
    'dist/src/main.js',
    `--data-dir=${dataDir}`,
    `--secure-port=${securePort}`,
    `--uws-port=${uwsPort}`,
    '--bind-address=127.0.0.1',
    '--log-level=warn',
  ];
  if (backend === 'etcd3') {
    if (!etcd) throw new Error('etcd3 backend needs an etcd');
    args.push('--storage-backend=etcd3', `--etcd-servers=${etcd.server.endpoint}`);
  }
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  liveChildren.add(child);
  let tail = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-STDERR_TAIL);
  });
  let exited: string | null = null;
  const gone = new Promise<void>((res) => {
    child.once('exit', (code, signal) => {
      exited = `server exited (code ${code}, signal ${signal})`;
      liveChildren.delete(child);
      res();
    });
  });
  child.once('error', (err) => {
    exited = `server failed to start: ${err.message}`;
  });
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    if (exited === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await gone;
      clearTimeout(timer);
    }
    await removeTempDir(dataDir);
  };

  try {
    // Credentials appear on first start; then /readyz must answer 200.
    const deadline = Date.now() + READY_TIMEOUT_MS;
    let token = '';
    let ca: Buffer | null = null;
    let client: H1Client | null = null;
    try {
      for (;;) {
        if (exited) throw new Error(`${exited}\n${tail}`);
        if (Date.now() > deadline) throw new Error(`server not ready within ${READY_TIMEOUT_MS} ms\n${tail}`);
        if (!client) {
          try {
            const line = (await readFile(join(dataDir, 'tokens.csv'), 'utf8')).split('\n')[0] ?? '';
            token = line.split(',')[0] ?? '';
            ca = readFileSync(join(dataDir, 'ca.crt'));
            if (token !== '') client = new H1Client('probe', uwsPort, ca, token, { maxSockets: 1, timeoutMs: 2000 });
          } catch {
            // not written yet
          }
        }
        if (client) {
          const ok = await Promise.all(
            [securePort, uwsPort].map(async (port) => {
              const c = port === uwsPort ? client! : new H1Client('probe', port, ca!, token, { maxSockets: 1, timeoutMs: 2000 });
              try {
                return (await c.request('GET', '/readyz')).status === 200;
              } catch {
                return false;
              } finally {
                if (c !== client) await c.close();
              }
            }),
          );
          if (ok.every(Boolean)) break;
        }
        await sleep(100);
      }
    } finally {
      await client?.close();
    }
    return {
      pid: child.pid!,
      securePort,
      uwsPort,
      dataDir,
      ca: ca!,
      token,
      stderrTail: () => tail.split('\n').slice(-30).join('\n'),
      alive: () => exited === null,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
