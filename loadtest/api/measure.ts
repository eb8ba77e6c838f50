/**
 * The measurements: creates/s and gets/s at a fixed concurrency, bulk fill,
 * LIST (full, resourceVersion=0, paged) and RSS probes of other processes.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { processRss } from '../lib/memory.ts';
import { median, medianRun, summarize } from '../lib/stats.ts';
import { drive, now, sleep } from '../lib/timer.ts';
import { H1Client, H2Client, type ApiClient, type Reply } from './client.ts';
import type { ServerHandle } from './server.ts';
import type { ApiSettings } from './settings.ts';

export type FrontendName = 'uws-h1' | 'node-h1' | 'node-h2';
export const FRONTENDS: readonly FrontendName[] = ['uws-h1', 'node-h1', 'node-h2'];
export const FRONTEND_LABEL: Record<FrontendName, string> = {
  'uws-h1': 'uWS port, HTTP/1.1',
  'node-h1': 'secure port, HTTP/1.1',
  'node-h2': 'secure port, HTTP/2',
};

export const CM_PATH = '/api/v1/namespaces/default/configmaps';

export async function openClient(server: ServerHandle, fe: FrontendName, sockets: number, timeoutMs: number): Promise<ApiClient> {
  switch (fe) {
    case 'uws-h1':
      return new H1Client(fe, server.uwsPort, server.ca, server.token, { maxSockets: sockets, timeoutMs });
    case 'node-h1':
      return new H1Client(fe, server.securePort, server.ca, server.token, { maxSockets: sockets, timeoutMs });
    case 'node-h2':
      return H2Client.connect(fe, server.securePort, server.ca, server.token, { timeoutMs });
  }
}

/** Non-2xx answers and transport errors seen in a measurement. */
export class Tally {
  readonly counts = new Map<string, number>();
  readonly samples: string[] = [];
  total = 0;

  bad(what: string, detail: string): void {
    this.total++;
    this.counts.set(what, (this.counts.get(what) ?? 0) + 1);
    if (this.samples.length < 3) this.samples.push(`${what}: ${detail.slice(0, 300)}`);
  }

  reply(r: Reply, expected: number, what: string): boolean {
    if (r.status === expected) return true;
    this.bad(`HTTP ${r.status}`, `${what}: ${r.body?.toString('utf8') ?? ''}`);
    return false;
  }

  error(err: unknown, what: string): void {
    const msg = err instanceof Error ? err.message : String(err);
    this.bad(`error ${(err as { code?: string }).code ?? 'transport'}`, `${what}: ${msg}`);
  }

  merge(other: Tally): void {
    for (const [k, v] of other.counts) this.counts.set(k, (this.counts.get(k) ?? 0) + v);
    this.total += other.total;
    for (const s of other.samples) if (this.samples.length < 3) this.samples.push(s);
  }

  describe(): string {
    return [...this.counts].map(([k, v]) => `${v} x ${k}`).join(', ');
  }
}

/** Stops a drive when errors pile up (a broken server must not spin a loop). */
const MAX_ERRORS = 200;

export function configMapBody(name: string, valueBytes: number): Buffer {
  // Printable, varied filler so the value is ~1 KiB of ordinary text.
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  let value = '';
  for (let i = 0; i < valueBytes; i++) value += alphabet[(i * 7 + name.length) % alphabet.length];
  return Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { payload: value } }));
}

/** A 1 KiB ConfigMap body with the name spliced in (building the value once). */
export class BodyMaker {
  readonly #prefix: string;
  readonly #suffix: string;
  constructor(valueBytes: number) {
    const mark = '@NAME@';
    const t = configMapBody(mark, valueBytes).toString('utf8');
    const at = t.indexOf(mark);
    this.#prefix = t.slice(0, at);
    this.#suffix = t.slice(at + mark.length);
  }
  body(name: string): Buffer {
    return Buffer.from(this.#prefix + name + this.#suffix);
  }
}

/** CPU seconds (user + system) of a process, all threads, from /proc; NaN when unreadable. */
export function cpuSecondsOf(pid: number, tid?: number): number {
  try {
    const stat = readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/** CPU seconds of each thread of a process, by thread id. */
export function threadCpuSeconds(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const t of tids) {
    const v = cpuSecondsOf(pid, Number(t));
    if (Number.isFinite(v)) out.set(Number(t), v);
  }
  return out;
}

/** CPU seconds the whole machine spent busy (all CPUs), from /proc/stat; NaN when unreadable. */
export function machineBusySeconds(): number {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
    const f = line.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal
    return (f[0]! + f[1]! + f[2]! + f[5]! + f[6]! + f[7]!) / 100;
  } catch {
    return Number.NaN;
  }
}

/** Peak RSS (VmHWM) and thread count of a process, from /proc. */
export function peakRssAndThreads(pid: number): { peak: number; threads: number } {
  try {
    const s = readFileSync(`/proc/${pid}/status`, 'utf8');
    const hwm = /VmHWM:\s+(\d+)\s+kB/.exec(s);
    const th = /Threads:\s+(\d+)/.exec(s);
    return { peak: hwm ? Number(hwm[1]) * 1024 : Number.NaN, threads: th ? Number(th[1]) : Number.NaN };
  } catch {
    return { peak: Number.NaN, threads: Number.NaN };
  }
}

/** The lowest RSS of `pid` sampled over `windowMs` (lets an idle server's heap settle). */
export async function settledRssOf(pid: number, windowMs = 3000, everyMs = 250): Promise<number> {
  let low = Number.POSITIVE_INFINITY;
  for (let waited = 0; waited <= windowMs; waited += everyMs) {
    const r = processRss(pid);
    if (r !== null) low = Math.min(low, r);
    if (waited < windowMs) await sleep(everyMs);
  }
  return Number.isFinite(low) ? low : Number.NaN;
}

export interface RateResult {
  /** Operations per second of the median run. */
  readonly rate: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly ops: number;
  readonly runRates: readonly number[];
  /** Cores used by the server process (all threads) during the median run. */
  readonly serverCores: number;
  /** Of those, the server's main thread (its event loop: front ends, handlers). */
  readonly serverMainCores: number;
  /** The busiest other thread of the server (a shard or the store host), cores. */
  readonly serverBusiestWorkerCores: number;
  /** Cores used by this load-generator process during the median run. */
  readonly clientCores: number;
  /** Cores used by etcd during the median run (NaN without etcd). */
  readonly etcdCores: number;
  /** Cores used by everything else on the machine during the median run. */
  readonly otherCores: number;
  /** Runs done again because other processes disturbed them. */
  readonly redone: number;
  readonly errors: Tally;
}

interface OneRun {
  rate: number;
  ops: number;
  p50: number;
  p99: number;
  max: number;
  serverCores: number;
  serverMainCores: number;
  serverBusiestWorkerCores: number;
  clientCores: number;
  etcdCores: number;
  otherCores: number;
}

/** CPU use of the machine by everything but the benchmark's own processes. */
export class Quiet {
  /** Time spent waiting for quiet and redoing disturbed runs, ms. */
  spentMs = 0;

  constructor(
    /** Cap on {@link spentMs} over the whole benchmark. */
    readonly budgetMs: number,
    /** Above this many cores used by others, a run counts as disturbed. */
    readonly maxOtherCores = 0.25,
  ) {}

  hasBudget(): boolean {
    return this.spentMs < this.budgetMs;
  }

  /** Cores used by other processes over `windowMs` (ours: this process and `pids`). */
  async otherCores(pids: readonly number[], windowMs = 500): Promise<number> {
    const busy0 = machineBusySeconds();
    const own0 = pids.reduce((a, p) => a + cpuSecondsOf(p), 0);
    const c0 = process.cpuUsage();
    const t0 = now();
    await sleep(windowMs);
    const c1 = process.cpuUsage(c0);
    const wall = (now() - t0) / 1000;
    const own = pids.reduce((a, p) => a + cpuSecondsOf(p), 0) - own0 + (c1.user + c1.system) / 1e6;
    return Math.max(0, machineBusySeconds() - busy0 - own) / wall;
  }

  /** Waits (within the budget) until others use less than the threshold; false if they never did. */
  async waitQuiet(pids: readonly number[], maxWaitMs = 10_000): Promise<boolean> {
    const t0 = now();
    for (;;) {
      const other = await this.otherCores(pids);
      if (other < this.maxOtherCores) return true;
      this.spentMs += 500;
      if (!this.hasBudget() || now() - t0 > maxWaitMs) return false;
    }
  }
}

export interface MeasureContext {
  readonly serverPid: number;
  readonly etcdPid: number | null;
  readonly quiet: Quiet;
}

/**
 * Warm-up, then `runs` runs of `runMs` each (operation count capped), with
 * `concurrency` callers; reports the median run by rate. Before each run the
 * machine is given a bounded time to go quiet, and a run that other
 * processes disturbed (> 0.25 cores) is done again, once, while the shared
 * quiet budget lasts.
 */
export async function measureRate(s: ApiSettings, ctx: MeasureContext, op: (tally: Tally) => Promise<void>): Promise<RateResult> {
  const { serverPid, etcdPid, quiet } = ctx;
  const pids = etcdPid === null ? [serverPid] : [serverPid, etcdPid];
  const errors = new Tally();
  const wrapped = async (): Promise<void> => {
    await op(errors);
    if (errors.total > MAX_ERRORS) throw new Error(`more than ${MAX_ERRORS} failed requests: ${errors.describe()}; ${errors.samples.join(' | ')}`);
  };
  await drive({ concurrency: s.concurrency, durationMs: s.warmupMs, count: s.maxOps, latencies: false }, wrapped);
  const runs: OneRun[] = [];
  let redone = 0;
  for (let r = 0; r < s.runs; r++) {
    for (let attempt = 1; ; attempt++) {
      if (quiet.hasBudget()) await quiet.waitQuiet(pids);
      const run = await oneRun(s, serverPid, etcdPid, wrapped);
      if (run.otherCores > quiet.maxOtherCores && attempt === 1 && quiet.hasBudget()) {
        quiet.spentMs += s.runMs;
        redone++;
        continue;
      }
      runs.push(run);
      break;
    }
  }
  const m = medianRun(runs, (x) => x.rate);
  return { ...m, runRates: runs.map((x) => x.rate), redone, errors };
}

async function oneRun(s: ApiSettings, serverPid: number, etcdPid: number | null, op: () => Promise<void>): Promise<OneRun> {
  const cpu0 = cpuSecondsOf(serverPid);
  const threads0 = threadCpuSeconds(serverPid);
  const busy0 = machineBusySeconds();
  const e0 = etcdPid === null ? Number.NaN : cpuSecondsOf(etcdPid);
  const c0 = process.cpuUsage();
  const t0 = now();
  const d = await drive({ concurrency: s.concurrency, durationMs: s.runMs, count: s.maxOps }, op);
  const wall = (now() - t0) / 1000;
  const c1 = process.cpuUsage(c0);
  const cpu1 = cpuSecondsOf(serverPid);
  const threads1 = threadCpuSeconds(serverPid);
  let main = 0;
  let busiest = 0;
  for (const [tid, v] of threads1) {
    const d = v - (threads0.get(tid) ?? 0);
    if (tid === serverPid) main = d;
    else busiest = Math.max(busiest, d);
  }
  const busy1 = machineBusySeconds();
  const etcdSeconds = etcdPid === null ? 0 : cpuSecondsOf(etcdPid) - e0;
  const clientSeconds = (c1.user + c1.system) / 1e6;
  const sum = summarize(d.latencies);
  return {
    rate: d.rate,
    ops: d.ops,
    p50: sum.p50,
    p99: sum.p99,
    max: sum.max,
    serverCores: (cpu1 - cpu0) / wall,
    serverMainCores: main / wall,
    serverBusiestWorkerCores: busiest / wall,
    clientCores: clientSeconds / wall,
    etcdCores: etcdPid === null ? Number.NaN : etcdSeconds / wall,
    otherCores: Math.max(0, busy1 - busy0 - (cpu1 - cpu0) - clientSeconds - etcdSeconds) / wall,
  };
}

export interface FillResult {
  readonly created: number;
  readonly rate: number;
  readonly p99: number;
  readonly errors: Tally;
}

/** Creates `count` ConfigMaps named `${prefix}${from + i}` at `concurrency` (failed creates retried up to 3 times). */
export async function fill(client: ApiClient, s: ApiSettings, prefix: string, from: number, count: number): Promise<FillResult> {
  const maker = new BodyMaker(s.valueBytes);
  const errors = new Tally();
  let created = 0;
  if (count <= 0) return { created, rate: Number.NaN, p99: Number.NaN, errors };
  const d = await drive({ concurrency: s.fillConcurrency, count }, async (i) => {
    const name = `${prefix}${from + i}`;
    const body = maker.body(name);
    for (let attempt = 1; attempt <= 3; attempt++) {
      try {
        const r = await client.request('POST', CM_PATH, body);
        if (r.status === 201) {
          created++;
          return;
        }
        errors.reply(r, 201, `create ${name}`);
        if (r.status === 409) return; // already there (a retried create that had landed)
      } catch (err) {
        errors.error(err, `create ${name}`);
      }
      if (errors.total > MAX_ERRORS) throw new Error(`fill: more than ${MAX_ERRORS} failed requests: ${errors.describe()}; ${errors.samples.join(' | ')}`);
    }
  });
  return { created, rate: d.rate, p99: summarize(d.latencies).p99, errors };
}

export type ListMode = 'full' | 'rv0' | 'paged';
export const LIST_MODE_LABEL: Record<ListMode, string> = {
  full: 'full LIST (consistent read)',
  rv0: 'LIST ?resourceVersion=0 (from the cache)',
  paged: 'LIST paged, limit=',
};

export interface ListResult {
  /** Median time of the repetitions, ms. */
  readonly ms: number;
  readonly minMs: number;
  readonly maxMs: number;
  readonly bytes: number;
  readonly items: number;
  readonly pages: number;
  readonly errors: Tally;
}

const ITEM_MARK = Buffer.from('"uid":"');

/** Items in a list body: counts `"uid":"` (every ConfigMap has one, the list metadata none). */
/** ConfigMaps the server keeps in the listed namespace itself (the root CA publisher's): counted in every LIST. */
export async function existingConfigMaps(client: ApiClient): Promise<number> {
  const r = await client.request('GET', CM_PATH, null, true);
  if (r.status !== 200 || r.body === undefined || r.body === null) throw new Error(`listing the ConfigMaps already there: HTTP ${r.status}`);
  return countItems(r.body);
}

function countItems(body: Buffer): number {
  let n = 0;
  for (let at = body.indexOf(ITEM_MARK); at >= 0; at = body.indexOf(ITEM_MARK, at + ITEM_MARK.length)) n++;
  return n;
}

/** The list's continue token, read from the metadata ahead of the items (no full parse). */
function continueToken(body: Buffer): string {
  const itemsAt = body.indexOf('"items":');
  const head = body.subarray(0, itemsAt < 0 ? Math.min(body.length, 4096) : itemsAt).toString('utf8');
  const m = /"continue":"([^"]*)"/.exec(head);
  return m ? m[1]! : '';
}

/** Namespace of the writes that give each measured LIST a new revision. */
const BUMP_NS = 'bench-bump';

/**
 * One ConfigMap created outside the listed namespace: the next LIST is at a
 * new revision, so it is built anew rather than served from the shard's
 * shared answer of the previous repetition (the relist storm measures those).
 */
async function bumpRevision(client: ApiClient, errors: Tally): Promise<void> {
  const body = Buffer.from(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"bump-"}}`);
  const r = await client.request('POST', `/api/v1/namespaces/${BUMP_NS}/configmaps`, body, false);
  if (r.status === 404) {
    await client.request('POST', '/api/v1/namespaces', Buffer.from(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"${BUMP_NS}"}}`), false);
    const again = await client.request('POST', `/api/v1/namespaces/${BUMP_NS}/configmaps`, body, false);
    errors.reply(again, 201, 'revision bump');
    return;
  }
  errors.reply(r, 201, 'revision bump');
}

export async function measureList(client: ApiClient, mode: ListMode, expected: number, s: ApiSettings): Promise<ListResult> {
  const errors = new Tally();
  const times: number[] = [];
  let bytes = 0;
  let items = 0;
  let pages = 0;
  for (let rep = 0; rep < s.listReps; rep++) {
    await bumpRevision(client, errors);
    let repBytes = 0;
    let repItems = 0;
    let repPages = 0;
    // Request to last byte, summed over pages; counting items afterwards is the client's time, not the server's.
    let ms = 0;
    if (mode === 'paged') {
      let token = '';
      const maxPages = Math.ceil(expected / s.pageLimit) + 10;
      do {
        const q = `?limit=${s.pageLimit}${token ? `&continue=${encodeURIComponent(token)}` : ''}`;
        const t0 = now();
        const r = await client.request('GET', CM_PATH + q, null, true);
        ms += now() - t0;
        if (!errors.reply(r, 200, `list page ${repPages + 1}`)) break;
        repBytes += r.bytes;
        repItems += countItems(r.body!);
        repPages++;
        token = continueToken(r.body!);
      } while (token !== '' && repPages < maxPages);
      if (token !== '') errors.bad('unfinished paging', `more than ${maxPages} pages`);
    } else {
      const t0 = now();
      const r = await client.request('GET', CM_PATH + (mode === 'rv0' ? '?resourceVersion=0' : ''), null, true);
      ms = now() - t0;
      repPages = 1;
      if (errors.reply(r, 200, `list ${mode}`)) {
        repBytes = r.bytes;
        repItems = countItems(r.body!);
      }
    }
    times.push(ms);
    bytes = repBytes;
    items = repItems;
    pages = repPages;
    if (repItems !== expected) errors.bad('wrong item count', `${mode}: ${repItems} items, expected ${expected}`);
  }
  return { ms: median(times), minMs: Math.min(...times), maxMs: Math.max(...times), bytes, items, pages, errors };
}

/** Runs `fn` with a client of front end `fe`, closing it after. */
export async function withClient<T>(server: ServerHandle, fe: FrontendName, sockets: number, s: ApiSettings, fn: (c: ApiClient) => Promise<T>): Promise<T> {
  const c = await openClient(server, fe, sockets, s.requestTimeoutMs);
  try {
    return await fn(c);
  } finally {
    await c.close();
  }
}

/** xorshift32: a cheap deterministic spread of get targets. */
export function xorshift(seed: number): () => number {
  let x = seed | 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}
