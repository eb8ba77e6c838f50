/**
 * The API server under h2load (nghttp2's C load generator, so the client is
 * never the bottleneck): creates/s and gets/s of 1 KiB ConfigMaps over TLS
 * with the bearer token, 32 connections, on the uWS listener (HTTP/1.1) and
 * the secure port (HTTP/1.1 and HTTP/2), with the server's CPU per request
 * read from /proc; then a scaling run: the server pinned to one core, then to
 * two (taskset), on the uWS listener.
 *
 *   node --import tsx loadtest/h2load/run.ts [--only=embedded|etcd3] [--out=<file>]
 *   (also run by `npm run bench` after the Node-client benchmark)
 *
 * Installs nothing: without h2load (Debian `nghttp2-client`) or taskset it says
 * how to get them and skips. Knobs: BENCH_H2LOAD_SECONDS=8 (one measured run),
 * BENCH_H2LOAD_RUNS=3 (median reported), BENCH_H2LOAD_CLIENTS=32,
 * BENCH_H2LOAD_GET_NAMES=1000 (objects the gets cycle through), BENCH_H2LOAD_SCALING=0 skips the
 * scaling run.
 *
 * Side by side with the original API server (opt-in): `--original=/path/to/kube-apiserver`
 * (or BENCH_ORIGINAL_APISERVER) runs loadtest/original/side-by-side.ts instead:
 * ours and the original (with its own etcd) in interleaved rounds, ratio
 * columns, and LIST of 50,000 ConfigMaps; written to loadtest/results/vs-original.md.
 *
 * Authorization's cost (opt-in): `--authz` runs loadtest/h2load/authz.ts instead:
 * gets/s under Node,RBAC vs AlwaysAllow for a user outside system:masters,
 * interleaved rounds; written to loadtest/results/authz.md.
 *
 * Audit's cost (opt-in): `--audit` runs loadtest/h2load/audit.ts instead:
 * gets/s with audit off vs Metadata for every request (log backend, batch
 * and blocking modes), interleaved rounds; written to loadtest/results/audit.md.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { argValue, envNumber, haveCommand } from '../lib/env.ts';
import { describeMachine, machineInfo } from '../lib/machine.ts';
import { processCpuSeconds } from '../lib/memory.ts';
import { median } from '../lib/stats.ts';
import { makeTempDir, removeTempDir } from '../lib/tmp.ts';
import { BACKENDS, REPO_ROOT, describeServer, startApiServer, startBenchEtcd, stopEverything, type BackendName, type ServerHandle } from '../api/server.ts';
import { H1Client } from '../api/client.ts';
import { runH2load, type H2loadResult, type H2loadRun } from './h2load.ts';
import { runSideBySide } from '../original/side-by-side.ts';
import { runAuthzBench } from './authz.ts';
import { runAuditBench } from './audit.ts';

const SECONDS = envNumber('BENCH_H2LOAD_SECONDS', 8);
const RUNS = envNumber('BENCH_H2LOAD_RUNS', 3);
const CLIENTS = envNumber('BENCH_H2LOAD_CLIENTS', 32);
const GET_NAMES = envNumber('BENCH_H2LOAD_GET_NAMES', 1000);
const NS_PATH = '/api/v1/namespaces/default/configmaps';

type Port = 'uws-h1' | 'secure-h1' | 'secure-h2';
const PORT_LABEL: Record<Port, string> = { 'uws-h1': 'uWS listener, HTTP/1.1', 'secure-h1': 'secure port, HTTP/1.1', 'secure-h2': 'secure port, HTTP/2' };

interface Measured {
  readonly rate: number;
  readonly cpuUsPerRequest: number;
  readonly failed: number;
}

/** The server's threads all on the given CPUs (taskset -a: every thread, also those started later inherit). */
function pin(pid: number, cpus: string): void {
  execFileSync('taskset', ['-a', '-cp', cpus, String(pid)], { stdio: 'ignore' });
}

async function measure(server: ServerHandle, port: Port, run: Omit<H2loadRun, 'url' | 'h1' | 'token' | 'seconds' | 'clients'>): Promise<Measured> {
  const results: Array<{ r: H2loadResult; cpu: number }> = [];
  const url = `https://127.0.0.1:${port === 'uws-h1' ? server.uwsPort : server.securePort}`;
  const base = { url, h1: port !== 'secure-h2', token: server.token, clients: CLIENTS, ...run };
  await runH2load({ ...base, seconds: 2 }); // warm-up
  for (let i = 0; i < RUNS; i++) {
    const cpu0 = processCpuSeconds(server.pid) ?? 0;
    const r = await runH2load({ ...base, seconds: SECONDS });
    const cpu1 = processCpuSeconds(server.pid) ?? 0;
    results.push({ r, cpu: cpu1 - cpu0 });
  }
  return {
    rate: median(results.map((x) => x.r.succeeded / x.r.seconds)),
    cpuUsPerRequest: median(results.map((x) => (x.r.succeeded > 0 ? (x.cpu * 1e6) / x.r.succeeded : NaN))),
    failed: results.reduce((n, x) => n + x.r.failed + x.r.non2xx, 0),
  };
}

export async function prepareFiles(dir: string, securePort: number): Promise<{ createBody: string; getUris: string }> {
  const createBody = join(dir, 'create.json');
  await writeFile(createBody, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'h2l-' }, data: { v: 'x'.repeat(1024) } }));
  const getUris = join(dir, 'get-uris.txt');
  await writeFile(getUris, Array.from({ length: GET_NAMES }, (_, i) => `https://127.0.0.1:${securePort}${NS_PATH}/get-${i}`).join('\n') + '\n');
  return { createBody, getUris };
}

/** The objects the gets read, created with the Node client (32 at a time) before any measurement. */
export async function seedGets(server: ServerHandle): Promise<void> {
  const client = new H1Client('seed', server.securePort, server.ca, server.token, { maxSockets: 32 });
  try {
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < GET_NAMES) {
        const i = next++;
        const body = Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `get-${i}` }, data: { v: 'x'.repeat(1024) } }));
        const r = await client.request('POST', NS_PATH, body);
        if (r.status !== 201 && r.status !== 409) throw new Error(`seeding get-${i}: HTTP ${r.status} ${r.body?.toString('utf8').slice(0, 300)}`);
      }
    };
    await Promise.all(Array.from({ length: 32 }, worker));
  } finally {
    await client.close();
  }
}

function row(cells: readonly string[]): string {
  return `| ${cells.join(' | ')} |`;
}

const fmt = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a');

async function main(argv: readonly string[] = process.argv.slice(2)): Promise<number> {
  if (!haveCommand('h2load')) {
    console.log('h2load benchmark skipped: h2load is not installed (apt-get install nghttp2-client).');
    return 0;
  }
  if (argv.includes('--authz')) return runAuthzBench(argv);
  if (argv.includes('--audit')) return runAuditBench(argv);
  const original = argValue('original', argv) ?? process.env['BENCH_ORIGINAL_APISERVER'];
  if (original !== undefined && original !== '') return runSideBySide(original, argv, argValue('out', argv));
  const only = argValue('only', argv);
  const backends = BACKENDS.filter((b) => only === undefined || b === only);
  const out = argValue('out', argv) ?? join(REPO_ROOT, 'loadtest/results/h2load.md');
  const lines: string[] = [
    '# API server under h2load',
    '',
    `Machine: ${describeMachine(machineInfo())}. Server: ${describeServer()}.`,
    `h2load ${CLIENTS} connections (one stream each), TLS, bearer token, 1 KiB ConfigMaps (creates use generateName),`,
    `${RUNS} runs of ${SECONDS} s after a 2 s warm-up, median; server CPU (all threads, /proc) per successful request.`,
    `Command: node --import tsx loadtest/h2load/run.ts${only ? ` --only=${only}` : ''}`,
    '',
    row(['backend', 'front end', 'creates/s', 'CPU µs/create', 'gets/s', 'CPU µs/get', 'failed']),
    row(['---', '---', '---:', '---:', '---:', '---:', '---:']),
  ];
  const scaling: string[] = [];
  const dir = await makeTempDir('orch-h2load');
  try {
    for (const backend of backends as BackendName[]) {
      const etcd = backend === 'etcd3' ? await startBenchEtcd() : null;
      const server = await startApiServer(backend, etcd);
      try {
        const files = await prepareFiles(dir, server.securePort);
        await seedGets(server);
        for (const port of ['uws-h1', 'secure-h1', 'secure-h2'] as const) {
          const uris = port === 'uws-h1' ? await rewriteUris(files.getUris, server.securePort, server.uwsPort, dir) : files.getUris;
          const c = await measure(server, port, { method: 'POST', dataFile: files.createBody, path: NS_PATH });
          const g = await measure(server, port, { method: 'GET', inputFile: uris });
          const line = row([backend, PORT_LABEL[port], fmt(c.rate), fmt(c.cpuUsPerRequest), fmt(g.rate), fmt(g.cpuUsPerRequest), String(c.failed + g.failed)]);
          console.log(line);
          lines.push(line);
        }
        if (haveCommand('taskset') && backend === 'embedded' && process.env['BENCH_H2LOAD_SCALING'] !== '0') {
          const uris = await rewriteUris(files.getUris, server.securePort, server.uwsPort, dir);
          const at: Record<string, { c: Measured; g: Measured }> = {};
          for (const cpus of ['0', '0-1']) {
            pin(server.pid, cpus);
            at[cpus] = {
              c: await measure(server, 'uws-h1', { method: 'POST', dataFile: files.createBody, path: NS_PATH }),
              g: await measure(server, 'uws-h1', { method: 'GET', inputFile: uris }),
            };
          }
          const one = at['0']!;
          const two = at['0-1']!;
          scaling.push(
            row(['creates/s', fmt(one.c.rate), fmt(two.c.rate), (two.c.rate / one.c.rate).toFixed(2) + '×']),
            row(['gets/s', fmt(one.g.rate), fmt(two.g.rate), (two.g.rate / one.g.rate).toFixed(2) + '×']),
          );
          console.log(scaling.join('\n'));
        }
      } finally {
        await server.stop();
        await etcd?.stop();
      }
    }
  } finally {
    await removeTempDir(dir);
    await stopEverything();
  }
  if (scaling.length > 0) {
    lines.push(
      '',
      'Scaling on the uWS listener (embedded): the server pinned with `taskset -a` to one core, then two; h2load unpinned',
      '(on this 2-core machine it shares the cores with the server in the two-core run).',
      '',
      row(['', '1 core', '2 cores', 'ratio']),
      row(['---', '---:', '---:', '---:']),
      ...scaling,
    );
  }
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, lines.join('\n') + '\n');
  console.log(`\nwritten to ${out}`);
  return 0;
}

export async function rewriteUris(file: string, from: number, to: number | null, dir: string): Promise<string> {
  if (to === null) return file;
  const { readFile } = await import('node:fs/promises');
  const text = (await readFile(file, 'utf8')).replaceAll(`:${from}/`, `:${to}/`);
  const target = join(dir, `uris-${to}.txt`);
  await writeFile(target, text);
  return target;
}

/** For loadtest/run.ts: the h2load section with the given flags (--only=..., --out=...). */
export async function runH2loadBench(argv: readonly string[]): Promise<number> {
  return main(argv);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exit(await main());
}
