/**
 * The fuzzing harness's bounded share for `npm test`: about 20,000 cases
 * from one fixed, printed seed, most in-process through the request pipeline and a
 * few hundred (1.5% each) over HTTP to each front end. Every answer must be a
 * well-formed Status or object, no case may hang or crash the server, and
 * what a write stored must read back as JSON, Protobuf and Table.
 *
 * A failure prints the seed and the fast-check path; replay that one case
 * with `FUZZ_SEED=<seed> FUZZ_PATH=<path> node --import tsx --test test/fuzz/fuzz.test.ts`.
 * Long runs: `npm run fuzz` (loadtest/fuzz/run.ts).
 */
import { after, test } from 'node:test';
import { FuzzTarget } from './support/driver.ts';
import { runCampaign } from './support/campaign.ts';
import { fuzzSettings } from './support/settings.ts';

// A fixed seed: the same 20,000 cases every run (FUZZ_SEED=<n> draws others; `npm run fuzz` draws fresh ones).
const settings = fuzzSettings({ runs: 20_000, node: 0.015, uws: 0.015, seed: 20261125 });

// A case that hung (reported as a failure) can leave a request or connection open in the stopped server; an
// unref'd timer fires only if something else still holds the process, so a clean run exits as usual.
after(() => {
  setTimeout(() => process.exit(), 2_000).unref();
});

test(`fuzz: ${settings.runs} cases, seed ${settings.seed}`, { timeout: 15 * 60_000 }, async (t) => {
  t.diagnostic(`FUZZ_SEED=${settings.seed}${settings.path === undefined ? '' : ` FUZZ_PATH=${settings.path}`}`);
  process.stdout.write(`fuzz seed ${settings.seed} (replay: FUZZ_SEED=${settings.seed})\n`);
  const stats = await runCampaign(() => FuzzTarget.start(), {
    runs: settings.runs,
    seed: settings.seed,
    path: settings.path,
    shrink: settings.shrink,
    httpShare: settings.httpShare,
    mode: 'assert',
  });
  t.diagnostic(
    `${stats.cases} cases (${stats.byTransport.inprocess} in-process, ${stats.byTransport.node} over the secure port's HTTP/2, ${stats.byTransport.uws} uWS; ` +
      `${stats.skipped} refused by the client) in ${stats.seconds.toFixed(1)} s, ${(stats.cases / stats.seconds).toFixed(0)} cases/s`,
  );
});
