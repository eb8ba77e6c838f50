/**
 * LIST of many 1 KiB ConfigMaps in one namespace, JSON, timed with curl to the
 * last byte: a consistent read (no resourceVersion) and a read from the cache
 * (`resourceVersion=0`), on each target, rounds interleaved, median reported.
 * Seeding goes through h2load (creates with generateName, in chunks), then
 * tops up what generateName collisions refused, until the count is exact.
 */
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { H1Client } from '../api/client.ts';
import { runH2load } from '../h2load/h2load.ts';
import { quiesce } from '../lib/quiesce.ts';
import { median } from '../lib/stats.ts';
import type { Target } from '../original/target.ts';

export const LIST_NAMESPACE = 'list50k';
const SEED_CHUNK = 10_000;
const SEED_ATTEMPTS = 20;

export type ListKind = 'consistent' | 'rv0';
export const LIST_KIND_LABEL: Record<ListKind, string> = { consistent: 'consistent read', rv0: 'from the cache (resourceVersion=0)' };

export interface ListTiming {
  readonly ms: number;
  readonly bytes: number;
  readonly httpVersion: string;
  /** Server CPU during the list (all threads of every process behind the target, /proc; 10 ms ticks). */
  readonly cpuMs: number;
}

export interface ListResult {
  readonly target: Target;
  readonly kind: ListKind;
  /** Median of the timed runs. */
  readonly ms: number;
  readonly runsMs: readonly number[];
  /** Median server CPU per list. */
  readonly cpuMs: number;
  readonly bytes: number;
  readonly httpVersion: string;
}

function client(t: Target): H1Client {
  return new H1Client(`list-${t.key}`, t.port, t.ca, t.token, { maxSockets: 1, timeoutMs: 120_000 });
}

async function ensureNamespace(t: Target, ns: string): Promise<void> {
  const c = client(t);
  try {
    const r = await c.request('POST', '/api/v1/namespaces', Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })));
    if (r.status !== 201 && r.status !== 409) throw new Error(`creating namespace ${ns} on ${t.label}: HTTP ${r.status} ${r.body?.toString('utf8').slice(0, 300)}`);
  } finally {
    await c.close();
  }
}

/** ConfigMaps in `ns`: one item plus metadata.remainingItemCount of a `limit=1` list. */
export async function countConfigMaps(t: Target, ns: string): Promise<number> {
  const c = client(t);
  try {
    const r = await c.request('GET', `/api/v1/namespaces/${ns}/configmaps?limit=1`, null, true);
    if (r.status !== 200 || !r.body) throw new Error(`counting on ${t.label}: HTTP ${r.status}`);
    const list = JSON.parse(r.body.toString('utf8')) as { items?: unknown[]; metadata?: { remainingItemCount?: number } };
    return (list.items?.length ?? 0) + (list.metadata?.remainingItemCount ?? 0);
  } finally {
    await c.close();
  }
}

/** Exactly `count` 1 KiB ConfigMaps in `ns` (created with generateName through h2load, 32 connections). */
export async function seedConfigMaps(t: Target, ns: string, count: number, dir: string): Promise<{ seconds: number }> {
  await ensureNamespace(t, ns);
  const body = join(dir, `list-create.json`);
  await writeFile(body, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'l-' }, data: { v: 'x'.repeat(1024) } }));
  const t0 = performance.now();
  let have = await countConfigMaps(t, ns);
  for (let i = 0; have < count && i < SEED_ATTEMPTS; i++) {
    const n = Math.min(SEED_CHUNK, count - have);
    await runH2load({ url: `https://127.0.0.1:${t.port}`, path: `/api/v1/namespaces/${ns}/configmaps`, h1: t.h1, token: t.token, clients: Math.min(32, n), method: 'POST', dataFile: body, requests: n });
    have = await countConfigMaps(t, ns);
  }
  if (have !== count) throw new Error(`seeding ${ns} on ${t.label}: ${have} ConfigMaps, wanted ${count}`);
  return { seconds: (performance.now() - t0) / 1000 };
}

/**
 * The User-Agent curl sends. Not curl's own: the original pretty-prints JSON
 * (indented, about 20% more bytes, slower to encode) for agents starting with
 * "curl", "Wget" or "Mozilla/5.0", which no API client is; BENCH_LIST50K_USER_AGENT=curl/7.88.1 measures that case.
 */
export function listUserAgent(): string {
  return process.env['BENCH_LIST50K_USER_AGENT'] ?? 'list50k-bench';
}

/** One LIST timed by curl from start to the last byte (the body is discarded; the token goes in a 0600 header file, not argv). */
export async function timeList(t: Target, ns: string, kind: ListKind, dir: string): Promise<ListTiming> {
  const query = kind === 'rv0' ? '?resourceVersion=0' : '';
  const headers = join(dir, `curl-headers-${t.key}.txt`);
  const cafile = join(dir, `ca-${t.key}.crt`);
  await writeFile(headers, `Authorization: Bearer ${t.token}\nAccept: application/json\n`, { mode: 0o600 });
  await writeFile(cafile, t.ca);
  const args = ['-sS', '-o', '/dev/null', '--cacert', cafile, '-H', `@${headers}`, '-A', listUserAgent(), '-w', '%{http_code} %{time_total} %{size_download} %{http_version}'];
  if (t.h1) args.push('--http1.1');
  args.push(`https://127.0.0.1:${t.port}/api/v1/namespaces/${ns}/configmaps${query}`);
  const cpu0 = t.cpuSeconds();
  return new Promise<ListTiming>((resolve, reject) => {
    execFile('curl', args, { timeout: 300_000 }, (err, stdout, stderr) => {
      const [code, total, size, version] = stdout.trim().split(' ');
      if (err || code !== '200') {
        reject(new Error(`curl LIST on ${t.label}: ${err?.message ?? ''} HTTP ${code} ${stderr.slice(0, 300)}`));
        return;
      }
      resolve({ ms: Number(total) * 1000, bytes: Number(size), httpVersion: version ?? '?', cpuMs: (t.cpuSeconds() - cpu0) * 1000 });
    });
  });
}

/**
 * Every target and kind once untimed (warm-up), then `runs` rounds, each
 * going through all targets in an order rotated by one per round.
 */
export async function measureLists(targets: readonly Target[], ns: string, runs: number, dir: string, log: (line: string) => void = () => undefined): Promise<ListResult[]> {
  const kinds: ListKind[] = ['consistent', 'rv0'];
  const timings = new Map<string, ListTiming[]>();
  for (const t of targets) for (const k of kinds) await timeList(t, ns, k, dir);
  for (let r = 0; r < runs; r++) {
    const order = targets.map((_, i) => targets[(i + r) % targets.length]!);
    for (const t of order) {
      for (const k of kinds) {
        await quiesce(targets.map((x) => () => x.cpuSeconds()));
        const x = await timeList(t, ns, k, dir);
        log(`  LIST round ${r + 1} ${t.label} ${k}: ${Math.round(x.ms)} ms (server CPU ${Math.round(x.cpuMs)} ms), ${x.bytes} bytes, HTTP/${x.httpVersion}`);
        const key = `${t.key}/${k}`;
        timings.set(key, [...(timings.get(key) ?? []), x]);
      }
    }
  }
  const out: ListResult[] = [];
  for (const t of targets) {
    for (const k of kinds) {
      const xs = timings.get(`${t.key}/${k}`) ?? [];
      out.push({ target: t, kind: k, ms: median(xs.map((x) => x.ms)), runsMs: xs.map((x) => x.ms), cpuMs: median(xs.map((x) => x.cpuMs)), bytes: xs[0]?.bytes ?? 0, httpVersion: xs[0]?.httpVersion ?? '?' });
    }
  }
  return out;
}

const fmt = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a');
const ratio = (a: number, b: number): string => (Number.isFinite(a / b) && b > 0 ? `${(a / b).toFixed(2)}×` : 'n/a');
const row = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;

/** Markdown rows: median ms per target and kind, ratios ours/original (targets keyed ours-uws, ours-secure, orig). */
export function listTable(results: readonly ListResult[]): string[] {
  const get = (key: string, kind: ListResult['kind']): ListResult | undefined => results.find((r) => r.target.key === key && r.kind === kind);
  const keys = ['ours-uws', 'ours-secure', 'orig'];
  const labels = keys.map((k) => get(k, 'consistent')?.target.label ?? k);
  const lines = [row(['LIST, median ms', ...labels, 'ours uWS / original', 'ours secure / original']), row(['---', ...keys.map(() => '---:'), '---:', '---:'])];
  for (const kind of ['consistent', 'rv0'] as const) {
    const ms = keys.map((k) => get(k, kind)?.ms ?? NaN);
    lines.push(row([LIST_KIND_LABEL[kind], ...ms.map(fmt), ratio(ms[0]!, ms[2]!), ratio(ms[1]!, ms[2]!)]));
  }
  for (const kind of ['consistent', 'rv0'] as const) {
    const cpu = keys.map((k) => get(k, kind)?.cpuMs ?? NaN);
    lines.push(row([`server CPU ms, ${LIST_KIND_LABEL[kind]}`, ...cpu.map(fmt), ratio(cpu[0]!, cpu[2]!), ratio(cpu[1]!, cpu[2]!)]));
  }
  lines.push(row(['HTTP version, response bytes', ...keys.map((k) => `${get(k, 'consistent')?.httpVersion ?? '?'}, ${fmt(get(k, 'consistent')?.bytes ?? NaN)}`), '', '']));
  lines.push('', 'Every timed run (ms): ' + results.map((r) => `${r.target.key} ${r.kind}: ${r.runsMs.map((x) => Math.round(x)).join(', ')}`).join('; ') + '.');
  return lines;
}
