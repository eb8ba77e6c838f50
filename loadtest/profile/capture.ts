/**
 * Profiles the built server under h2load: the server (dist/, as `npm start`
 * runs it) starts with preload.cjs in EVERY thread (main, shards, store host),
 * gets and creates run on each front end, and around each measured run a
 * SIGUSR2 starts and one stops V8's sampling profiler in all threads, so
 * window n leaves `w<n>.t<threadId>.tid<tid>.cpuprofile` per thread. The windows'
 * request counts and per-thread CPU from /proc go to `manifest.json` beside
 * them, for fold.ts.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sleep } from '../lib/timer.ts';
import { describeMachine, machineInfo } from '../lib/machine.ts';
import { describeServer, startApiServer, type ServerHandle } from '../api/server.ts';
import { H1Client } from '../api/client.ts';
import { runH2load, type H2loadRun } from '../h2load/h2load.ts';
import { threadCpu, threadDelta, type ThreadCpu } from './threads.ts';

export type FrontEnd = 'uws-h1' | 'secure-h1' | 'secure-h2';
export type Operation = 'get' | 'create';

export const FRONT_END_LABEL: Record<FrontEnd, string> = {
  'uws-h1': 'uWS listener, HTTP/1.1',
  'secure-h1': 'secure port, HTTP/1.1',
  'secure-h2': 'secure port, HTTP/2',
};

export interface Window {
  readonly frontEnd: FrontEnd;
  readonly op: Operation;
  /** Monotonic clock, µs (process.hrtime; V8's TimeTicks on Linux). */
  readonly startUs: number;
  readonly endUs: number;
  readonly succeeded: number;
  readonly failed: number;
  /** CPU seconds of each server thread over the window, from /proc. */
  readonly threads: readonly ThreadCpu[];
}

export interface Manifest {
  readonly machine: string;
  readonly server: string;
  readonly command: string;
  readonly pid: number;
  readonly intervalUs: number;
  readonly clients: number;
  readonly seconds: number;
  readonly windows: readonly Window[];
}

export interface CaptureOptions {
  readonly dir: string;
  readonly frontEnds: readonly FrontEnd[];
  readonly ops: readonly Operation[];
  /** Extra flags for the server (for example an audit policy). */
  readonly serverArgs?: readonly string[];
  readonly seconds: number;
  readonly clients: number;
  readonly intervalUs: number;
  readonly getNames: number;
  readonly command: string;
}

const NS_PATH = '/api/v1/namespaces/default/configmaps';
const PRELOAD = fileURLToPath(new URL('./preload.cjs', import.meta.url));
const nowUs = (): number => Number(process.hrtime.bigint() / 1000n);

export async function capture(o: CaptureOptions): Promise<Manifest> {
  // NODE_OPTIONS reaches the server and (re-parsed) its worker threads. The
  // build step inside startApiServer runs node too: the preload is inert
  // there (nobody signals it).
  const saved = { ...process.env };
  process.env['NODE_OPTIONS'] = `${saved['NODE_OPTIONS'] ?? ''} --require ${PRELOAD}`.trim();
  process.env['ORCH_PROFILE_DIR'] = o.dir;
  process.env['ORCH_PROFILE_INTERVAL_US'] = String(o.intervalUs);
  let server: ServerHandle;
  try {
    server = await startApiServer('embedded', null, o.serverArgs ?? []);
  } finally {
    for (const k of ['NODE_OPTIONS', 'ORCH_PROFILE_DIR', 'ORCH_PROFILE_INTERVAL_US']) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  }
  const windows: Window[] = [];
  const machine = describeMachine(machineInfo()); // the load average before this run's own load
  try {
    const createBody = join(o.dir, 'create.json');
    await writeFile(createBody, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'prof-' }, data: { v: 'x'.repeat(1024) } }));
    await seed(server, o.getNames);
    for (const fe of o.frontEnds) {
      const port = fe === 'uws-h1' ? server.uwsPort : server.securePort;
      const uris = join(o.dir, `uris-${fe}.txt`);
      await writeFile(uris, Array.from({ length: o.getNames }, (_, i) => `https://127.0.0.1:${port}${NS_PATH}/get-${i}`).join('\n') + '\n');
      for (const op of o.ops) {
        const run: H2loadRun = {
          url: `https://127.0.0.1:${port}`,
          h1: fe !== 'secure-h2',
          token: server.token,
          clients: o.clients,
          method: op === 'get' ? 'GET' : 'POST',
          ...(op === 'get' ? { inputFile: uris } : { dataFile: createBody, path: NS_PATH }),
        };
        await runH2load({ ...run, seconds: 2 }); // warm-up (JIT, connections)
        const index = windows.length;
        process.kill(server.pid, 'SIGUSR2'); // profilers on
        const t0 = threadCpu(server.pid);
        const startUs = nowUs();
        const r = await runH2load({ ...run, seconds: o.seconds });
        const endUs = nowUs();
        const threads = threadDelta(t0, threadCpu(server.pid));
        process.kill(server.pid, 'SIGUSR2'); // profilers off: each thread writes w<index>.t<id>.tid<tid>.cpuprofile
        await settled(o.dir, `w${index}.`);
        windows.push({ frontEnd: fe, op, startUs, endUs, succeeded: r.succeeded, failed: r.failed + r.non2xx, threads });
        const cpu = threads.reduce((s, t) => s + t.seconds, 0);
        console.log(`  ${FRONT_END_LABEL[fe]} ${op}: ${Math.round(r.succeeded / r.seconds).toLocaleString('en-US')}/s, ${Math.round((cpu * 1e6) / Math.max(1, r.succeeded))} µs CPU per request (all threads, /proc)`);
      }
    }
  } finally {
    await server.stop(); // SIGTERM: a clean exit, so every thread writes its profile
  }
  const manifest: Manifest = {
    machine,
    server: describeServer(),
    command: o.command,
    pid: server.pid,
    intervalUs: o.intervalUs,
    clients: o.clients,
    seconds: o.seconds,
    windows,
  };
  await writeFile(join(o.dir, 'manifest.json'), JSON.stringify(manifest, null, 1));
  return manifest;
}

/** The profiles of window `index` in `dir`, one per thread. */
export function profileFiles(dir: string, index: number): Array<{ file: string; threadId: number; tid: number }> {
  const out: Array<{ file: string; threadId: number; tid: number }> = [];
  for (const f of readdirSync(dir)) {
    const m = /^w(\d+)\.t(\d+)\.tid(\d+)\.cpuprofile$/.exec(f);
    if (m && Number(m[1]) === index) out.push({ file: join(dir, f), threadId: Number(m[2]), tid: Number(m[3]) });
  }
  return out.sort((a, b) => a.threadId - b.threadId);
}

/** Waits until the window's profiles stop appearing (each thread writes its own when told). */
async function settled(dir: string, prefix: string): Promise<void> {
  let last = -1;
  for (let i = 0; i < 100; i++) {
    await sleep(200);
    const n = readdirSync(dir).filter((f) => f.startsWith(prefix)).length;
    if (n > 0 && n === last) return;
    last = n;
  }
}

/** The objects the gets read, created before any measurement (32 at a time). */
async function seed(server: ServerHandle, count: number): Promise<void> {
  const client = new H1Client('seed', server.securePort, server.ca, server.token, { maxSockets: 32 });
  try {
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < count) {
        const i = next++;
        const body = Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `get-${i}` }, data: { v: 'x'.repeat(1024) } }));
        const r = await client.request('POST', NS_PATH, body);
        if (r.status !== 201 && r.status !== 409) throw new Error(`seeding get-${i}: HTTP ${r.status}`);
      }
    };
    await Promise.all(Array.from({ length: 32 }, worker));
  } finally {
    await client.close();
  }
}

export function haveH2load(): boolean {
  try {
    execFileSync('sh', ['-c', 'command -v h2load'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
