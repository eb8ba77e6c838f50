/**
 * Where the CPU of a LIST of 50,000 1 KiB ConfigMaps goes, per thread and
 * function: starts the built server with V8's sampling profiler in every
 * thread (loadtest/profile/preload.cjs, toggled by SIGUSR2), seeds, lists once
 * per front end and kind untimed, then profiles one window per front end and
 * kind of LIST_PROFILE_RUNS lists each and prints, for every thread busy in
 * it, its CPU per LIST and its heaviest functions by self time.
 *
 *   flock /tmp/orch-bench.lock node --import tsx loadtest/list50k/profile.ts [--keep=<dir>]
 *
 * Knobs: BENCH_LIST50K_COUNT=50000, LIST_PROFILE_RUNS=3, LIST_PROFILE_TOP=8,
 * BENCH_SERVER_ARGS (e.g. `--list-cache-bytes=0` to profile lists built afresh).
 */
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REPO_ROOT, startApiServer, stopEverything } from '../api/server.ts';
import { argValue, envNumber, haveCommand } from '../lib/env.ts';
import { makeTempDir, removeTempDir } from '../lib/tmp.ts';
import { oursTargets } from '../original/side-by-side.ts';
import { LIST_NAMESPACE, seedConfigMaps, timeList, type ListKind } from './list.ts';

const COUNT = envNumber('BENCH_LIST50K_COUNT', 50_000);
const RUNS = envNumber('LIST_PROFILE_RUNS', 3);
const TOP = envNumber('LIST_PROFILE_TOP', 8);

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: Node[];
  samples: number[];
  startTime: number;
  endTime: number;
}

/** Busy ms (idle left out) and the heaviest functions by self time, in ms, of one thread's profile. */
function summarize(p: Profile): { busyMs: number; top: [string, number][] } {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const msPerSample = (p.endTime - p.startTime) / Math.max(1, p.samples.length) / 1000;
  const self = new Map<string, number>();
  let busy = 0;
  for (const id of p.samples) {
    const f = byId.get(id)!.callFrame;
    if (f.functionName === '(idle)') continue;
    busy++;
    const name = `${f.functionName || '(anonymous)'} ${f.url.split('/').pop() ?? ''}${f.lineNumber >= 0 ? `:${f.lineNumber + 1}` : ''}`.trim();
    self.set(name, (self.get(name) ?? 0) + 1);
  }
  const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, TOP).map(([k, n]): [string, number] => [k, n * msPerSample]);
  return { busyMs: busy * msPerSample, top };
}

async function main(argv: readonly string[] = process.argv.slice(2)): Promise<number> {
  for (const cmd of ['h2load', 'curl']) {
    if (!haveCommand(cmd)) {
      console.log(`LIST profile skipped: ${cmd} is not installed.`);
      return 0;
    }
  }
  const keep = argValue('keep', argv);
  const profDir = keep ?? (await makeTempDir('orch-list-prof'));
  await mkdir(profDir, { recursive: true });
  const dir = await makeTempDir('orch-list-profile');
  const saved = process.env['NODE_OPTIONS'];
  // NODE_OPTIONS reaches the server and (re-parsed) its worker threads: see preload.cjs.
  process.env['NODE_OPTIONS'] = `${saved ?? ''} --require ${join(REPO_ROOT, 'loadtest/profile/preload.cjs')}`.trim();
  process.env['ORCH_PROFILE_DIR'] = profDir;
  process.env['ORCH_PROFILE_INTERVAL_US'] = '500';
  const server = await startApiServer('embedded', null);
  if (saved === undefined) delete process.env['NODE_OPTIONS'];
  else process.env['NODE_OPTIONS'] = saved;
  try {
    const [uws, secure] = oursTargets(server);
    await seedConfigMaps(uws!, LIST_NAMESPACE, COUNT, dir);
    const windows: { t: typeof uws; kind: ListKind }[] = [
      { t: uws, kind: 'consistent' },
      { t: uws, kind: 'rv0' },
      { t: secure, kind: 'consistent' },
      { t: secure, kind: 'rv0' },
    ];
    for (const w of windows) await timeList(w.t!, LIST_NAMESPACE, w.kind, dir);
    for (const [i, w] of windows.entries()) {
      process.kill(server.pid, 'SIGUSR2'); // profilers on
      await new Promise((r) => setTimeout(r, 200));
      const ms: number[] = [];
      for (let r = 0; r < RUNS; r++) ms.push(Math.round((await timeList(w.t!, LIST_NAMESPACE, w.kind, dir)).ms));
      process.kill(server.pid, 'SIGUSR2'); // off: each thread writes w<i>.t<threadId>.tid<tid>.cpuprofile
      await new Promise((r) => setTimeout(r, 1000));
      console.log(`\n## ${w.t!.label}, ${w.kind}: ${ms.join(', ')} ms`);
      for (const f of (await readdir(profDir)).filter((n) => n.startsWith(`w${i}.`)).sort()) {
        const { busyMs, top } = summarize(JSON.parse(await readFile(join(profDir, f), 'utf8')) as Profile);
        if (busyMs / RUNS < 5) continue;
        console.log(`thread ${f.split('.')[1]}: ${(busyMs / RUNS).toFixed(0)} ms per LIST`);
        for (const [name, t] of top) console.log(`  ${(t / RUNS).toFixed(1).padStart(6)} ms  ${name}`);
      }
    }
  } finally {
    await server.stop();
    await removeTempDir(dir);
    if (keep === undefined) await removeTempDir(profDir);
    await stopEverything();
  }
  return 0;
}

process.exitCode = await main();
