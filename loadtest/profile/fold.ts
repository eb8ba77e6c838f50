/**
 * Folds the .cpuprofile files of each window (capture.ts) into µs of CPU per
 * request per stage. A thread's samples give the SHARES of its stages; the
 * thread's CPU from /proc over the same window gives the µs (so a sampling
 * interval that stretches under load does not skew the sum). Threads with no
 * JavaScript (V8's GC helpers, libuv's pool) are one row from /proc; the
 * profiler's own threads (v8:ProfEvntProc) are left out.
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
}

export type ThreadKind = 'main' | 'shard' | 'store host' | 'other JS thread';

export interface ThreadFold {
  readonly threadId: number;
  readonly kind: ThreadKind;
  readonly cpuSeconds: number;
  /** Samples per stage (idle left out). */
  readonly stages: ReadonlyMap<string, number>;
  readonly samples: number;
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

function foldProfile(p: CpuProfile): { stages: Map<string, number>; samples: number; hot: Map<string, number>; kind: ThreadKind } {
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
    if (/workers\/store-host-worker/.test(n.callFrame.url) || /src\/storage\/embedded\/wal/.test(n.callFrame.url)) kind = 'store host';
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
  return { stages, samples, hot, kind };
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
    threads.push({ threadId: f.threadId, kind, cpuSeconds: cpuByTid.get(f.tid)?.seconds ?? 0, stages: folded.stages, samples: folded.samples, hot: folded.hot });
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

/** µs per request of each (thread kind, stage), plus the non-JS threads as one row. */
export function perRequest(f: WindowFold): Map<string, number> {
  const out = new Map<string, number>();
  const n = Math.max(1, f.window.succeeded);
  for (const t of f.threads) {
    if (t.samples === 0) continue;
    for (const [stage, c] of t.stages) {
      const key = `${t.kind}\u0000${stage}`;
      out.set(key, (out.get(key) ?? 0) + ((c / t.samples) * t.cpuSeconds * 1e6) / n);
    }
  }
  out.set(`other threads\u0000V8 GC helpers, libuv pool (from /proc; no JS)`, (f.nativeThreadsSeconds * 1e6) / n);
  return out;
}

/** The hottest leaf functions of the main thread in µs per request. */
export function hotMain(f: WindowFold, top: number): Array<[string, number]> {
  const main = f.threads.find((t) => t.kind === 'main');
  if (!main || main.samples === 0) return [];
  const n = Math.max(1, f.window.succeeded);
  return [...main.hot]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([k, c]) => [k, ((c / main.samples) * main.cpuSeconds * 1e6) / n]);
}
