/**
 * What authorization costs per request under h2load: gets/s of 1 KiB
 * ConfigMaps with `--authorization-mode=Node,RBAC` (BENCH_AUTHZ_MODE to
 * change) vs `AlwaysAllow`, two servers side by side, each read with the
 * token of a user NOT in system:masters — a service account whose only
 * access is a RoleBinding to a Role allowing `get` on configmaps, so every
 * request goes through the Node authorizer (no opinion) and RBAC's index.
 * Rounds alternate between the servers (order flipped each round) so drift
 * on a shared machine hits both alike; medians are reported with the ratios
 * of the medians, the median of each round's ratio, and server CPU per get
 * (target: RBAC within 10% of AlwaysAllow).
 *
 *   node --import tsx loadtest/h2load/run.ts --authz [--out=<file>]
 *   (or directly: node --import tsx loadtest/h2load/authz.ts)
 *
 * Knobs: BENCH_AUTHZ_SECONDS=6 (one measured run), BENCH_AUTHZ_RUNS=5 (per
 * mode, median), BENCH_H2LOAD_CLIENTS=32, BENCH_AUTHZ_MODE=Node,RBAC,
 * BENCH_AUTHZ_PORTS=uws-h1,secure-h2. Skips with a message without h2load.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { argValue, envNumber, haveCommand } from '../lib/env.ts';
import { describeMachine, machineInfo } from '../lib/machine.ts';
import { processCpuSeconds } from '../lib/memory.ts';
import { median } from '../lib/stats.ts';
import { makeTempDir, removeTempDir } from '../lib/tmp.ts';
import { REPO_ROOT, describeServer, startApiServer, stopEverything, type ServerHandle } from '../api/server.ts';
import { H1Client } from '../api/client.ts';
import { runH2load } from './h2load.ts';
import { apiGroup } from '../../src/naming/index.ts';

const SECONDS = envNumber('BENCH_AUTHZ_SECONDS', 6);
const RUNS = envNumber('BENCH_AUTHZ_RUNS', 5);
const CLIENTS = envNumber('BENCH_H2LOAD_CLIENTS', 32);
const MODE = process.env['BENCH_AUTHZ_MODE'] ?? 'Node,RBAC';
const PORTS = (process.env['BENCH_AUTHZ_PORTS'] ?? 'uws-h1,secure-h2').split(',').filter((p): p is Port => p === 'uws-h1' || p === 'secure-h2');
const OBJECTS = 200;
const NS = '/api/v1/namespaces/default';
const RBAC = apiGroup('rbac.authorization');

type Mode = 'AlwaysAllow' | 'authz';
type Port = 'uws-h1' | 'secure-h2';
const PORT_LABEL: Record<Port, string> = { 'uws-h1': 'uWS listener, HTTP/1.1', 'secure-h2': 'secure port, HTTP/2' };

async function send(client: H1Client, method: string, path: string, body: unknown, ok: number[]): Promise<Buffer | null> {
  const r = await client.request(method, path, Buffer.from(JSON.stringify(body)), true);
  if (!ok.includes(r.status)) throw new Error(`${method} ${path}: HTTP ${r.status} ${r.body?.toString('utf8').slice(0, 300)}`);
  return r.body;
}

/** Objects, the service account, its Role and RoleBinding (get configmaps), and its token, on one server. */
async function prepare(server: ServerHandle): Promise<string> {
  const client = new H1Client('seed', server.securePort, server.ca, server.token, { maxSockets: 16 });
  try {
    await Promise.all(
      Array.from({ length: OBJECTS }, (_, i) =>
        send(client, 'POST', `${NS}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `az-${i}` }, data: { v: 'x'.repeat(1024) } }, [201, 409]),
      ),
    );
    await send(client, 'POST', `${NS}/serviceaccounts`, { metadata: { name: 'reader' } }, [201, 409]);
    await send(client, 'POST', `/apis/${RBAC}/v1/namespaces/default/roles`, {
      apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name: 'cm-get' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }],
    }, [201, 409]);
    await send(client, 'POST', `/apis/${RBAC}/v1/namespaces/default/rolebindings`, {
      apiVersion: `${RBAC}/v1`, kind: 'RoleBinding', metadata: { name: 'cm-get' },
      roleRef: { apiGroup: RBAC, kind: 'Role', name: 'cm-get' }, subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: 'default' }],
    }, [201, 409]);
    const tr = await send(client, 'POST', `${NS}/serviceaccounts/reader/token`, { spec: { expirationSeconds: 7200 } }, [201]);
    return (JSON.parse(tr!.toString('utf8')) as { status: { token: string } }).status.token;
  } finally {
    await client.close();
  }
}

/** Until the binding has reached the serving threads' index (through their watches). */
async function untilAllowed(server: ServerHandle, token: string): Promise<void> {
  const client = new H1Client('probe', server.securePort, server.ca, token, { maxSockets: 1 });
  try {
    const end = Date.now() + 30_000;
    for (;;) {
      const r = await client.request('GET', `${NS}/configmaps/az-0`);
      if (r.status === 200) return;
      if (Date.now() > end) throw new Error(`the reader never got its configmaps: HTTP ${r.status}`);
      await new Promise((res) => setTimeout(res, 100));
    }
  } finally {
    await client.close();
  }
}

const fmt = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a');
const row = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;

async function main(argv: readonly string[] = process.argv.slice(2)): Promise<number> {
  if (!haveCommand('h2load')) {
    console.log('authorization benchmark skipped: h2load is not installed (apt-get install nghttp2-client).');
    return 0;
  }
  const out = argValue('out', argv) ?? join(REPO_ROOT, 'loadtest/results/authz.md');
  const dir = await makeTempDir('orch-authz');
  const lines: string[] = [
    `# ${MODE} vs AlwaysAllow under h2load`,
    '',
    `Machine: ${describeMachine(machineInfo())}. Server: ${describeServer()}, embedded store.`,
    `Two servers side by side, \`--authorization-mode=${MODE}\` and \`AlwaysAllow\`; h2load ${CLIENTS} connections (one stream each), TLS,`,
    `GETs of ${OBJECTS} 1 KiB ConfigMaps with a service account's token (not system:masters; a RoleBinding to a Role with get on`,
    `configmaps); ${RUNS} rounds of ${SECONDS} s per mode, alternating (order flipped each round), after a 2 s warm-up of each; median;`,
    'server CPU (all threads, /proc) per successful request.',
    'Command: node --import tsx loadtest/h2load/run.ts --authz',
    '',
    row(['front end', 'AlwaysAllow gets/s', 'CPU µs/get', `${MODE} gets/s`, 'CPU µs/get', 'gets/s ratio (medians)', 'gets/s ratio (median of rounds)', 'CPU/get ratio', 'failed']),
    row(['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:']),
  ];
  const servers: Partial<Record<Mode, ServerHandle>> = {};
  try {
    servers.AlwaysAllow = await startApiServer('embedded', null, ['--authorization-mode=AlwaysAllow']);
    servers.authz = await startApiServer('embedded', null, [`--authorization-mode=${MODE}`]);
    const tokens: Record<Mode, string> = { AlwaysAllow: await prepare(servers.AlwaysAllow), authz: await prepare(servers.authz) };
    await untilAllowed(servers.authz, tokens.authz);
    for (const port of PORTS) {
      const base = async (mode: Mode) => {
        const s = servers[mode]!;
        const p = port === 'uws-h1' ? s.uwsPort : s.securePort;
        const uris = join(dir, `uris-${mode}-${port}.txt`);
        await writeFile(uris, Array.from({ length: OBJECTS }, (_, i) => `https://127.0.0.1:${p}${NS}/configmaps/az-${i}`).join('\n') + '\n');
        return { url: `https://127.0.0.1:${p}`, h1: port === 'uws-h1', clients: CLIENTS, method: 'GET' as const, inputFile: uris, token: tokens[mode] };
      };
      const runs: Record<Mode, Awaited<ReturnType<typeof base>>> = { AlwaysAllow: await base('AlwaysAllow'), authz: await base('authz') };
      const rates: Record<Mode, number[]> = { AlwaysAllow: [], authz: [] };
      const cpu: Record<Mode, number[]> = { AlwaysAllow: [], authz: [] };
      let failed = 0;
      for (const mode of ['AlwaysAllow', 'authz'] as const) await runH2load({ ...runs[mode], seconds: 2 });
      for (let i = 0; i < RUNS; i++) {
        const order: Mode[] = i % 2 === 0 ? ['AlwaysAllow', 'authz'] : ['authz', 'AlwaysAllow'];
        for (const mode of order) {
          const pid = servers[mode]!.pid;
          const cpu0 = processCpuSeconds(pid) ?? 0;
          const r = await runH2load({ ...runs[mode], seconds: SECONDS });
          const cpu1 = processCpuSeconds(pid) ?? 0;
          rates[mode].push(r.succeeded / r.seconds);
          cpu[mode].push(r.succeeded > 0 ? ((cpu1 - cpu0) * 1e6) / r.succeeded : NaN);
          failed += r.failed + r.non2xx;
        }
      }
      const a = median(rates.AlwaysAllow);
      const z = median(rates.authz);
      // Each round's two runs are back to back: their ratio cancels the drift between rounds.
      const paired = median(rates.authz.map((r, i) => r / rates.AlwaysAllow[i]!));
      const cpuRatio = median(cpu.authz) / median(cpu.AlwaysAllow);
      const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
      const line = row([PORT_LABEL[port], fmt(a), fmt(median(cpu.AlwaysAllow)), fmt(z), fmt(median(cpu.authz)), pct(z / a), pct(paired), pct(cpuRatio), String(failed)]);
      console.log(line);
      console.log(`  rounds AlwaysAllow: ${rates.AlwaysAllow.map(fmt).join(', ')}; ${MODE}: ${rates.authz.map(fmt).join(', ')}`);
      lines.push(line);
    }
  } finally {
    for (const s of Object.values(servers)) await s?.stop();
    await removeTempDir(dir);
    await stopEverything();
  }
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, lines.join('\n') + '\n');
  console.log(`\nwritten to ${out}`);
  return 0;
}

/** For run.ts --authz. */
export async function runAuthzBench(argv: readonly string[]): Promise<number> {
  return main(argv);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exit(await main());
}
