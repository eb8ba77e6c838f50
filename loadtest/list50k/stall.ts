/**
 * What a large LIST costs the other requests of its shard: GETs of
 * ConfigMaps under h2load (uWS listener, 32 connections, TLS, token) alone,
 * then while curl lists 50,000 ConfigMaps of the same type over and over,
 * each answer built afresh (`--list-cache-bytes=0`). ConfigMaps live on one
 * shard, so every GET waits for whatever that shard is doing; h2load's mean
 * and longest request time show how long a LIST holds it.
 *
 *   node --import tsx loadtest/list50k/stall.ts [--out=<file>]
 *
 * Needs curl and h2load (Debian `nghttp2-client`); without them it says so
 * and skips. Knobs: BENCH_LIST50K_COUNT=50000, BENCH_STALL_SECONDS=8,
 * BENCH_STALL_ROUNDS=3 (alternating quiet and listing runs; medians).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describeServer, REPO_ROOT, startApiServer, stopEverything, type ServerHandle } from '../api/server.ts';
import { runH2load } from '../h2load/h2load.ts';
import { prepareFiles, seedGets } from '../h2load/run.ts';
import { argValue, envNumber, haveCommand } from '../lib/env.ts';
import { describeMachine, loadAverage, machineInfo } from '../lib/machine.ts';
import { runAsScript, writeResults } from '../lib/results.ts';
import { median } from '../lib/stats.ts';
import { makeTempDir, removeTempDir } from '../lib/tmp.ts';
import { exitOnSignals } from '../original/apiserver.ts';
import { oursTargets } from '../original/side-by-side.ts';
import { LIST_NAMESPACE, seedConfigMaps, timeList } from './list.ts';

const COUNT = envNumber('BENCH_LIST50K_COUNT', 50_000);
const SECONDS = envNumber('BENCH_STALL_SECONDS', 8);
const ROUNDS = envNumber('BENCH_STALL_ROUNDS', 3);

interface GetRun {
  readonly rate: number;
  readonly meanMs: number;
  readonly maxMs: number;
  readonly lists: number[];
}

/** h2load's "time for request: min max mean sd" line, in ms. */
export function requestTimes(raw: string): { meanMs: number; maxMs: number } {
  const m = /time for request:\s+([\d.]+)(us|ms|s)\s+([\d.]+)(us|ms|s)\s+([\d.]+)(us|ms|s)/.exec(raw);
  if (m === null) throw new Error(`h2load printed no request times:\n${raw.slice(-400)}`);
  const ms = (v: string, unit: string): number => (unit === 'us' ? Number(v) / 1000 : unit === 's' ? Number(v) * 1000 : Number(v));
  return { maxMs: ms(m[3]!, m[4]!), meanMs: ms(m[5]!, m[6]!) };
}

async function getRun(server: ServerHandle, uris: string, dir: string, listing: boolean): Promise<GetRun> {
  const [uws] = oursTargets(server);
  const lists: number[] = [];
  let stop = false;
  const lister = (async () => {
    while (listing && !stop) lists.push((await timeList(uws!, LIST_NAMESPACE, 'consistent', dir)).ms);
  })();
  const r = await runH2load({ url: `https://127.0.0.1:${server.uwsPort}`, h1: true, token: server.token, clients: 32, method: 'GET', inputFile: uris, seconds: SECONDS });
  stop = true;
  await lister;
  return { rate: r.succeeded / r.seconds, ...requestTimes(r.raw), lists };
}

async function main(argv: readonly string[] = process.argv.slice(2)): Promise<number> {
  for (const cmd of ['h2load', 'curl']) {
    if (!haveCommand(cmd)) {
      console.log(`LIST stall benchmark skipped: ${cmd} is not installed (apt-get install ${cmd === 'h2load' ? 'nghttp2-client' : 'curl'}).`);
      return 0;
    }
  }
  const out = argValue('out', argv) ?? join(REPO_ROOT, 'loadtest/results/list-stall.md');
  const machine = describeMachine(machineInfo());
  exitOnSignals();
  const dir = await makeTempDir('orch-list-stall');
  const lines: string[] = [];
  try {
    const server = await startApiServer('embedded', null, ['--list-cache-bytes=0']);
    const [uws] = oursTargets(server);
    await seedConfigMaps(uws!, LIST_NAMESPACE, COUNT, dir);
    await seedGets(server);
    const files = await prepareFiles(dir, server.securePort);
    const uris = join(dir, 'uws-uris.txt');
    await writeFile(uris, (await readFile(files.getUris, 'utf8')).replaceAll(`:${server.securePort}/`, `:${server.uwsPort}/`));
    await runH2load({ url: `https://127.0.0.1:${server.uwsPort}`, h1: true, token: server.token, clients: 32, method: 'GET', inputFile: uris, seconds: 2 }); // warm-up
    const quiet: GetRun[] = [];
    const busy: GetRun[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      quiet.push(await getRun(server, uris, dir, false));
      busy.push(await getRun(server, uris, dir, true));
      const q = quiet.at(-1)!;
      const b = busy.at(-1)!;
      console.log(`  round ${r + 1}: alone ${Math.round(q.rate)} gets/s, mean ${q.meanMs.toFixed(2)} ms, max ${q.maxMs.toFixed(1)} ms; with ${b.lists.length} LISTs (median ${Math.round(median(b.lists))} ms): ${Math.round(b.rate)} gets/s, mean ${b.meanMs.toFixed(2)} ms, max ${b.maxMs.toFixed(1)} ms`);
    }
    const row = (label: string, runs: GetRun[]): string =>
      `| ${label} | ${Math.round(median(runs.map((x) => x.rate))).toLocaleString('en-US')} | ${median(runs.map((x) => x.meanMs)).toFixed(2)} | ${median(runs.map((x) => x.maxMs)).toFixed(1)} | ${runs[0]!.lists.length > 0 ? `${runs.map((x) => x.lists.length).join(', ')} (median ${Math.round(median(runs.flatMap((x) => x.lists)))} ms)` : '—'} |`;
    lines.push(
      `# GETs on a shard while it answers LISTs of ${COUNT.toLocaleString('en-US')} ConfigMaps`,
      '',
      `Machine: ${machine}, ${loadAverage().toFixed(2)} at the end. Ours: ${describeServer()}, embedded storage, \`--list-cache-bytes=0\` (every LIST built afresh).`,
      `h2load GETs of 1,000 ConfigMaps (the LISTed type's shard), uWS listener, 32 connections, TLS, token, ${SECONDS} s runs; curl LISTs (consistent, JSON) back to back during the second of each pair; ${ROUNDS} alternating pairs, medians.`,
      'Command: `node --import tsx loadtest/list50k/stall.ts`',
      '',
      '| GETs | gets/s | mean request ms | longest request ms | LISTs in each run |',
      '| --- | ---: | ---: | ---: | --- |',
      row('alone', quiet),
      row('while LISTing', busy),
    );
    console.log(lines.slice(-4).join('\n'));
    await server.stop();
  } finally {
    await removeTempDir(dir);
    await stopEverything();
  }
  await writeResults(out, lines);
  return 0;
}

runAsScript(import.meta.url, () => main());
