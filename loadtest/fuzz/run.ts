/**
 * The long fuzz run: `npm run fuzz -- --runs=1000000 --seed=42` (or
 * FUZZ_RUNS / FUZZ_SEED). Unlike the npm test share it does not stop at the
 * first failure: failures are grouped into classes, each with its first
 * repro and the fast-check path that replays it
 * (`FUZZ_SEED=<seed> FUZZ_PATH=<path> node --import tsx --test test/fuzz/fuzz.test.ts`).
 * A crash replaces the server with a fresh one and the run goes on.
 *
 * Options: --runs, --seed, --node-share, --uws-share (fractions of cases sent
 * over HTTP to each front end; default 0.5% each), --out=<file> (JSON report,
 * default .tmp/fuzz-report.json). The server is replaced every 50,000 cases so
 * that what a million cases store does not pile up in one data dir.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { FuzzTarget } from '../../test/fuzz/support/driver.ts';
import { runCampaign, type CampaignStats } from '../../test/fuzz/support/campaign.ts';
import { fuzzSettings } from '../../test/fuzz/support/settings.ts';

const args = process.argv.slice(2);
const settings = fuzzSettings({ runs: 100_000, node: 0.005, uws: 0.005 }, args);
const out = args.find((a) => a.startsWith('--out='))?.slice(6) ?? path.join('.tmp', 'fuzz-report.json');

function summary(stats: CampaignStats): string {
  return `${stats.cases} cases in ${stats.seconds.toFixed(0)} s (${(stats.cases / Math.max(stats.seconds, 1e-9)).toFixed(0)} cases/s; ` +
    `in-process ${stats.byTransport.inprocess}, secure port HTTP/2 ${stats.byTransport.node}, uWS ${stats.byTransport.uws}), ${stats.failures.size} failure classes`;
}

const announced = new Set<string>();
process.stdout.write(`fuzz: ${settings.runs} cases, seed ${settings.seed}, HTTP shares node ${settings.httpShare.node} uWS ${settings.httpShare.uws}\n`);
const stats = await runCampaign(() => FuzzTarget.start(), {
  runs: settings.runs,
  seed: settings.seed,
  path: settings.path,
  httpShare: settings.httpShare,
  mode: 'collect',
  restartEvery: 50_000,
  onProgress: (done, s) => {
    // A class is printed when first seen: a long run that is stopped early still says what it found.
    for (const [signature, f] of s.failures) {
      if (announced.has(signature)) continue;
      announced.add(signature);
      process.stdout.write(`  new failure class at case ${f.first.index}: ${signature}\n    replay: FUZZ_SEED=${settings.seed} FUZZ_PATH=${f.first.index} (over ${f.first.transport})\n    ${f.first.problems.join('\n    ')}\n${f.first.repro.replace(/^/gm, '    ')}\n`);
    }
    if (done % 10_000 === 0) process.stdout.write(`  ${summary(s)}\n`);
  },
});
const classes = [...stats.failures.values()].sort((a, b) => b.count - a.count);
await mkdir(path.dirname(out), { recursive: true });
await writeFile(out, JSON.stringify({ seed: settings.seed, runs: settings.runs, stats: { ...stats, failures: undefined }, classes }, null, 2));
process.stdout.write(`${summary(stats)}\n`);
for (const f of classes) {
  process.stdout.write(`\n[${f.count}x] ${f.signature}\n  replay: FUZZ_SEED=${settings.seed} FUZZ_PATH=${f.first.index} (over ${f.first.transport})\n  ${f.first.problems.join('\n  ')}\n${f.first.repro.replace(/^/gm, '  ')}\n`);
}
process.stdout.write(`\nreport: ${out}\n`);
// A case that hung (a finding) can leave a request or connection open in the stopped server: do not wait for it.
process.exit(classes.length === 0 ? 0 : 1);
