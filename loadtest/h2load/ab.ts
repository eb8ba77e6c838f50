/**
 * Server variants in interleaved rounds under h2load: for every round, a fresh
 * server per variant (1 KiB ConfigMap creates, then GETs of one object, on the
 * uWS listener and the secure port's HTTP/2; 32 connections, TLS, bearer
 * token), with the server's CPU per request from /proc, in all and per
 * thread, and its RSS after each measurement. The machine is shared and noisy:
 * compare variants within a round, medians across rounds.
 *
 *   BENCH_AB_VARIANTS='{"v8-sizing":"--initial-old-space-size=0","default":""}' \
 *     node --import tsx loadtest/h2load/ab.ts [--out=<file>]
 *
 * A variant is a name and the node options it gives the server
 * (BENCH_SERVER_NODE_FLAGS of loadtest/api/server.ts); a word NAME=value
 * among them is an environment variable of the server instead (e.g.
 * GLIBC_TUNABLES=...). BENCH_AB_ARGS, the same shape, adds server flags per
 * variant.
 * Knobs: BENCH_AB_ROUNDS=4, BENCH_H2LOAD_SECONDS=6 (one measured run after a
 * 2 s warm-up), BENCH_AB_PORTS=uws-h1,secure-h2, BENCH_AB_OPS=create,get,
 * BENCH_H2LOAD_CLIENTS=32. Installs nothing: without h2load (Debian
 * `nghttp2-client`) it says so and skips.
 *
 * Threads are listed by start order, not by name (every thread of node is
 * called "node"): #0 the main thread, then V8's platform threads (its GC
 * helpers and compiler jobs), libuv's pool, and the worker threads in the
 * order the server starts them (store host, shards, serving threads).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { argValue, envNumber, haveCommand } from '../lib/env.ts';
import { describeMachine, loadAverage, machineInfo } from '../lib/machine.ts';
import { processCpuSeconds, processRss } from '../lib/memory.ts';
import { median } from '../lib/stats.ts';
import { makeTempDir, removeTempDir } from '../lib/tmp.ts';
import { describeServer, startApiServer, stopEverything, type ServerHandle } from '../api/server.ts';
import { runH2load, type H2loadRun } from './h2load.ts';

const ROUNDS = envNumber('BENCH_AB_ROUNDS', 4);
const SECONDS = envNumber('BENCH_H2LOAD_SECONDS', 6);
const CLIENTS = envNumber('BENCH_H2LOAD_CLIENTS', 32);
const PORTS = (process.env['BENCH_AB_PORTS'] ?? 'uws-h1,secure-h2').split(',') as Port[];
const OPS = (process.env['BENCH_AB_OPS'] ?? 'create,get').split(',') as Op[];
const NS_PATH = '/api/v1/namespaces/default/configmaps';

type Port = 'uws-h1' | 'secure-h2';
type Op = 'create' | 'get';

interface Sample {
  readonly rate: number;
  readonly cpuUs: number;
  /** µs per request of each thread that ran ≥ 1 µs per request, by start order. */
  readonly threads: ReadonlyArray<readonly [number, number]>;
  readonly rssMb: number;
  readonly failed: number;
  readonly load: number;
}

function variantsFrom(env: string, fallback: Record<string, string>): Record<string, string> {
  const raw = process.env[env];
  if (raw === undefined || raw.trim() === '') return fallback;
  const parsed = JSON.parse(raw) as unknown;
  if (typeof parsed !== 'object' || parsed === null || Object.values(parsed).some((v) => typeof v !== 'string')) {
    throw new Error(`${env}: expected a JSON object of name → options, got ${raw}`);
  }
  return parsed as Record<string, string>;
}

const words = (s: string): string[] => s.split(/\s+/).filter((w) => w !== '');
const ENV_WORD = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** CPU ticks of every thread of `pid`, by thread id (those gone since are left out). */
function threadTicks(pid: number): Map<number, number> {
  const ticks = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const fields = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      ticks.set(Number(tid), Number(fields[11]) + Number(fields[12]));
    } catch {
      // the thread ended meanwhile
    }
  }
  return ticks;
}

async function measure(server: ServerHandle, port: Port, op: Op, body: string, named: string): Promise<Sample> {
  const url = `https://127.0.0.1:${port === 'uws-h1' ? server.uwsPort : server.securePort}`;
  const base = { url, h1: port === 'uws-h1', token: server.token, clients: CLIENTS } as const;
  let run: Omit<H2loadRun, 'seconds'>;
  if (op === 'create') {
    run = { ...base, method: 'POST', path: NS_PATH, dataFile: body };
  } else {
    await runH2load({ ...base, clients: 1, method: 'POST', path: NS_PATH, dataFile: named, requests: 1 });
    run = { ...base, method: 'GET', path: `${NS_PATH}/ab-get` };
  }
  await runH2load({ ...run, seconds: 2 });
  const order = [...threadTicks(server.pid).keys()].sort((a, b) => a - b);
  const cpu0 = processCpuSeconds(server.pid) ?? 0;
  const t0 = threadTicks(server.pid);
  const r = await runH2load({ ...run, seconds: SECONDS });
  const cpu1 = processCpuSeconds(server.pid) ?? 0;
  const t1 = threadTicks(server.pid);
  const n = Math.max(1, r.succeeded);
  const threads = [...t1]
    .map(([tid, t]) => [order.indexOf(tid) >= 0 ? order.indexOf(tid) : order.length, ((t - (t0.get(tid) ?? 0)) * 1e4) / n] as const)
    .filter(([, us]) => us >= 1)
    .sort((a, b) => b[1] - a[1]);
  return { rate: r.succeeded / r.seconds, cpuUs: ((cpu1 - cpu0) * 1e6) / n, threads, rssMb: (processRss(server.pid) ?? 0) / 1e6, failed: r.failed + r.non2xx, load: loadAverage() };
}

async function main(): Promise<void> {
  if (!haveCommand('h2load')) {
    console.log('ab skipped: h2load is not installed (Debian: apt-get install nghttp2-client)');
    return;
  }
  const variants = variantsFrom('BENCH_AB_VARIANTS', { default: '' });
  const args = variantsFrom('BENCH_AB_ARGS', {});
  const dir = await makeTempDir('orch-ab');
  const body = join(dir, 'create.json');
  const named = join(dir, 'named.json');
  await writeFile(body, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'ab-' }, data: { v: 'x'.repeat(1024) } }));
  await writeFile(named, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ab-get' }, data: { v: 'x'.repeat(1024) } }));
  const machine = describeMachine(machineInfo());
  const samples = new Map<string, Sample[]>();
  const lines: string[] = [];
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [name, options] of Object.entries(variants)) {
        const env = words(options).filter((w) => ENV_WORD.test(w));
        process.env['BENCH_SERVER_NODE_FLAGS'] = words(options).filter((w) => !ENV_WORD.test(w)).join(' ');
        const saved = env.map((w) => w.slice(0, w.indexOf('='))).map((k) => [k, process.env[k]] as const);
        for (const w of env) process.env[w.slice(0, w.indexOf('='))] = w.slice(w.indexOf('=') + 1);
        let server: ServerHandle;
        try {
          server = await startApiServer('embedded', null, words(args[name] ?? ''));
        } finally {
          for (const [k, v] of saved) {
            if (v === undefined) delete process.env[k];
            else process.env[k] = v;
          }
        }
        try {
          for (const port of PORTS) {
            for (const op of OPS) {
              const s = await measure(server, port, op, body, named);
              const key = `${name} | ${port} | ${op}`;
              samples.set(key, [...(samples.get(key) ?? []), s]);
              const line = `| ${round} | ${key} | ${Math.round(s.rate).toLocaleString('en-US')} | ${s.cpuUs.toFixed(0)} | ${s.threads.map(([i, us]) => `#${i} ${us.toFixed(0)}`).join(', ')} | ${s.rssMb.toFixed(0)} | ${s.load.toFixed(2)} |${s.failed > 0 ? ` ${s.failed} failed` : ''}`;
              console.log(line);
              lines.push(line);
            }
          }
        } finally {
          await server.stop();
        }
      }
    }
  } finally {
    delete process.env['BENCH_SERVER_NODE_FLAGS'];
    await removeTempDir(dir);
  }
  const summary = [...samples].map(([key, xs]) => `| ${key} | ${Math.round(median(xs.map((x) => x.rate))).toLocaleString('en-US')} | ${median(xs.map((x) => x.cpuUs)).toFixed(0)} | ${xs.map((x) => x.cpuUs.toFixed(0)).join(' / ')} | ${median(xs.map((x) => x.rssMb)).toFixed(0)} |`);
  const report = [
    '# Server variants side by side (`loadtest/h2load/ab.ts`)',
    '',
    `Machine: ${machine}. Server: ${describeServer()}.`,
    `h2load ${CLIENTS} connections, TLS, bearer token, 1 KiB ConfigMaps; ${ROUNDS} rounds, a fresh server per variant and round; ${SECONDS} s per measurement after 2 s of warm-up.`,
    `Variants (node options): ${Object.entries(variants).map(([n, f]) => `${n} = \`${f || '(none)'}\`${args[n] ? `, server flags \`${args[n]}\`` : ''}`).join('; ')}.`,
    '',
    '| variant | port | op | requests/s (median) | CPU µs/request (median) | each round | RSS MB after (median) |',
    '| --- | --- | --- | ---: | ---: | --- | ---: |',
    ...summary,
    '',
    'Every measurement (threads by start order: #0 main, then V8\'s platform threads, libuv\'s pool, the worker threads; µs of CPU per request):',
    '',
    '| round | variant | port | op | requests/s | CPU µs/request | per thread | RSS MB | load |',
    '| ---: | --- | --- | --- | ---: | ---: | --- | ---: | ---: |',
    ...lines,
    '',
  ].join('\n');
  console.log(`\n${report}`);
  const out = argValue('out');
  if (out !== undefined) {
    await mkdir(dirname(out), { recursive: true });
    await writeFile(out, report);
    console.log(`written to ${out}`);
  }
}

main()
  .catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(() => stopEverything());
