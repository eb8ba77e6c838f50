/**
 * Folds the .cpuprofile files of each window (capture.ts) into µs of CPU per
 * request per stage: a sample stands for the profile's mean sampling period
 * (its duration over its sample count, so an interval that stretches under
 * load does not skew the sum), idle samples left out, but a thread's samples
 * never add up to more than /proc says it ran (V8 samples on the wall clock,
 * also while the thread waits for a core on a busy machine). What a thread used by
 * /proc beyond what its samples account for (the profiler's signal handling
 * in each thread, native work V8 counts as idle) is one row per thread kind;
 * threads with no JavaScript (V8's GC helpers, libuv's pool) are one row from
 * /proc; the profiler's own threads (v8:ProfEvntProc) are left out.
 */
import { readFileSync } from 'node:fs';
import { classify, type Frame } from './stages.ts';
import { profileFiles, type Manifest, type Window } from './capture.ts';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: Frame;
  readonly children?: readonly number[];
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  /** µs, V8's monotonic clock. */
  readonly startTime: number;
  readonly endTime: number;
}

export type ThreadKind = 'main' | 'shard' | 'store host' | 'other JS thread';

export interface ThreadFold {
  readonly threadId: number;
  readonly kind: ThreadKind;
  readonly cpuSeconds: number;
  /** Samples per stage (idle left out). */
  readonly stages: ReadonlyMap<string, number>;
  /** Non-idle samples. */
  readonly samples: number;
  /** What one sample stands for, µs (the profile's duration over all its samples, idle ones included). */
  readonly periodUs: number;
  /** Self samples per function, for finding what to fix. */
  readonly hot: ReadonlyMap<string, number>;
}

export interface WindowFold {
  readonly window: Window;
  readonly threads: readonly ThreadFold[];
  /** CPU seconds of threads without JavaScript (GC helpers, libuv pool), profiler threads excluded. */
  readonly nativeThreadsSeconds: number;
  readonly profilerSeconds: number;
}

function shortUrl(url: string): string {
  return url.replace(/^file:\/\/.*?\/(dist|node_modules)\//, (_m, d: string) => (d === 'node_modules' ? 'node_modules/' : ''));
}

function foldProfile(p: CpuProfile): { stages: Map<string, number>; samples: number; periodUs: number; hot: Map<string, number>; kind: ThreadKind } {
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const n of p.nodes) {
    byId.set(n.id, n);
    for (const c of n.children ?? []) parent.set(c, n.id);
  }
  const counts = new Map<number, number>();
  for (const s of p.samples) counts.set(s, (counts.get(s) ?? 0) + 1);
  const stages = new Map<string, number>();
  const hot = new Map<string, number>();
  let samples = 0;
  let kind: ThreadKind = 'main';
  for (const n of p.nodes) {
    if (/workers\/store-host-worker|src\/storage\/embedded\/|src\/storage\/remote\/server/.test(n.callFrame.url)) kind = 'store host';
    else if (kind === 'main' && /workers\/shard-worker|shards\/shard-runtime/.test(n.callFrame.url)) kind = 'shard';
  }
  for (const [id, c] of counts) {
    const stack: Frame[] = [];
    for (let x: number | undefined = id; x !== undefined; x = parent.get(x)) stack.push(byId.get(x)!.callFrame);
    const stage = classify(stack);
    if (stage === null) continue;
    samples += c;
    stages.set(stage, (stages.get(stage) ?? 0) + c);
    const leaf = stack[0]!;
    const key = `${leaf.functionName || '(anonymous)'} ${shortUrl(leaf.url)}`.trim();
    hot.set(key, (hot.get(key) ?? 0) + c);
  }
  const periodUs = p.samples.length > 0 ? (p.endTime - p.startTime) / p.samples.length : 0;
  return { stages, samples, periodUs, hot, kind };
}

export function foldWindow(dir: string, index: number, manifest: Manifest): WindowFold {
  const window = manifest.windows[index]!;
  const files = profileFiles(dir, index);
  const cpuByTid = new Map(window.threads.map((t) => [t.tid, t]));
  const jsTids = new Set(files.map((f) => f.tid));
  const threads: ThreadFold[] = [];
  for (const f of files) {
    const folded = foldProfile(JSON.parse(readFileSync(f.file, 'utf8')) as CpuProfile);
    const kind: ThreadKind = f.threadId === 0 ? 'main' : folded.kind === 'main' ? 'other JS thread' : folded.kind;
    threads.push({ threadId: f.threadId, kind, cpuSeconds: cpuByTid.get(f.tid)?.seconds ?? 0, stages: folded.stages, samples: folded.samples, periodUs: folded.periodUs, hot: folded.hot });
  }
  let nativeThreadsSeconds = 0;
  let profilerSeconds = 0;
  for (const t of window.threads) {
    if (jsTids.has(t.tid)) continue;
    if (t.name.startsWith('v8:ProfEvnt')) profilerSeconds += t.seconds;
    else nativeThreadsSeconds += t.seconds;
  }
  return { window, threads, nativeThreadsSeconds, profilerSeconds };
}

/** µs per request of each (thread kind, stage), the unsampled rest per thread kind, and the non-JS threads as one row. */
export function perRequest(f: WindowFold): Map<string, number> {
  const out = new Map<string, number>();
  const n = Math.max(1, f.window.succeeded);
  const add = (key: string, us: number): void => {
    out.set(key, (out.get(key) ?? 0) + us);
  };
  for (const t of f.threads) {
    // V8 samples on the wall clock: a thread waiting for a core (a busy
    // machine) still collects samples. Never count more than /proc says the
    // thread ran; what /proc counted beyond the samples is shown apart.
    const sampledUs = t.samples * t.periodUs;
    const cpuUs = t.cpuSeconds * 1e6;
    const perSample = sampledUs > cpuUs && t.samples > 0 ? cpuUs / t.samples : t.periodUs;
    for (const [stage, c] of t.stages) add(`${t.kind}\u0000${stage}`, (c * perSample) / n);
    add(`${t.kind}\u0000${UNSAMPLED}`, Math.max(0, cpuUs - sampledUs) / n);
  }
  add(`other threads\u0000V8 GC helpers, libuv pool (from /proc; no JS)`, (f.nativeThreadsSeconds * 1e6) / n);
  return out;
}

/** The row for what /proc counted on a thread beyond its samples. */
export const UNSAMPLED = "unsampled: /proc CPU beyond the samples (the profiler's signals, native work V8 counts as idle)";

/** The hottest leaf functions of the main thread in µs per request. */
export function hotMain(f: WindowFold, top: number): Array<[string, number]> {
  const main = f.threads.find((t) => t.kind === 'main');
  if (!main || main.samples === 0) return [];
  const n = Math.max(1, f.window.succeeded);
  return [...main.hot]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([k, c]) => [k, (c * Math.min(main.periodUs, (main.cpuSeconds * 1e6) / main.samples)) / n]);
}
