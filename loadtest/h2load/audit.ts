/**
 * What audit at Metadata level for every request costs under h2load (issue
 * 17: at most 15% of gets/s): gets/s of 1 KiB ConfigMaps on three servers
 * side by side — audit off, a `level: Metadata` policy for every request with
 * the log backend in batch mode, and the same in blocking mode (the
 * original's default for the log: each request waits for its RequestReceived
 * line; lines of concurrent requests share one write). Rounds rotate the
 * order of the servers so drift on a shared machine hits all alike; medians
 * are reported with the ratios of the medians, the median of each round's
 * ratio, and server CPU (all threads, /proc) per get.
 *
 *   node --import tsx loadtest/h2load/run.ts --audit [--out=<file>]
 *   (or directly: node --import tsx loadtest/h2load/audit.ts)
 *
 * Knobs: BENCH_AUDIT_SECONDS=6 (one measured run), BENCH_AUDIT_RUNS=5 (per
 * server, median), BENCH_H2LOAD_CLIENTS=32, BENCH_AUDIT_PORTS=uws-h1,secure-h2,
 * BENCH_AUDIT_MODES=batch,blocking. Skips with a message without h2load.
 */
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { argValue, envNumber, haveCommand } from '../lib/env.ts';
import { describeMachine, machineInfo } from '../lib/machine.ts';
import { processCpuSeconds } from '../lib/memory.ts';
import { median } from '../lib/stats.ts';
import { makeTempDir, removeTempDir } from '../lib/tmp.ts';
import { REPO_ROOT, describeServer, startApiServer, stopEverything, type ServerHandle } from '../api/server.ts';
import { H1Client } from '../api/client.ts';
import { runH2load } from './h2load.ts';
import { AUDIT_API_VERSION } from '../../src/audit/types.ts';

const SECONDS = envNumber('BENCH_AUDIT_SECONDS', 6);
const RUNS = envNumber('BENCH_AUDIT_RUNS', 5);
const CLIENTS = envNumber('BENCH_H2LOAD_CLIENTS', 32);
const PORTS = (process.env['BENCH_AUDIT_PORTS'] ?? 'uws-h1,secure-h2').split(',').filter((p): p is Port => p === 'uws-h1' || p === 'secure-h2');
const MODES = (process.env['BENCH_AUDIT_MODES'] ?? 'batch,blocking').split(',').filter((m): m is AuditMode => m === 'batch' || m === 'blocking');
const OBJECTS = 200;
const NS = '/api/v1/namespaces/default';

type AuditMode = 'batch' | 'blocking';
type Server = 'off' | AuditMode;
type Port = 'uws-h1' | 'secure-h2';
const PORT_LABEL: Record<Port, string> = { 'uws-h1': 'uWS listener, HTTP/1.1', 'secure-h2': 'secure port, HTTP/2' };

async function seed(server: ServerHandle): Promise<void> {
  const client = new H1Client('seed', server.securePort, server.ca, server.token, { maxSockets: 16 });
  try {
    await Promise.all(
      Array.from({ length: OBJECTS }, async (_, i) => {
        const body = Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `au-${i}` }, data: { v: 'x'.repeat(1024) } }));
        const r = await client.request('POST', `${NS}/configmaps`, body, true);
        if (r.status !== 201 && r.status !== 409) throw new Error(`seed: HTTP ${r.status}`);
      }),
    );
  } finally {
    await client.close();
  }
}

const fmt = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a');
const row = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

async function loadAverage(): Promise<string> {
  return (await readFile('/proc/loadavg', 'utf8').catch(() => '')).split(' ').slice(0, 3).join(' ');
}

async function main(argv: readonly string[] = process.argv.slice(2)): Promise<number> {
  if (!haveCommand('h2load')) {
    console.log('audit benchmark skipped: h2load is not installed (apt-get install nghttp2-client).');
    return 0;
  }
  const out = argValue('out', argv) ?? join(REPO_ROOT, 'loadtest/results/audit.md');
  const dir = await makeTempDir('orch-audit-bench');
  const policy = join(dir, 'policy.yaml');
  await writeFile(policy, `apiVersion: ${AUDIT_API_VERSION}\nkind: Policy\nrules:\n- level: Metadata\n`);
  const names: Server[] = ['off', ...MODES];
  const lines: string[] = [
    '# Audit at Metadata level for every request, under h2load',
    '',
    `Machine: ${describeMachine(machineInfo())}. Server: ${describeServer()}, embedded store, default --frontend-threads.`,
    `Servers side by side: audit off, and \`--audit-policy-file\` (\`level: Metadata\` for every request) with \`--audit-log-path\` in`,
    `${MODES.map((m) => `\`--audit-log-mode=${m}\``).join(' and ')}; h2load ${CLIENTS} connections (one stream each), TLS, GETs of ${OBJECTS} 1 KiB`,
    `ConfigMaps with the admin token; ${RUNS} rounds of ${SECONDS} s per server, the order rotated each round, after a 2 s warm-up of each;`,
    'medians; server CPU (all threads, /proc) per successful request. Target (issue 17): audit costs at most 15% of gets/s.',
    'Command: node --import tsx loadtest/h2load/run.ts --audit',
    '',
    row(['front end', 'audit', 'gets/s', 'CPU µs/get', 'gets/s vs off (medians)', 'gets/s vs off (median of rounds)', 'CPU/get vs off', 'failed']),
    row(['---', '---', '---:', '---:', '---:', '---:', '---:', '---:']),
  ];
  const servers: Partial<Record<Server, ServerHandle>> = {};
  const loads: string[] = [await loadAverage()];
  try {
    for (const name of names) {
      const args = name === 'off' ? [] : [`--audit-policy-file=${policy}`, `--audit-log-path=${join(dir, `audit-${name}.log`)}`, `--audit-log-mode=${name}`];
      servers[name] = await startApiServer('embedded', null, args);
      await seed(servers[name]);
    }
    for (const port of PORTS) {
      const base = async (name: Server) => {
        const s = servers[name]!;
        const p = port === 'uws-h1' ? s.uwsPort : s.securePort;
        const uris = join(dir, `uris-${name}-${port}.txt`);
        await writeFile(uris, Array.from({ length: OBJECTS }, (_, i) => `https://127.0.0.1:${p}${NS}/configmaps/au-${i}`).join('\n') + '\n');
        return { url: `https://127.0.0.1:${p}`, h1: port === 'uws-h1', clients: CLIENTS, method: 'GET' as const, inputFile: uris, token: s.token };
      };
      const runs = Object.fromEntries(await Promise.all(names.map(async (n) => [n, await base(n)] as const))) as Record<Server, Awaited<ReturnType<typeof base>>>;
      const rates = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<Server, number[]>;
      const cpu = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<Server, number[]>;
      const failed = Object.fromEntries(names.map((n) => [n, 0])) as Record<Server, number>;
      for (const n of names) await runH2load({ ...runs[n], seconds: 2 });
      for (let i = 0; i < RUNS; i++) {
        // Rotate the order: each server runs first, middle and last equally often.
        const order = names.map((_, j) => names[(i + j) % names.length]!);
        for (const n of order) {
          const pid = servers[n]!.pid;
          const cpu0 = processCpuSeconds(pid) ?? 0;
          const r = await runH2load({ ...runs[n], seconds: SECONDS });
          const cpu1 = processCpuSeconds(pid) ?? 0;
          rates[n].push(r.succeeded / r.seconds);
          cpu[n].push(r.succeeded > 0 ? ((cpu1 - cpu0) * 1e6) / r.succeeded : NaN);
          failed[n] += r.failed + r.non2xx;
        }
        loads.push(await loadAverage());
      }
      const off = median(rates.off);
      const offCpu = median(cpu.off);
      for (const n of names) {
        const paired = median(rates[n].map((r, i) => r / rates.off[i]!));
        const line = row([PORT_LABEL[port], n === 'off' ? 'off' : `Metadata, log ${n}`, fmt(median(rates[n])), fmt(median(cpu[n])), n === 'off' ? '' : pct(median(rates[n]) / off), n === 'off' ? '' : pct(paired), n === 'off' ? '' : pct(median(cpu[n]) / offCpu), String(failed[n])]);
        console.log(line);
        console.log(`  rounds: ${rates[n].map(fmt).join(', ')}`);
        lines.push(line);
      }
    }
    for (const n of MODES) {
      const size = (await stat(join(dir, `audit-${n}.log`)).catch(() => null))?.size ?? 0;
      lines.push('', `Log written in ${n} mode: ${(size / 1e6).toFixed(0)} MB.`);
    }
  } finally {
    for (const s of Object.values(servers)) await s?.stop();
    await removeTempDir(dir);
    await stopEverything();
  }
  lines.push('', `Load average (1, 5, 15 min) before and after each round: ${loads.join(' → ')}.`);
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, lines.join('\n') + '\n');
  console.log(`\nwritten to ${out}`);
  return 0;
}

/** For run.ts --audit. */
export async function runAuditBench(argv: readonly string[]): Promise<number> {
  return main(argv);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exit(await main());
}
