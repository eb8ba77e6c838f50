/**
 * Why our creates cost more CPU in the side-by-side run's later rounds than in
 * its first (and than alone): ours' uWS create rounds, each after ours or
 * after one of the original's create rounds, with ours' CPU per create split
 * by thread (/proc/<pid>/task: name and place by id), the original's CPU
 * during ours' round, and the machine's other CPU (/proc/stat less both
 * servers: h2load and everyone else).
 *
 *   node --import tsx loadtest/original/interference.ts --original=/path/to/kube-apiserver
 *
 * Knobs: BENCH_H2LOAD_SECONDS=6 (one round), INTERFERENCE_CYCLES=2, INTERFERENCE_ORIGINAL=0.
 */
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { startApiServer, stopEverything } from '../api/server.ts';
import { runH2load } from '../h2load/h2load.ts';
import { argValue, envNumber } from '../lib/env.ts';
import { processCpuSeconds } from '../lib/memory.ts';
import { quiesce } from '../lib/quiesce.ts';
import { threadCpu, threadDelta } from '../profile/threads.ts';
import { makeTempDir, removeTempDir } from '../lib/tmp.ts';
import { exitOnSignals, startOriginalApiServer } from './apiserver.ts';

const SECONDS = envNumber('BENCH_H2LOAD_SECONDS', 6);
const CYCLES = envNumber('INTERFERENCE_CYCLES', 2);
/** INTERFERENCE_ORIGINAL=0: ours alone, the original started but never driven (the control). */
const WITH_ORIGINAL = process.env['INTERFERENCE_ORIGINAL'] !== '0';
const NS_PATH = '/api/v1/namespaces/default/configmaps';

/** Busy and total jiffies of the whole machine. */
function machineTicks(): { busy: number; total: number } {
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.split(/\s+/).slice(1).map(Number);
  const total = cpu.reduce((a, b) => a + b, 0);
  return { busy: total - cpu[3]! - cpu[4]!, total };
}

async function main(): Promise<void> {
  const binary = argValue('original');
  if (binary === undefined) throw new Error('--original=<kube-apiserver> is required');
  exitOnSignals();
  const dir = await makeTempDir('orch-interference');
  const ours = await startApiServer('embedded', null);
  const original = await startOriginalApiServer(binary);
  const body = join(dir, 'create.json');
  await writeFile(body, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'h2l-' }, data: { v: 'x'.repeat(1024) } }));
  const oursCpu = (): number => processCpuSeconds(ours.pid) ?? 0;
  const idle = (): Promise<unknown> => quiesce([oursCpu, () => original.cpuSeconds()]);
  const create = (port: number, token: string, seconds: number) =>
    runH2load({ url: `https://127.0.0.1:${port}`, path: NS_PATH, h1: true, token, clients: 32, method: 'POST', dataFile: body, seconds });
  const oursRound = async (label: string): Promise<void> => {
    await idle();
    const t0 = threadCpu(ours.pid);
    const m0 = machineTicks();
    const o0 = original.cpuSeconds();
    const c0 = oursCpu();
    const r = await create(ours.uwsPort, ours.token, SECONDS);
    const cpu = oursCpu() - c0;
    const origCpu = original.cpuSeconds() - o0;
    const m1 = machineTicks();
    // Node names no thread but libuv's pool and V8's workers: a thread is its name and its place by id.
    const perThread = threadDelta(t0, threadCpu(ours.pid))
      .sort((a, b) => a.tid - b.tid)
      .map((t, i) => [`${t.name}#${i}`, (t.seconds * 1e6) / r.succeeded] as const)
      .filter(([, v]) => v >= 1)
      .sort((a, b) => b[1] - a[1]);
    // The machine's busy cores over the round, less what both servers ran: h2load and everyone else.
    const otherShare = ((m1.busy - m0.busy) / (m1.total - m0.total)) * availableParallelism() - (cpu + origCpu) / r.seconds;
    console.log(
      `${label}: ${Math.round(r.succeeded / r.seconds)}/s, ${Math.round((cpu * 1e6) / r.succeeded)} µs/create; original meanwhile ${(origCpu / r.seconds).toFixed(2)} cores, ` +
        `others ${otherShare.toFixed(2)} cores; by thread µs: ${perThread.map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', ')}`,
    );
  };
  try {
    await create(ours.uwsPort, ours.token, 2);
    await create(original.securePort, original.token, 2);
    for (let c = 1; c <= CYCLES; c++) {
      await oursRound(`cycle ${c}: ours after ours (1)`);
      await oursRound(`cycle ${c}: ours after ours (2)`);
      if (WITH_ORIGINAL) {
        await idle();
        const o = await create(original.securePort, original.token, SECONDS);
        console.log(`cycle ${c}: original ${Math.round(o.succeeded / o.seconds)}/s`);
      }
      await oursRound(`cycle ${c}: ${WITH_ORIGINAL ? 'ours right after the original' : 'ours (3)'}`);
      await oursRound(`cycle ${c}: ours after that`);
    }
  } finally {
    await original.stop();
    await stopEverything();
    await removeTempDir(dir);
  }
}

await main();
