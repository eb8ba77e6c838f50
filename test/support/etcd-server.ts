/**
 * Starts a real, single-member etcd for tests, on free loopback ports and a
 * temporary data directory. Nothing listens beyond 127.0.0.1.
 *
 * The binary is `$ETCD_BIN`, else `etcd` on PATH (the Debian `etcd-server`
 * package installs /usr/bin/etcd). A missing binary is an error, never a
 * skip: CI installs etcd, and a silently skipped backend is untested code.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

export interface EtcdServerOptions {
  /**
   * Skip fsync (etcd `--unsafe-no-fsync`). Tests run faster; load tests must
   * leave it off to measure a real etcd.
   */
  readonly unsafeNoFsync?: boolean;
  /** Extra command-line flags. */
  readonly extraArgs?: readonly string[];
}

export interface RestartOptions {
  readonly crash?: boolean;
  readonly downMs?: number;
  readonly whileDown?: () => void | Promise<void>;
}

export interface EtcdServer {
  /** Client URL, e.g. `http://127.0.0.1:40123`. */
  readonly endpoint: string;
  readonly dataDir: string;
  /** Kill etcd and remove its data directory. Idempotent. */
  stop(): Promise<void>;
  /**
   * Stop etcd (SIGKILL when `crash`, else SIGTERM) and start it again on the
   * same ports and data, after `downMs` and `whileDown` (run while it is down).
   */
  restart(options?: RestartOptions): Promise<void>;
  /** Freeze the process (SIGSTOP): connections stay open but nothing answers. */
  pause(): void;
  /** Thaw a paused process (SIGCONT). */
  resume(): void;
  /** The last lines etcd wrote to stderr, for failure messages. */
  logTail(): string;
}

const STARTUP_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 5_000;
const LOG_TAIL_BYTES = 16_384;

/** All etcd processes this test process started, killed on exit so none outlive a crashed test. */
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

export function findEtcdBinary(): string {
  const fromEnv = process.env['ETCD_BIN'];
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`ETCD_BIN=${fromEnv} does not exist`);
    return fromEnv;
  }
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, 'etcd'))) return join(dir, 'etcd');
  }
  if (existsSync('/usr/bin/etcd')) return '/usr/bin/etcd';
  throw new Error(
    'etcd is not installed: the etcd backend tests need a real etcd (v3.4+). ' +
      'Install it (Debian/Ubuntu: apt-get install etcd-server) or set ETCD_BIN to its path.',
  );
}

/** The `etcd --version` line, e.g. `3.4.23`. */
export function etcdVersion(binary = findEtcdBinary()): string {
  const out = spawnSync(binary, ['--version'], { encoding: 'utf8' });
  const m = /etcd Version:\s*(\S+)/.exec(out.stdout ?? '');
  if (!m) throw new Error(`cannot read the version of ${binary}: ${out.stderr || out.stdout}`);
  return m[1]!;
}

/**
 * A TCP proxy on a free loopback port in front of `target` (an etcd client
 * URL), to cut one client off from etcd while others keep working.
 */
export interface TcpProxy {
  readonly endpoint: string;
  /** Drop every open connection and refuse new ones until {@link restore}. */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  let open = true;
  const server = createServer((client) => {
    if (!open) {
      client.destroy();
      return;
    }
    const upstream = connect(Number(port), hostname);
    sockets.add(client).add(upstream);
    const drop = (): void => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const addr = server.address();
  const proxyPort = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    endpoint: `http://127.0.0.1:${proxyPort}`,
    cut() {
      open = false;
      for (const s of sockets) s.destroy();
      sockets.clear();
    },
    restore() {
      open = true;
    },
    close() {
      open = false;
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => (port ? resolve(port) : reject(new Error('no port assigned'))));
    });
  });
}

export async function startEtcd(options: EtcdServerOptions = {}): Promise<EtcdServer> {
  const binary = findEtcdBinary();
  const dataDir = await mkdtemp(join(tmpdir(), 'orch-etcd-'));
  // A port found free can be taken before etcd binds it; try fresh ports a few times.
  for (let attempt = 1; ; attempt++) {
    const clientPort = await freePort();
    let peerPort = await freePort();
    while (peerPort === clientPort) peerPort = await freePort();
    const server = new RunningEtcd(binary, dataDir, clientPort, peerPort, options);
    try {
      await server.launch();
      return server;
    } catch (err) {
      await server.kill('SIGKILL');
      if (attempt >= 3) {
        await rm(dataDir, { recursive: true, force: true });
        throw err;
      }
      await rm(dataDir, { recursive: true, force: true });
      await mkdir(dataDir, { recursive: true });
    }
  }
}

class RunningEtcd implements EtcdServer {
  readonly endpoint: string;
  #child: ChildProcess | null = null;
  #log = '';
  #stopped = false;

  constructor(
    private readonly binary: string,
    readonly dataDir: string,
    private readonly clientPort: number,
    private readonly peerPort: number,
    private readonly options: EtcdServerOptions,
  ) {
    this.endpoint = `http://127.0.0.1:${clientPort}`;
  }

  #args(): string[] {
    const peer = `http://127.0.0.1:${this.peerPort}`;
    const args = [
      '--name=default',
      `--data-dir=${join(this.dataDir, 'data')}`,
      `--listen-client-urls=${this.endpoint}`,
      `--advertise-client-urls=${this.endpoint}`,
      `--listen-peer-urls=${peer}`,
      `--initial-advertise-peer-urls=${peer}`,
      `--initial-cluster=default=${peer}`,
      '--initial-cluster-state=new',
      '--initial-cluster-token=orch-test',
      '--logger=zap',
      '--log-level=warn',
      // No metrics or pprof listeners beyond the client URL.
      '--enable-pprof=false',
    ];
    if (this.options.unsafeNoFsync) args.push('--unsafe-no-fsync');
    args.push(...(this.options.extraArgs ?? []));
    return args;
  }

  async launch(): Promise<void> {
    const child = spawn(this.binary, this.#args(), { stdio: ['ignore', 'ignore', 'pipe'] });
    this.#child = child;
    live.add(child);
    child.stderr!.on('data', (chunk: Buffer) => {
      this.#log = (this.#log + chunk.toString('utf8')).slice(-LOG_TAIL_BYTES);
    });
    let exited: string | null = null;
    child.once('exit', (code, signal) => {
      live.delete(child);
      exited = `etcd exited (code ${code}, signal ${signal})`;
    });
    child.once('error', (err) => {
      exited = `etcd failed to start: ${err.message}`;
    });
    const deadline = Date.now() + STARTUP_TIMEOUT_MS;
    for (;;) {
      if (exited) throw new Error(`${exited}\n${this.logTail()}`);
      if (await this.#healthy()) {
        // A port found free can be taken by another test file's etcd before ours binds it: that one then
        // answers the health check while ours exits, and a test would run against someone else's store
        // (a create answered 404 once in CI when that etcd was replaced by a fresh one). Ours advertises
        // its own peer port: anything else is a taken port, and startEtcd tries fresh ones.
        if (await this.#isOurs()) return;
        throw new Error(`another etcd answers on ${this.endpoint}: the port was taken before ours bound it`);
      }
      if (Date.now() > deadline) {
        throw new Error(`etcd did not become healthy within ${STARTUP_TIMEOUT_MS} ms\n${this.logTail()}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async #healthy(): Promise<boolean> {
    try {
      const res = await fetch(`${this.endpoint}/health`, { signal: AbortSignal.timeout(1000) });
      const body = (await res.json()) as { health?: string };
      return res.ok && body.health === 'true';
    } catch {
      return false;
    }
  }

  /** Whether the etcd answering on our client port is the one we started (its member advertises our peer URL). */
  async #isOurs(): Promise<boolean> {
    const peer = `http://127.0.0.1:${this.peerPort}`;
    try {
      const res = await fetch(`${this.endpoint}/v3/cluster/member/list`, { method: 'POST', body: '{}', signal: AbortSignal.timeout(1000) });
      const body = (await res.json()) as { members?: { peerURLs?: string[] }[] };
      return res.ok && (body.members ?? []).some((m) => (m.peerURLs ?? []).includes(peer));
    } catch {
      return false;
    }
  }

  async kill(signal: NodeJS.Signals): Promise<void> {
    const child = this.#child;
    this.#child = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGCONT'); // a paused etcd cannot handle SIGTERM
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await gone;
    clearTimeout(timer);
  }

  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    await this.kill('SIGTERM');
    await rm(this.dataDir, { recursive: true, force: true });
  }

  async restart(options: RestartOptions = {}): Promise<void> {
    if (this.#stopped) throw new Error('etcd was stopped');
    await this.kill(options.crash ? 'SIGKILL' : 'SIGTERM');
    if (options.downMs) await new Promise((r) => setTimeout(r, options.downMs));
    await options.whileDown?.();
    await this.launch();
  }

  pause(): void {
    this.#child?.kill('SIGSTOP');
  }

  resume(): void {
    this.#child?.kill('SIGCONT');
  }

  logTail(): string {
    return this.#log.split('\n').slice(-30).join('\n');
  }
}
