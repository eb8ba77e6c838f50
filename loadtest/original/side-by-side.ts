/**
 * Ours beside the original API server in one run (issue 11's measurement):
 * h2load, 32 connections, TLS, bearer token, 1 KiB ConfigMaps (creates use
 * generateName), on ours' uWS listener (HTTP/1.1) and secure port (HTTP/2) and
 * on the original over HTTP/1.1 and HTTP/2; rounds interleaved (every round
 * visits every target, the order rotated by one each round), medians; server
 * CPU per request from /proc (ours: the one process; the original:
 * kube-apiserver plus its etcd). Then LIST of 50,000 such ConfigMaps
 * (loadtest/list50k/list.ts). Ratio columns: ours over the original.
 *
 *   node --import tsx loadtest/h2load/run.ts --original=/path/to/kube-apiserver [--out=<file>]
 *   (or BENCH_ORIGINAL_APISERVER=/path/to/kube-apiserver)
 *
 * Knobs: BENCH_H2LOAD_SECONDS=8, BENCH_H2LOAD_RUNS=3, BENCH_H2LOAD_CLIENTS=32,
 * BENCH_H2LOAD_GET_NAMES=1000 (as run.ts), BENCH_LIST50K_COUNT=50000,
 * BENCH_LIST50K_RUNS=3, BENCH_LIST50K=0 skips the LIST part; for the original
 * BENCH_ORIGINAL_AUTHZ (default Node,RBAC) and BENCH_ORIGINAL_ARGS.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describeServer, REPO_ROOT, startApiServer, stopEverything, type ServerHandle } from '../api/server.ts';
import { H1Client } from '../api/client.ts';
import { runH2load } from '../h2load/h2load.ts';
import { envNumber } from '../lib/env.ts';
import { describeMachine, loadAverage, machineInfo } from '../lib/machine.ts';
import { processCpuSeconds } from '../lib/memory.ts';
import { quiesce } from '../lib/quiesce.ts';
import { median } from '../lib/stats.ts';
import { makeTempDir, removeTempDir } from '../lib/tmp.ts';
import { LIST_NAMESPACE, listTable, listUserAgent, measureLists, seedConfigMaps } from '../list50k/list.ts';
import { exitOnSignals, foreignLoadGenerators, startOriginalApiServer, type OriginalHandle } from './apiserver.ts';
import type { Target } from './target.ts';

const SECONDS = envNumber('BENCH_H2LOAD_SECONDS', 8);
const RUNS = envNumber('BENCH_H2LOAD_RUNS', 3);
const CLIENTS = envNumber('BENCH_H2LOAD_CLIENTS', 32);
const GET_NAMES = envNumber('BENCH_H2LOAD_GET_NAMES', 1000);
const LIST_COUNT = envNumber('BENCH_LIST50K_COUNT', 50_000);
const LIST_RUNS = envNumber('BENCH_LIST50K_RUNS', 3);
const WARMUP_SECONDS = 2;
const NS_PATH = '/api/v1/namespaces/default/configmaps';

type Op = 'create' | 'get';

export interface Sample {
  readonly rate: number;
  readonly cpuUsPerRequest: number;
  readonly failed: number;
  /** Someone else's h2load was running when this run started (the figures are then suspect). */
  readonly overlapped: boolean;
  /** CPU µs per request of each process behind the target (when it has more than one). */
  readonly partsUs: Record<string, number>;
}

export function oursTargets(server: ServerHandle): Target[] {
  const cpu = (): number => processCpuSeconds(server.pid) ?? 0;
  const ours = { ca: server.ca, token: server.token, cpuSeconds: cpu };
  return [
    { key: 'ours-uws-h1', label: 'ours, uWS listener (HTTP/1.1)', port: server.uwsPort, h1: true, ...ours },
    { key: 'ours-secure-h2', label: 'ours, secure port (HTTP/2)', port: server.securePort, h1: false, ...ours },
  ];
}

export function originalTargets(o: OriginalHandle): Target[] {
  const orig = { ca: o.ca, token: o.token, port: o.securePort, cpuSeconds: () => o.cpuSeconds(), cpuParts: () => o.cpuParts() };
  return [
    { key: 'orig-h1', label: 'original (HTTP/1.1)', h1: true, ...orig },
    { key: 'orig-h2', label: 'original (HTTP/2)', h1: false, ...orig },
  ];
}

/** get-0 … get-(n-1) in the default namespace, 32 at a time. */
async function seedGets(t: Target): Promise<void> {
  const client = new H1Client(`seed-${t.key}`, t.port, t.ca, t.token, { maxSockets: 32 });
  try {
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < GET_NAMES) {
        const i = next++;
        const body = Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `get-${i}` }, data: { v: 'x'.repeat(1024) } }));
        const r = await client.request('POST', NS_PATH, body);
        if (r.status !== 201 && r.status !== 409) throw new Error(`seeding get-${i} on ${t.label}: HTTP ${r.status} ${r.body?.toString('utf8').slice(0, 300)}`);
      }
    };
    await Promise.all(Array.from({ length: 32 }, worker));
  } finally {
    await client.close();
  }
}

interface Files {
  readonly createBody: string;
  getUris(t: Target): string;
}

async function prepareFiles(dir: string, targets: readonly Target[]): Promise<Files> {
  const createBody = join(dir, 'create.json');
  await writeFile(createBody, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'h2l-' }, data: { v: 'x'.repeat(1024) } }));
  const uris = new Map<number, string>();
  for (const t of targets) {
    if (uris.has(t.port)) continue;
    const file = join(dir, `get-uris-${t.port}.txt`);
    await writeFile(file, Array.from({ length: GET_NAMES }, (_, i) => `https://127.0.0.1:${t.port}${NS_PATH}/get-${i}`).join('\n') + '\n');
    uris.set(t.port, file);
  }
  return { createBody, getUris: (t) => uris.get(t.port)! };
}

async function runOnce(t: Target, op: Op, files: Files, seconds: number): Promise<Sample> {
  const base = { url: `https://127.0.0.1:${t.port}`, h1: t.h1, token: t.token, clients: CLIENTS, seconds };
  const overlapped = foreignLoadGenerators() > 0;
  const parts0 = t.cpuParts?.() ?? {};
  const cpu0 = t.cpuSeconds();
  const r = await runH2load(op === 'create' ? { ...base, method: 'POST', dataFile: files.createBody, path: NS_PATH } : { ...base, method: 'GET', inputFile: files.getUris(t) });
  const cpu = t.cpuSeconds() - cpu0;
  const parts1 = t.cpuParts?.() ?? {};
  const partsUs = Object.fromEntries(Object.entries(parts1).map(([k, v]) => [k, r.succeeded > 0 ? ((v - (parts0[k] ?? 0)) * 1e6) / r.succeeded : NaN]));
  return { rate: r.succeeded / r.seconds, cpuUsPerRequest: r.succeeded > 0 ? (cpu * 1e6) / r.succeeded : NaN, failed: r.failed + r.non2xx, overlapped, partsUs };
}

const fmt = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a');
const ratio = (a: number, b: number): string => (Number.isFinite(a / b) && b > 0 ? `${(a / b).toFixed(2)}×` : 'n/a');
const row = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;

/** The h2load part: warm-up, then RUNS interleaved rounds; per target and op the samples. */
async function measureH2load(targets: readonly Target[], files: Files, log: (s: string) => void): Promise<Map<string, Sample[]>> {
  const samples = new Map<string, Sample[]>();
  for (const op of ['create', 'get'] as const) for (const t of targets) await runOnce(t, op, files, WARMUP_SECONDS);
  for (let r = 0; r < RUNS; r++) {
    const order = targets.map((_, i) => targets[(i + r) % targets.length]!);
    for (const op of ['create', 'get'] as const) {
      for (const t of order) {
        // Every target idle first: the previous round's leftovers (the original's GC and etcd) are not charged to this one.
        await quiesce(targets.map((x) => () => x.cpuSeconds()));
        const s = await runOnce(t, op, files, SECONDS);
        log(`  round ${r + 1} ${op} ${t.label}: ${fmt(s.rate)}/s, ${fmt(s.cpuUsPerRequest)} µs CPU/request, ${s.failed} failed${s.overlapped ? ' (another h2load was running)' : ''}`);
        const key = `${t.key}/${op}`;
        samples.set(key, [...(samples.get(key) ?? []), s]);
      }
    }
  }
  return samples;
}

function h2loadTable(targets: readonly Target[], samples: Map<string, Sample[]>): string[] {
  const med = (key: string, op: Op, f: (s: Sample) => number): number => median((samples.get(`${key}/${op}`) ?? []).map(f));
  const rate = (key: string, op: Op): number => med(key, op, (s) => s.rate);
  const cpu = (key: string, op: Op): number => med(key, op, (s) => s.cpuUsPerRequest);
  const failed = (key: string): number => [...(samples.get(`${key}/create`) ?? []), ...(samples.get(`${key}/get`) ?? [])].reduce((n, s) => n + s.failed, 0);
  const lines = [
    row(['', ...targets.map((t) => t.label), 'ours uWS h1 / original h1', 'ours secure h2 / original h2']),
    row(['---', ...targets.map(() => '---:'), '---:', '---:']),
  ];
  for (const op of ['create', 'get'] as const) {
    lines.push(row([`${op}s/s`, ...targets.map((t) => fmt(rate(t.key, op))), ratio(rate('ours-uws-h1', op), rate('orig-h1', op)), ratio(rate('ours-secure-h2', op), rate('orig-h2', op))]));
  }
  for (const op of ['create', 'get'] as const) {
    // CPU: how many times less ours spends per request.
    lines.push(row([`server CPU µs/${op}`, ...targets.map((t) => fmt(cpu(t.key, op))), `${ratio(cpu('orig-h1', op), cpu('ours-uws-h1', op))} less`, `${ratio(cpu('orig-h2', op), cpu('ours-secure-h2', op))} less`]));
  }
  for (const op of ['create', 'get'] as const) {
    const split = (t: Target): string => {
      const xs = samples.get(`${t.key}/${op}`) ?? [];
      const names = Object.keys(xs[0]?.partsUs ?? {});
      return names.length < 2 ? '' : names.map((n) => `${n} ${fmt(median(xs.map((s) => s.partsUs[n] ?? NaN)))}`).join(' + ');
    };
    if (targets.some((t) => split(t) !== '')) lines.push(row([`CPU µs/${op} by process`, ...targets.map(split), '', '']));
  }
  lines.push(row(['failed or non-2xx', ...targets.map((t) => String(failed(t.key))), '', '']));
  return lines;
}

/**
 * Each round's ratios, ours over the original (the original over ours for CPU), and their median. A round runs
 * every target within minutes, so a round's ratio compares runs under about the same load from others; the ratio of
 * the medians above can pair a quiet run of one server with a disturbed run of the other.
 */
export function roundRatiosTable(samples: ReadonlyMap<string, readonly Sample[]>): string[] {
  const pairs = [
    ['ours-uws-h1', 'orig-h1'],
    ['ours-secure-h2', 'orig-h2'],
  ] as const;
  const cell = (ours: string, orig: string, op: Op, of: (s: Sample) => number, inverse: boolean): string => {
    const a = samples.get(`${ours}/${op}`) ?? [];
    const b = samples.get(`${orig}/${op}`) ?? [];
    const rs: number[] = [];
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const r = inverse ? of(b[i]!) / of(a[i]!) : of(a[i]!) / of(b[i]!);
      if (Number.isFinite(r) && r > 0) rs.push(r);
    }
    return rs.length === 0 ? 'n/a' : `${rs.map((r) => r.toFixed(2)).join(' / ')} (median ${median(rs).toFixed(2)}×)`;
  };
  const lines = [row(['each round', 'ours uWS h1 / original h1', 'ours secure h2 / original h2']), row(['---', '---:', '---:'])];
  for (const op of ['create', 'get'] as const) lines.push(row([`${op}s/s`, ...pairs.map(([o, g]) => cell(o, g, op, (s) => s.rate, false))]));
  for (const op of ['create', 'get'] as const) lines.push(row([`server CPU per ${op}, times less`, ...pairs.map(([o, g]) => cell(o, g, op, (s) => s.cpuUsPerRequest, true))]));
  return lines;
}

function roundsTable(targets: readonly Target[], samples: Map<string, Sample[]>): string[] {
  const lines = [row(['target', 'op', ...Array.from({ length: RUNS }, (_, i) => `round ${i + 1} /s (µs CPU)`)]), row(['---', '---', ...Array.from({ length: RUNS }, () => '---:')])];
  for (const op of ['create', 'get'] as const) {
    for (const t of targets) lines.push(row([t.label, op, ...(samples.get(`${t.key}/${op}`) ?? []).map((s) => `${fmt(s.rate)} (${fmt(s.cpuUsPerRequest)})${s.overlapped ? ' *' : ''}`)]));
  }
  return lines;
}

export async function runSideBySide(binary: string, argv: readonly string[], out: string | undefined): Promise<number> {
  const outFile = out ?? join(REPO_ROOT, 'loadtest/results/vs-original.md');
  const log = (s: string): void => console.log(s);
  const machine = describeMachine(machineInfo());
  exitOnSignals();
  const dir = await makeTempDir('orch-vs-original');
  let ours: ServerHandle | null = null;
  let original: OriginalHandle | null = null;
  const lines: string[] = [];
  try {
    ours = await startApiServer('embedded', null);
    original = await startOriginalApiServer(binary);
    log(`ours on ${ours.uwsPort} (uWS) and ${ours.securePort}; original (${original.version}) on ${original.securePort}`);
    const targets = [...oursTargets(ours), ...originalTargets(original)];
    const files = await prepareFiles(dir, targets);
    await seedGets(targets[0]!);
    await seedGets(targets[2]!);
    const samples = await measureH2load(targets, files, log);
    const h2 = h2loadTable(targets, samples);
    log(h2.join('\n'));
    log(roundRatiosTable(samples).join('\n'));

    let list: string[] = [];
    if (process.env['BENCH_LIST50K'] !== '0') {
      const listTargets: Target[] = [
        { ...targets[0]!, key: 'ours-uws', label: 'ours, uWS listener' },
        { ...targets[1]!, key: 'ours-secure', label: 'ours, secure port' },
        { ...targets[3]!, key: 'orig', label: 'original' },
      ];
      for (const t of [listTargets[0]!, listTargets[2]!]) {
        const { seconds } = await seedConfigMaps(t, LIST_NAMESPACE, LIST_COUNT, dir);
        log(`  seeded ${LIST_COUNT} ConfigMaps on ${t.label} in ${seconds.toFixed(1)} s`);
      }
      list = listTable(await measureLists(listTargets, LIST_NAMESPACE, LIST_RUNS, dir, log));
      log(list.join('\n'));
    }
    const cmd = `node --import tsx loadtest/h2load/run.ts --original=<path to kube-apiserver>${argv.filter((a) => !a.startsWith('--original=')).map((a) => ` ${a}`).join('')}`;
    lines.push(
      '# Ours beside the original API server (one run, interleaved)',
      '',
      `Machine: ${machine}, ${loadAverage().toFixed(2)} at the end (the machine is shared; interleaving spreads what others do over every target).`,
      `Ours: ${describeServer()}, embedded storage, \`--log-level=warn\`.`,
      `Original: ${original.version} (k3s' vendored Kubernetes v1.25, built with Debian's Go 1.19, \`-tags providerless\`, CGO off), etcd ${original.etcd.version} (fsync on), flags: \`${original.flags.join(' ')}\`.`,
      `Command: \`${cmd}\`${envNote()}`,
      '',
      ...BUILD_NOTE,
      '',
      `## h2load: ${CLIENTS} connections (one stream each), TLS, bearer token, 1 KiB ConfigMaps (creates use generateName)`,
      '',
      `${RUNS} interleaved rounds of ${SECONDS} s after a ${WARMUP_SECONDS} s warm-up per target, each once every server was idle (loadtest/lib/quiesce.ts); median. Server CPU (all threads, /proc) per successful request:`,
      'ours = the one process; original = kube-apiserver + its etcd. Ratios: ours over the original for rates, the original over ours for CPU.',
      '',
      ...h2,
      '',
      'Every round:',
      '',
      ...roundsTable(targets, samples),
      '',
      'Each round\'s ratios (a round runs every target within minutes, under about the same load from others):',
      '',
      ...roundRatiosTable(samples),
      ...overlapNote(samples),
    );
    if (list.length > 0) {
      lines.push(
        '',
        `## LIST of ${LIST_COUNT.toLocaleString('en-US')} ConfigMaps (1 KiB each, namespace ${LIST_NAMESPACE}), JSON, curl to the last byte`,
        '',
        `Median of ${LIST_RUNS} interleaved rounds after one untimed list per target and kind, each once every server was idle; curl negotiates HTTP/2 where offered (the uWS listener speaks HTTP/1.1);`,
        `User-Agent \`${listUserAgent()}\` (with curl's own the original pretty-prints its JSON).`,
        '',
        ...list,
      );
    }
  } catch (err) {
    if (original) console.error(`original's log tail:\n${original.stderrTail()}`);
    if (ours) console.error(`our server's log tail:\n${ours.stderrTail()}`);
    throw err;
  } finally {
    await ours?.stop();
    await original?.stop();
    await removeTempDir(dir);
    await stopEverything();
  }
  await mkdir(dirname(outFile), { recursive: true });
  await writeFile(outFile, lines.join('\n') + '\n');
  console.log(`\nwritten to ${outFile}`);
  return 0;
}

function overlapNote(samples: Map<string, Sample[]>): string[] {
  const all = [...samples.values()].flat();
  const n = all.filter((s) => s.overlapped).length;
  return n === 0 ? ['', 'No other h2load was running at the start of any run.'] : ['', `* another h2load (someone else's benchmark) was running when ${n} of ${all.length} runs started.`];
}

/** How the original was built (nothing of it, nor a script that builds it, is in this repository). */
const BUILD_NOTE = [
  'How the original was built (outside this repository): the vendored k3s tree of the public repository `btwiuse/k0s`,',
  'branch `vendor` (module github.com/k3s-io/k3s, `vendor/modules.txt` pins k8s.io/kubernetes v1.25.0 => k3s-io/kubernetes',
  'v1.25.0-k3s1), checked out to a directory of its own; a ten-line `package main` calling',
  '`app.NewAPIServerCommand(server.SetupSignalHandler())` (k8s.io/kubernetes/cmd/kube-apiserver/app; the k3s fork takes a stop',
  'channel) through `cli.Run`; Debian `golang-1.19-go`: `GOFLAGS=-mod=vendor GOPROXY=off CGO_ENABLED=0 nice /usr/lib/go-1.19/bin/go',
  'build -tags providerless -o kube-apiserver ./cmd/<main>` (2 minutes, 3 CPU-minutes, on this machine). The mirror lacked five large',
  'vendored files (aws-sdk ec2, go-sqlite3, google compute APIs); none is linked into kube-apiserver with `providerless`.',
];

/** The knobs set in the environment, for the report. */
function envNote(): string {
  const set = Object.entries(process.env)
    .filter(([k, v]) => /^BENCH_(H2LOAD|LIST50K|ORIGINAL_AUTHZ|ORIGINAL_ARGS|SERVER_ARGS|API_)/.test(k) && v !== undefined && v !== '')
    .map(([k, v]) => `${k}=${v}`);
  return set.length > 0 ? ` with ${set.join(' ')}` : '';
}
