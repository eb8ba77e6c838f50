/**
 * Where the CPU of a get and a create goes, per stage, on each front end
 * (`npm run bench:profile`): starts the built server (dist/) with V8's
 * sampling profiler in every thread (preload.cjs), drives h2load (32
 * connections, TLS, bearer token, 1 KiB ConfigMaps) and folds the profiles
 * into µs of server CPU per request per stage (stages.ts maps functions and
 * files to stages; fold.ts scales each thread's sample shares by its /proc CPU).
 *
 *   node --import tsx loadtest/profile/run.ts [--front-ends=uws-h1,secure-h2] [--ops=get,create] [--out=<file>] [--keep=<dir>]
 *       [--server-args='--audit-policy-file=... --audit-log-path=...']   (extra flags for the server, split at spaces)
 *   node --import tsx loadtest/profile/run.ts --fold=<dir>   (re-fold a kept capture; e.g. after editing stages.ts)
 *
 * Knobs: PROFILE_SECONDS=6 (one window per front end and operation),
 * PROFILE_INTERVAL_US=250 (sampling interval), PROFILE_CLIENTS=32,
 * PROFILE_GET_NAMES=1000. Installs nothing: without h2load it says how to get it and skips.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { argValue, envNumber } from '../lib/env.ts';
import { makeTempDir, removeTempDir } from '../lib/tmp.ts';
import { REPO_ROOT, stopEverything } from '../api/server.ts';
import { capture, haveH2load, FRONT_END_LABEL, type FrontEnd, type Manifest, type Operation } from './capture.ts';
import { foldWindow, hotMain, perRequest, type WindowFold } from './fold.ts';

const FRONT_ENDS: readonly FrontEnd[] = ['uws-h1', 'secure-h2', 'secure-h1'];

const fmt = (us: number): string => (us >= 9.95 ? us.toFixed(0) : us.toFixed(1));
const row = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;

function report(manifest: Manifest, folds: readonly WindowFold[]): string[] {
  const lines: string[] = [
    '# CPU per request, by stage',
    '',
    `Machine: ${manifest.machine}. Server: ${manifest.server}.`,
    `h2load ${manifest.clients} connections (one stream each), TLS, bearer token, 1 KiB ConfigMaps (creates use generateName),`,
    `embedded store, one ${manifest.seconds} s window per front end and operation after a 2 s warm-up; V8's sampling profiler`,
    `(every ${manifest.intervalUs} µs) in every thread, per-thread CPU from /proc.`,
    `Command: ${manifest.command}`,
    '',
    'Figures are µs of server CPU per successful request. A stage row is its samples times the sampling period, scaled',
    'down when a thread\'s samples add up to more than /proc says it ran (V8 samples on the wall clock, so a thread',
    'waiting for a core still collects them); the "unsampled" row of a thread is what /proc counted on it beyond its',
    'samples (mostly the profiler\'s own signal handling; the profiler also slows every stage a little, so compare',
    'the total with the h2load bench). A sample',
    'is charged to the nearest frame on its stack that a rule of loadtest/profile/stages.ts recognizes (leaf first),',
    'so a builtin (JSON.parse, a native write) counts for the stage that called it.',
  ];
  const frontEnds = FRONT_ENDS.filter((fe) => folds.some((f) => f.window.frontEnd === fe));
  for (const fe of frontEnds) {
    const get = folds.find((f) => f.window.frontEnd === fe && f.window.op === 'get');
    const create = folds.find((f) => f.window.frontEnd === fe && f.window.op === 'create');
    const g = get ? perRequest(get) : new Map<string, number>();
    const c = create ? perRequest(create) : new Map<string, number>();
    const keys = [...new Set([...g.keys(), ...c.keys()])];
    const total = (m: Map<string, number>): number => [...m.values()].reduce((a, b) => a + b, 0);
    const threadOrder = ['main', 'shard', 'store host', 'other JS thread', 'other threads'];
    keys.sort((a, b) => {
      const ta = threadOrder.indexOf(a.split('\u0000')[0]!);
      const tb = threadOrder.indexOf(b.split('\u0000')[0]!);
      return ta !== tb ? ta - tb : (g.get(b) ?? 0) + (c.get(b) ?? 0) - ((g.get(a) ?? 0) + (c.get(a) ?? 0));
    });
    const rate = (f: WindowFold | undefined): string => (f ? `${Math.round(f.window.succeeded / manifest.seconds).toLocaleString('en-US')}/s` : 'n/a');
    lines.push('', `## ${FRONT_END_LABEL[fe]}`, '', `gets ${rate(get)}, creates ${rate(create)} while profiled.`, '');
    lines.push(row(['thread', 'stage', 'get µs', 'create µs']), row(['---', '---', '---:', '---:']));
    for (const k of keys) {
      const [thread, stage] = k.split('\u0000') as [string, string];
      const gv = g.get(k) ?? 0;
      const cv = c.get(k) ?? 0;
      if (Math.abs(gv) < 0.05 && Math.abs(cv) < 0.05) continue;
      lines.push(row([thread, stage, fmt(gv), fmt(cv)]));
    }
    const prof = (f: WindowFold | undefined): string => (f ? fmt((f.profilerSeconds * 1e6) / Math.max(1, f.window.succeeded)) : 'n/a');
    lines.push(row(['**all**', '**profiled total**', `**${fmt(total(g))}**`, `**${fmt(total(c))}**`]));
    lines.push(row(['(excluded)', "the profiler's own threads (v8:ProfEvntProc)", prof(get), prof(create)]));
    for (const [label, f] of [['get', get], ['create', create]] as const) {
      if (!f) continue;
      lines.push('', `Hottest functions on the main thread (self time, µs per ${label}):`, '');
      lines.push(row(['function (file)', 'µs']), row(['---', '---:']));
      for (const [fn, us] of hotMain(f, 15)) lines.push(row([fn.replaceAll('|', '\\|'), fmt(us)]));
    }
  }
  return lines;
}

function commandLine(argv: readonly string[], seconds: number, intervalUs: number): string {
  const shown = argv.filter((a) => !a.startsWith('--keep=') && !a.startsWith('--out='));
  return `PROFILE_SECONDS=${seconds} PROFILE_INTERVAL_US=${intervalUs} npm run bench:profile${shown.length > 0 ? ` -- ${shown.join(' ')}` : ''}`;
}

async function main(argv: readonly string[]): Promise<number> {
  const out = argValue('out', argv) ?? join(REPO_ROOT, 'loadtest/results/cpu-breakdown.md');
  const foldDir = argValue('fold', argv);
  let dir: string;
  let manifest: Manifest;
  let temp: string | null = null;
  if (foldDir !== undefined) {
    dir = foldDir;
    manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as Manifest;
  } else {
    if (!haveH2load()) {
      console.log('CPU profile skipped: h2load is not installed (apt-get install nghttp2-client).');
      return 0;
    }
    const keep = argValue('keep', argv);
    if (keep !== undefined) await mkdir(keep, { recursive: true });
    dir = keep ?? (temp = await makeTempDir('orch-profile'));
    const frontEnds = (argValue('front-ends', argv) ?? 'uws-h1,secure-h2').split(',').filter((x): x is FrontEnd => x in FRONT_END_LABEL);
    const seconds = envNumber('PROFILE_SECONDS', 6);
    const intervalUs = envNumber('PROFILE_INTERVAL_US', 250);
    manifest = await capture({
      dir,
      frontEnds,
      ops: (argValue('ops', argv) ?? 'get,create').split(',').filter((x): x is Operation => x === 'get' || x === 'create'),
      serverArgs: (argValue('server-args', argv) ?? '').split(' ').filter((a) => a !== ''),
      seconds,
      clients: envNumber('PROFILE_CLIENTS', 32),
      intervalUs,
      getNames: envNumber('PROFILE_GET_NAMES', 1000),
      command: commandLine(argv, seconds, intervalUs),
    });
  }
  try {
    const folds = manifest.windows.map((_, i) => foldWindow(dir, i, manifest));
    const lines = report(manifest, folds);
    await mkdir(dirname(out), { recursive: true });
    await writeFile(out, lines.join('\n') + '\n');
    console.log(lines.join('\n'));
    console.log(`\nwritten to ${out}`);
  } finally {
    if (temp !== null) await removeTempDir(temp);
  }
  return 0;
}

try {
  process.exitCode = await main(process.argv.slice(2));
} finally {
  await stopEverything();
}
