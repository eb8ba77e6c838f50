/**
 * How much of the machine a create load keeps busy, by concurrency: h2load
 * creates 1 KiB ConfigMaps (TLS, bearer token) over 1, 8, 32, … connections,
 * and for each the rate, the server's CPU (cores, and µs per create, from
 * /proc), the rest of the machine's busy time (the generator and anyone
 * else), and how much of the machine sat idle (/proc/stat: idle + iowait).
 * With --original=<kube-apiserver>, the original (with its etcd) beside ours.
 *
 *   node --import tsx loadtest/h2load/saturation.ts [--original=<path>] [--out=<file>]
 *
 * Why: on a 2-core machine a server whose threads hand each request on
 * (serving thread → store host → shard → serving thread) can leave cores idle
 * while every request waits on another thread, the disk or the generator; the
 * rate then follows the request's path, not its CPU. This puts a number on
 * that, per target, so a change to the path can be judged by it.
 * Knobs: BENCH_SATURATION_CLIENTS=1,8,32,64,256, BENCH_SATURATION_ROUNDS=2
 * (a fresh server per target and round), BENCH_H2LOAD_SECONDS=6 (after 2 s
 * of warm-up). Installs nothing: without h2load (Debian `nghttp2-client`) it
 * says so and skips.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { argValue, envNumber, haveCommand } from '../lib/env.ts';
import { describeMachine, idleShare, machineInfo, machineTicks } from '../lib/machine.ts';
import { processCpuSeconds } from '../lib/memory.ts';
import { median } from '../lib/stats.ts';
import { makeTempDir, removeTempDir } from '../lib/tmp.ts';
import { describeServer, startApiServer, stopEverything } from '../api/server.ts';
import { startOriginalApiServer } from '../original/apiserver.ts';
import { runH2load } from './h2load.ts';

const SECONDS = envNumber('BENCH_H2LOAD_SECONDS', 6);
const ROUNDS = envNumber('BENCH_SATURATION_ROUNDS', 2);
const CLIENTS = (process.env['BENCH_SATURATION_CLIENTS'] ?? '1,8,32,64,256').split(',').map(Number);
const NS_PATH = '/api/v1/namespaces/default/configmaps';

interface Endpoint {
  readonly key: string;
  readonly port: number;
  readonly h1: boolean;
  readonly token: string;
  cpuSeconds(): number;
}

interface Running {
  readonly endpoints: readonly Endpoint[];
  stop(): Promise<void>;
}

interface Sample {
  readonly rate: number;
  readonly serverCores: number;
  readonly cpuUs: number;
  readonly otherCores: number;
  readonly idlePct: number;
}

async function startOurs(): Promise<Running> {
  const server = await startApiServer('embedded', null);
  const cpuSeconds = (): number => processCpuSeconds(server.pid) ?? 0;
  return {
    endpoints: [
      { key: 'ours, uWS listener (HTTP/1.1)', port: server.uwsPort, h1: true, token: server.token, cpuSeconds },
      { key: 'ours, secure port (HTTP/2)', port: server.securePort, h1: false, token: server.token, cpuSeconds },
    ],
    stop: () => server.stop(),
  };
}

async function startOriginal(binary: string): Promise<Running> {
  const o = await startOriginalApiServer(binary);
  return {
    endpoints: [{ key: 'original (HTTP/1.1), kube-apiserver + etcd', port: o.securePort, h1: true, token: o.token, cpuSeconds: () => o.cpuSeconds() }],
    stop: () => o.stop(),
  };
}

async function measure(e: Endpoint, clients: number, body: string): Promise<Sample> {
  const run = { url: `https://127.0.0.1:${e.port}`, path: NS_PATH, h1: e.h1, token: e.token, clients, method: 'POST', dataFile: body } as const;
  await runH2load({ ...run, seconds: 2 });
  const m0 = machineTicks();
  const t0 = performance.now();
  const c0 = e.cpuSeconds();
  const r = await runH2load({ ...run, seconds: SECONDS });
  const c1 = e.cpuSeconds();
  const m1 = machineTicks();
  // /proc/stat counts in USER_HZ (100 a second on Linux), every CPU's ticks summed: the machine's cores.
  const cores = (m1.total - m0.total) / 100 / ((performance.now() - t0) / 1000);
  const serverCores = (c1 - c0) / r.seconds;
  const idle = idleShare(m0, m1);
  const busyCores = cores * (1 - idle);
  return {
    rate: r.succeeded / r.seconds,
    serverCores,
    cpuUs: ((c1 - c0) * 1e6) / Math.max(1, r.succeeded),
    otherCores: Math.max(0, busyCores - serverCores),
    idlePct: 100 * idle,
  };
}

async function main(argv: readonly string[]): Promise<number> {
  if (!haveCommand('h2load')) {
    console.log('saturation skipped: h2load is not installed (Debian: apt-get install nghttp2-client)');
    return 0;
  }
  const original = argValue('original', argv);
  const out = argValue('out', argv);
  const dir = await makeTempDir('orch-saturation');
  const body = join(dir, 'create.json');
  await writeFile(body, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'sat-' }, data: { v: 'x'.repeat(1024) } }));
  const machine = describeMachine(machineInfo());
  const samples = new Map<string, Sample[]>();
  const starts: Array<() => Promise<Running>> = [startOurs];
  if (original !== undefined) starts.push(() => startOriginal(original));
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      for (const start of starts) {
        const running = await start();
        try {
          for (const e of running.endpoints) {
            for (const clients of CLIENTS) {
              const s = await measure(e, clients, body);
              const key = `${e.key} | ${clients}`;
              samples.set(key, [...(samples.get(key) ?? []), s]);
              console.log(`round ${round} | ${key} | ${Math.round(s.rate)}/s | server ${s.serverCores.toFixed(2)} cores, ${s.cpuUs.toFixed(0)} µs/create | rest ${s.otherCores.toFixed(2)} | idle ${s.idlePct.toFixed(1)}%`);
            }
          }
        } finally {
          await running.stop();
        }
      }
    }
  } finally {
    await removeTempDir(dir);
    await stopEverything();
  }
  const med = (xs: readonly Sample[], f: (s: Sample) => number): number => median(xs.map(f));
  const report = [
    '# How much of the machine a create load keeps busy (`loadtest/h2load/saturation.ts`)',
    '',
    `Machine: ${machine}. Ours: ${describeServer()}.`,
    `h2load creates of 1 KiB ConfigMaps (generateName), TLS, bearer token, one stream per connection; ${ROUNDS} round(s), a fresh server per target and round; ${SECONDS} s per measurement after 2 s of warm-up; medians.`,
    'Server cores and µs per create: the server\'s processes (ours: the one process; the original: kube-apiserver + etcd), /proc. Rest: the machine\'s other busy time (the generator, and anyone else). Idle: /proc/stat idle + iowait.',
    '',
    '| target | connections | creates/s | server cores | server CPU µs/create | rest of the machine, cores | machine idle |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...[...samples].map(([key, xs]) => {
      const [target, clients] = key.split(' | ');
      return `| ${target} | ${clients} | ${Math.round(med(xs, (s) => s.rate)).toLocaleString('en-US')} | ${med(xs, (s) => s.serverCores).toFixed(2)} | ${med(xs, (s) => s.cpuUs).toFixed(0)} | ${med(xs, (s) => s.otherCores).toFixed(2)} | ${med(xs, (s) => s.idlePct).toFixed(1)}% |`;
    }),
    '',
  ].join('\n');
  console.log(`\n${report}`);
  if (out !== undefined) {
    await mkdir(dirname(out), { recursive: true });
    await writeFile(out, report);
    console.log(`written to ${out}`);
  }
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.stack : err);
    process.exit(1);
  },
);
