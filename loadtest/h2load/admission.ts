/**
 * What the default admission chain costs per create under h2load: two
 * servers side by side, one with the default plugins of spec 8 (no webhook
 * configured), one with every default plugin but NamespaceLifecycle disabled
 * — the chain this server ran before the admission issue. Creates of 1 KiB
 * ConfigMaps (the README's headline create) and of minimal Pods (the kind
 * most default plugins act on), `generateName`, TLS, the admin token. Rounds
 * alternate (order flipped each round) so drift on a shared machine hits both
 * alike; medians with the ratio of medians, the median of each round's ratio
 * and server CPU per create (target: the default chain within 15%).
 *
 *   node --import tsx loadtest/h2load/admission.ts [--out=<file>]
 *
 * Knobs: BENCH_ADMISSION_SECONDS=5, BENCH_ADMISSION_RUNS=3, BENCH_H2LOAD_CLIENTS=32,
 * BENCH_ADMISSION_PORTS=uws-h1,secure-h2. Skips with a message without h2load.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { argValue, envNumber, haveCommand } from '../lib/env.ts';
import { describeMachine, machineInfo } from '../lib/machine.ts';
import { processCpuSeconds } from '../lib/memory.ts';
import { median } from '../lib/stats.ts';
import { makeTempDir, removeTempDir } from '../lib/tmp.ts';
import { writeResults } from '../lib/results.ts';
import { REPO_ROOT, describeServer, startApiServer, stopEverything, type ServerHandle } from '../api/server.ts';
import { runH2load } from './h2load.ts';
import { H1Client } from '../api/client.ts';
import { DEFAULT_ON_ADMISSION_PLUGINS } from '../../src/admission/plugin-names.ts';

const SECONDS = envNumber('BENCH_ADMISSION_SECONDS', 5);
const RUNS = envNumber('BENCH_ADMISSION_RUNS', 3);
const CLIENTS = envNumber('BENCH_H2LOAD_CLIENTS', 32);
const PORTS = (process.env['BENCH_ADMISSION_PORTS'] ?? 'uws-h1,secure-h2').split(',').filter((p): p is Port => p === 'uws-h1' || p === 'secure-h2');
const NS = '/api/v1/namespaces/default';

type Chain = 'lifecycle' | 'defaults';
type Port = 'uws-h1' | 'secure-h2';
type Kind = 'configmaps' | 'pods';
const PORT_LABEL: Record<Port, string> = { 'uws-h1': 'uWS listener, HTTP/1.1', 'secure-h2': 'secure port, HTTP/2' };

const BODIES: Record<Kind, unknown> = {
  configmaps: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'adm-' }, data: { v: 'x'.repeat(1024) } },
  pods: { apiVersion: 'v1', kind: 'Pod', metadata: { generateName: 'adm-' }, spec: { containers: [{ name: 'c', image: 'registry.example/app:1' }] } },
};

/** Until the `default` service account exists (the ServiceAccount plugin refuses pods before it). */
async function untilReady(server: ServerHandle): Promise<void> {
  const client = new H1Client('probe', server.securePort, server.ca, server.token, { maxSockets: 1 });
  try {
    const end = Date.now() + 30_000;
    for (;;) {
      const r = await client.request('GET', `${NS}/serviceaccounts/default`);
      if (r.status === 200) return;
      if (Date.now() > end) throw new Error(`the default service account never appeared: HTTP ${r.status}`);
      await new Promise((res) => setTimeout(res, 200));
    }
  } finally {
    await client.close();
  }
}

const fmt = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a');
const row = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;

async function main(argv: readonly string[] = process.argv.slice(2)): Promise<number> {
  if (!haveCommand('h2load')) {
    console.log('admission benchmark skipped: h2load is not installed (apt-get install nghttp2-client).');
    return 0;
  }
  const out = argValue('out', argv) ?? join(REPO_ROOT, 'loadtest/results/admission.md');
  const dir = await makeTempDir('orch-admission');
  const disable = DEFAULT_ON_ADMISSION_PLUGINS.filter((n) => n !== 'NamespaceLifecycle').join(',');
  const lines: string[] = [
    '# The default admission chain vs NamespaceLifecycle alone, creates under h2load',
    '',
    `Machine: ${describeMachine(machineInfo())}. Server: ${describeServer()}, embedded store.`,
    'Two servers side by side: the default plugins (no webhook configured) and `--disable-admission-plugins=` every other',
    `default plugin; h2load ${CLIENTS} connections (one stream each), TLS, admin token, creates with generateName; ${RUNS} rounds`,
    `of ${SECONDS} s per chain, alternating (order flipped each round) after a 2 s warm-up of each; median; server CPU (all threads,`,
    '/proc) per successful create. Pods are minimal (one container): ServiceAccount, Priority, DefaultTolerationSeconds,',
    'PodSecurity, LimitRanger, ResourceQuota and the webhooks all look at them.',
    'Command: node --import tsx loadtest/h2load/admission.ts',
    '',
    row(['kind', 'front end', 'NamespaceLifecycle creates/s', 'CPU µs', 'default chain creates/s', 'CPU µs', 'ratio (medians)', 'ratio (median of rounds)', 'CPU ratio', 'failed']),
    row(['---', '---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:']),
  ];
  const servers: Partial<Record<Chain, ServerHandle>> = {};
  try {
    servers.lifecycle = await startApiServer('embedded', null, [`--disable-admission-plugins=${disable}`]);
    servers.defaults = await startApiServer('embedded', null, []);
    await untilReady(servers.defaults);
    for (const kind of ['configmaps', 'pods'] as const) {
      const data = join(dir, `${kind}.json`);
      await writeFile(data, JSON.stringify(BODIES[kind]));
      for (const port of PORTS) {
        const run = (chain: Chain) => {
          const s = servers[chain]!;
          return { url: `https://127.0.0.1:${port === 'uws-h1' ? s.uwsPort : s.securePort}`, path: `${NS}/${kind}`, h1: port === 'uws-h1', clients: CLIENTS, method: 'POST' as const, dataFile: data, token: s.token };
        };
        const rates: Record<Chain, number[]> = { lifecycle: [], defaults: [] };
        const cpu: Record<Chain, number[]> = { lifecycle: [], defaults: [] };
        let failed = 0;
        for (const chain of ['lifecycle', 'defaults'] as const) await runH2load({ ...run(chain), seconds: 2 });
        for (let i = 0; i < RUNS; i++) {
          const order: Chain[] = i % 2 === 0 ? ['lifecycle', 'defaults'] : ['defaults', 'lifecycle'];
          for (const chain of order) {
            const pid = servers[chain]!.pid;
            const cpu0 = processCpuSeconds(pid) ?? 0;
            const r = await runH2load({ ...run(chain), seconds: SECONDS });
            const cpu1 = processCpuSeconds(pid) ?? 0;
            rates[chain].push(r.succeeded / r.seconds);
            cpu[chain].push(r.succeeded > 0 ? ((cpu1 - cpu0) * 1e6) / r.succeeded : NaN);
            failed += r.failed + r.non2xx;
          }
        }
        const l = median(rates.lifecycle);
        const d = median(rates.defaults);
        const paired = median(rates.defaults.map((r, i) => r / rates.lifecycle[i]!));
        const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
        const line = row([kind, PORT_LABEL[port], fmt(l), fmt(median(cpu.lifecycle)), fmt(d), fmt(median(cpu.defaults)), pct(d / l), pct(paired), pct(median(cpu.defaults) / median(cpu.lifecycle)), String(failed)]);
        console.log(line);
        console.log(`  rounds NamespaceLifecycle: ${rates.lifecycle.map(fmt).join(', ')}; default chain: ${rates.defaults.map(fmt).join(', ')}`);
        lines.push(line);
      }
    }
  } finally {
    for (const s of Object.values(servers)) await s?.stop();
    await removeTempDir(dir);
    await stopEverything();
  }
  await writeResults(out, lines);
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exit(await main());
}
