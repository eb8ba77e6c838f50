/**
 * The server under test as a child process (`node dist/src/main.js`, compiled
 * into a private temp dir, or from source with BENCH_API_SERVER=tsx; from the
 * working tree, or from HEAD with BENCH_API_SOURCE=head),
 * so that its RSS (all threads) is measurable by pid and the load generator
 * runs in a process of its own. Children are killed when this process exits,
 * also on an error or SIGINT/SIGTERM.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { openSync, readFileSync, symlinkSync } from 'node:fs';
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
  /** From spawning the process to both ports answering /readyz with 200, ms. */
  readonly readyMs: number;
  /** The last lines the server wrote to stderr. */
  stderrTail(): string;
  /** True while the child runs. */
  alive(): boolean;
  /** SIGTERM, then SIGKILL after a timeout; removes the data dir. Idempotent. */
  stop(): Promise<void>;
}

/**
 * How the server is started: `dist` (default), the compiled server as
 * `npm start` runs it; `tsx`, from source (`node --import tsx src/main.ts`,
 * `npm run start:dev`). BENCH_API_SERVER picks one.
 */
export type ServerBuild = 'dist' | 'tsx';

/**
 * Which sources: `worktree` (default), the files as they are in the checkout
 * (uncommitted edits included); `head`, the committed HEAD, exported with
 * `git archive` (others' half-made edits in a shared checkout stay out).
 * BENCH_API_SOURCE picks one.
 */
export type ServerSource = 'worktree' | 'head';

export function serverBuild(): ServerBuild {
  const v = (process.env['BENCH_API_SERVER'] ?? 'dist').toLowerCase();
  if (v !== 'dist' && v !== 'tsx') throw new Error(`BENCH_API_SERVER=${v}: expected dist or tsx`);
  return v;
}

export function serverSource(): ServerSource {
  const v = (process.env['BENCH_API_SOURCE'] ?? 'worktree').toLowerCase();
  if (v !== 'worktree' && v !== 'head') throw new Error(`BENCH_API_SOURCE=${v}: expected worktree or head`);
  return v;
}

const gitRaw = (...args: string[]): string => execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
const git = (...args: string[]): string => gitRaw(...args).trim();

let pinned: string | undefined;

/** The commit HEAD pointed at when first asked (the one a `head` build exports, however HEAD moves on). */
function pinnedCommit(): string {
  pinned ??= git('rev-parse', 'HEAD');
  return pinned;
}

/** Where the server comes from, for the report: command, commit, uncommitted server files. */
export function describeServer(): string {
  const build = serverBuild();
  const source = serverSource();
  const cmd = build === 'dist' ? 'node dist/src/main.js (compiled with tsconfig.build.json, as npm start runs it)' : 'node --import tsx src/main.ts (from source, as npm run start:dev runs it)';
  let commit = 'unknown commit';
  let dirty: string[] = [];
  try {
    commit = (source === 'head' ? pinnedCommit() : git('rev-parse', 'HEAD')).slice(0, 7);
    dirty = gitRaw('status', '--porcelain', '--', ...SERVER_PATHS).split('\n').filter((l) => l.trim() !== '');
  } catch {
    // not a git checkout
  }
  if (source === 'head') return `${cmd}, built from commit ${commit} (git archive of HEAD)`;
  return `${cmd}, from the working tree at commit ${commit}${dirty.length > 0 ? ` with ${dirty.length} uncommitted change(s) in the server's sources (${dirty.slice(0, 6).map((l) => l.slice(3)).join(', ')}${dirty.length > 6 ? ', ...' : ''})` : ' (no uncommitted changes in the server\'s sources)'}`;
}

/** The same description (kept for loadtest/watch, which imports it). */
export function serverCommand(): string {
  return describeServer();
}

/** The paths the server is made of (what `head` exports, what `dirty` checks). */
const SERVER_PATHS = ['src', 'shards', 'workers', 'proto', 'package.json', 'tsconfig.json', 'tsconfig.build.json'];

interface Prepared {
  /** Working directory of the server process. */
  readonly cwd: string;
  /** node arguments before the server's flags. */
  readonly entry: readonly string[];
}

let prepared: Promise<Prepared> | null = null;

/**
 * Lays the server out once per benchmark run in a private temp dir (a
 * compiled build there, never the shared dist/, which other builds rewrite):
 * the sources (HEAD) or links to them (worktree), node_modules linked.
 */
async function prepareServer(): Promise<Prepared> {
  const build = serverBuild();
  const source = serverSource();
  if (build === 'tsx' && source === 'worktree') return { cwd: REPO_ROOT, entry: ['--import', 'tsx', 'src/main.ts'] };
  const root = await makeTempDir('orch-api-build');
  if (source === 'head') {
    const present = SERVER_PATHS.filter((p) => {
      try {
        git('cat-file', '-e', `${pinnedCommit()}:${p}`);
        return true;
      } catch {
        return false;
      }
    });
    execFileSync('sh', ['-c', `git archive --format=tar ${pinnedCommit()} ${present.map((p) => `'${p}'`).join(' ')} | tar -x -C '${root}'`], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  } else {
    for (const p of ['proto', 'package.json']) symlinkSync(join(REPO_ROOT, p), join(root, p));
  }
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(root, 'node_modules'));
  if (build === 'tsx') return { cwd: root, entry: ['--import', 'tsx', 'src/main.ts'] };
  const project = source === 'head' ? join(root, 'tsconfig.build.json') : join(REPO_ROOT, 'tsconfig.build.json');
  const t0 = Date.now();
  try {
    execFileSync(process.execPath, [join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', project, '--outDir', join(root, 'dist')], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      encoding: 'utf8',
    });
  } catch (err) {
    const out = (err as { stdout?: string }).stdout ?? '';
    throw new Error(`building the server failed (${source}):\n${out.split('\n').slice(0, 20).join('\n')}`);
  }
  console.log(`  built the server (${source}) in ${((Date.now() - t0) / 1000).toFixed(1)} s into ${root}/dist`);
  return { cwd: root, entry: ['dist/src/main.js'] };
}

/** `extraArgs`: server flags a scenario needs (e.g. loadtest/authn's --oidc-*). */
export async function startApiServer(backend: BackendName, etcd: EtcdHandle | null, extraArgs: readonly string[] = []): Promise<ServerHandle> {
  const dataDir = await makeTempDir('orch-api-bench');
  const securePort = await freePort();
  let uwsPort = await freePort();
  while (uwsPort === securePort) uwsPort = await freePort();
  prepared ??= prepareServer();
  const { cwd, entry } = await prepared;
  // BENCH_SERVER_NODE_FLAGS: node flags for the server process, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it.
  const nodeFlags = (process.env['BENCH_SERVER_NODE_FLAGS'] ?? '').split(/\s+/).filter((f) => f !== '');
  const args = [
    ...nodeFlags,
    ...entry,
    `--data-dir=${dataDir}`,
    `--secure-port=${securePort}`,
    `--uws-port=${uwsPort}`,
    '--bind-address=127.0.0.1',
    '--log-level=warn',
    // BENCH_SERVER_ARGS: extra server flags, e.g. `--list-cache-bytes=0`.
    ...(process.env['BENCH_SERVER_ARGS'] ?? '').split(/\s+/).filter((f) => f !== ''),
    ...extraArgs,
  ];
  if (backend === 'etcd3') {
    if (!etcd) throw new Error('etcd3 backend needs an etcd');
    args.push('--storage-backend=etcd3', `--etcd-servers=${etcd.server.endpoint}`);
  }
  const spawnedAt = Date.now();
  // BENCH_SERVER_STDOUT: a file for the server's standard output (with BENCH_SERVER_NODE_FLAGS=--trace-gc, V8's GC lines).
  const stdoutFile = process.env['BENCH_SERVER_STDOUT'];
  const stdout = stdoutFile !== undefined && stdoutFile !== '' ? openSync(stdoutFile, 'a', 0o600) : 'ignore';
  const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', stdout, 'pipe'] });
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
      readyMs: Date.now() - spawnedAt,
      stderrTail: () => tail.split('\n').slice(-30).join('\n'),
      alive: () => exited === null,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
