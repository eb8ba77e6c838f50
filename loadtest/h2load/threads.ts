/**
 * Front-end threads under h2load: creates/s and gets/s of 1 KiB ConfigMaps on
 * the uWS listener (HTTP/1.1, TLS, bearer token, 32 connections) with
 * `--frontend-threads=1` (the main thread alone) against the default (one
 * serving thread per core), each with the server on two cores and pinned to
 * one (taskset -a), in interleaved rounds (the machine is shared and noisy:
 * every configuration gets one run per round, medians reported). Server CPU
 * per request is read from /proc; the share of requests the worker threads
 * served is read from apiserver_frontend_thread_requests_total.
 *
 *   npm run bench:threads            (node --import tsx loadtest/h2load/threads.ts [--out=<file>])
 *
 * Knobs: BENCH_THREADS_ROUNDS=3, BENCH_H2LOAD_SECONDS=8 (one measured run),
 * BENCH_H2LOAD_CLIENTS=32, BENCH_THREADS_COUNTS=1,2 (the --frontend-threads
 * values compared; the last is the default on this machine),
 * BENCH_THREADS_PIN=1 (0 skips the one-core runs). Installs nothing: without
 * h2load (Debian `nghttp2-client`) it says so and skips.
 */
import { execFileSync } from 'node:child_process';
import https from 'node:https';
import os from 'node:os';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { argValue, envNumber, haveCommand } from '../lib/env.ts';
import { describeMachine, machineInfo } from '../lib/machine.ts';
import { processCpuSeconds } from '../lib/memory.ts';
import { median } from '../lib/stats.ts';
import { makeTempDir, removeTempDir } from '../lib/tmp.ts';
import { REPO_ROOT, describeServer, startApiServer, stopEverything, type ServerHandle } from '../api/server.ts';
import { H1Client } from '../api/client.ts';
import { runH2load, type H2loadRun } from './h2load.ts';

const SECONDS = envNumber('BENCH_H2LOAD_SECONDS', 8);
const ROUNDS = envNumber('BENCH_THREADS_ROUNDS', 3);
const CLIENTS = envNumber('BENCH_H2LOAD_CLIENTS', 32);
const GET_NAMES = 1000;
const COUNTS = (process.env['BENCH_THREADS_COUNTS'] ?? `1,${Math.max(2, os.availableParallelism())}`).split(',').map(Number);
const PIN = process.env['BENCH_THREADS_PIN'] !== '0';
const NS_PATH = '/api/v1/namespaces/default/configmaps';

interface Config {
  threads: number;
  /** taskset CPU list, or null: unpinned. */
  cpus: string | null;
}

interface Sample {
  creates: number;
  createCpuUs: number;
  gets: number;
  getCpuUs: number;
  failed: number;
  /** Share of the requests served by the worker threads (0 with one thread). */
  workerShare: number;
}

function label(c: Config): string {
  return `--frontend-threads=${c.threads}, ${c.cpus === null ? `${os.availableParallelism()} cores` : `pinned to CPU ${c.cpus}`}`;
}

async function once(server: ServerHandle, run: Omit<H2loadRun, 'url' | 'h1' | 'token' | 'clients' | 'seconds'>): Promise<{ rate: number; cpuUs: number; failed: number }> {
  const base = { url: `https://127.0.0.1:${server.uwsPort}`, h1: true, token: server.token, clients: CLIENTS, ...run };
  await runH2load({ ...base, seconds: 2 }); // warm-up
  const cpu0 = processCpuSeconds(server.pid) ?? 0;
  const r = await runH2load({ ...base, seconds: SECONDS });
  const cpu = (processCpuSeconds(server.pid) ?? 0) - cpu0;
  return { rate: r.succeeded / r.seconds, cpuUs: r.succeeded > 0 ? (cpu * 1e6) / r.succeeded : NaN, failed: r.failed + r.non2xx };
}

function scrape(server: ServerHandle): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      { host: '127.0.0.1', port: server.uwsPort, path: '/metrics', ca: server.ca, servername: 'localhost', agent: false, headers: { authorization: `Bearer ${server.token}` } },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString('utf8')));
        res.on('end', () => resolve(body));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function workerShare(metrics: string): number {
  let main = 0;
  let workers = 0;
  for (const m of metrics.matchAll(/^apiserver_frontend_thread_requests_total\{thread="(\d+)"\} (\d+)$/gm)) {
    if (m[1] === '0') main += Number(m[2]);
    else workers += Number(m[2]);
  }
  return main + workers > 0 ? workers / (main + workers) : 0;
}

async function seedGets(server: ServerHandle): Promise<void> {
  const client = new H1Client('seed', server.securePort, server.ca, server.token, { maxSockets: 32 });
  try {
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < GET_NAMES) {
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

async function sample(c: Config, files: { createBody: string; dir: string }): Promise<Sample> {
  // Every one of the threads on the uWS port (the server by default leaves one of them out of it).
  process.env['BENCH_SERVER_ARGS'] = `--frontend-threads=${c.threads} --uws-threads=${c.threads}`;
  const server = await startApiServer('embedded', null);
  try {
    if (c.cpus !== null) execFileSync('taskset', ['-a', '-cp', c.cpus, String(server.pid)], { stdio: 'ignore' });
    await seedGets(server);
    const uris = join(files.dir, `uris-${server.uwsPort}.txt`);
    await writeFile(uris, Array.from({ length: GET_NAMES }, (_, i) => `https://127.0.0.1:${server.uwsPort}${NS_PATH}/get-${i}`).join('\n') + '\n');
    const cr = await once(server, { method: 'POST', dataFile: files.createBody, path: NS_PATH });
    const g = await once(server, { method: 'GET', inputFile: uris });
    const share = workerShare(await scrape(server));
    return { creates: cr.rate, createCpuUs: cr.cpuUs, gets: g.rate, getCpuUs: g.cpuUs, failed: cr.failed + g.failed, workerShare: share };
  } finally {
    await server.stop();
  }
}

const fmt = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a');
const row = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;

async function main(argv: readonly string[] = process.argv.slice(2)): Promise<number> {
  if (!haveCommand('h2load')) {
    console.log('front-end threads benchmark skipped: h2load is not installed (apt-get install nghttp2-client).');
    return 0;
  }
  const pin = PIN && haveCommand('taskset');
  const out = argValue('out', argv) ?? join(REPO_ROOT, 'loadtest/results/frontend-threads.md');
  const configs: Config[] = COUNTS.flatMap((threads) => [{ threads, cpus: null }, ...(pin ? [{ threads, cpus: '0' }] : [])]);
  const samples = new Map<Config, Sample[]>(configs.map((c) => [c, []]));
  const dir = await makeTempDir('orch-h2load-threads');
  try {
    const createBody = join(dir, 'create.json');
    await writeFile(createBody, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'h2l-' }, data: { v: 'x'.repeat(1024) } }));
    for (let round = 1; round <= ROUNDS; round++) {
      for (const c of configs) {
        const s = await sample(c, { createBody, dir });
        samples.get(c)!.push(s);
        console.log(`round ${round}, ${label(c)}: ${fmt(s.creates)} creates/s (${fmt(s.createCpuUs)} µs CPU), ${fmt(s.gets)} gets/s (${fmt(s.getCpuUs)} µs CPU), workers served ${(s.workerShare * 100).toFixed(0)}%, failed ${s.failed}`);
      }
    }
  } finally {
    await removeTempDir(dir);
    await stopEverything();
  }
  const med = (c: Config, f: (s: Sample) => number): number => median(samples.get(c)!.map(f));
  const lines = [
    '# Front-end threads under h2load',
    '',
    `Machine: ${describeMachine(machineInfo())}; shared with other work while measured (noisy), so every configuration ran once per`,
    `round, rounds interleaved, and medians are reported. Server: ${describeServer()}, embedded store, \`--log-level=warn\`.`,
    `h2load ${CLIENTS} connections on the uWS listener (HTTP/1.1, one stream each), TLS, bearer token, 1 KiB ConfigMaps (creates use`,
    `generateName; gets cycle through ${GET_NAMES} objects), ${ROUNDS} rounds of ${SECONDS} s runs after a 2 s warm-up; server CPU (all threads, /proc)`,
    'per successful request. h2load itself is never pinned: in the two-core runs it shares the cores with the server.',
    'Command: `npm run bench:threads` (loadtest/h2load/threads.ts).',
    '',
    row(['configuration', 'creates/s', 'CPU µs/create', 'gets/s', 'CPU µs/get', 'served by workers', 'failed']),
    row(['---', '---:', '---:', '---:', '---:', '---:', '---:']),
    ...configs.map((c) =>
      row([
        label(c),
        fmt(med(c, (s) => s.creates)),
        fmt(med(c, (s) => s.createCpuUs)),
        fmt(med(c, (s) => s.gets)),
        fmt(med(c, (s) => s.getCpuUs)),
        `${(med(c, (s) => s.workerShare) * 100).toFixed(0)}%`,
        String(samples.get(c)!.reduce((n, s) => n + s.failed, 0)),
      ]),
    ),
    '',
    'Every round (creates/s, gets/s):',
    '',
    ...configs.map((c) => `- ${label(c)}: ${samples.get(c)!.map((s) => `${fmt(s.creates)} / ${fmt(s.gets)}`).join('; ')}`),
  ];
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, lines.join('\n') + '\n');
  console.log(`\nwritten to ${out}`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
