/**
 * A fuzz campaign: cases drawn by fast-check from one seed, each sent over a
 * transport drawn with it (so seed and path replay the same request over the
 * same transport), with a liveness check every so often. Two modes:
 * `assert` stops at the first failure and lets fast-check print the seed and
 * path that replay it (the npm test); `collect` keeps going and groups
 * failures into classes with the first repro of each (the long runner).
 */
import fc from 'fast-check';
import { builtinResourceTypes } from '../../../src/registry/catalog/index.ts';
import { ResourceRegistry } from '../../../src/registry/registry.ts';
import type { FuzzTarget, Transport } from './driver.ts';
import { caseArb, describeCase, type FuzzCase } from './requests.ts';
import { SeedSchemas } from './schema-values.ts';

export interface CampaignOptions {
  readonly runs: number;
  readonly seed: number;
  /** fast-check replay path (`FUZZ_PATH`), from a failure report. */
  readonly path?: string | undefined;
  /** Shares of cases sent over HTTP to each front end (the rest go in-process). */
  readonly httpShare: { readonly node: number; readonly uws: number };
  readonly mode: 'assert' | 'collect';
  /** Shrink a failure (assert mode); slower, and server state makes shrinking approximate. */
  readonly shrink?: boolean;
  /**
   * Replace the server with a fresh one (new data dir) every this many cases: bounds what a long run stores
   * (objects under random names accumulate), at the price of making replays past a restart start from empty.
   */
  readonly restartEvery?: number;
  /** Check readyz and the shard threads every this many cases. */
  readonly livenessEvery?: number;
  readonly onProgress?: (done: number, stats: CampaignStats) => void;
}

export interface FailureClass {
  readonly signature: string;
  count: number;
  readonly first: { readonly index: number; readonly transport: Transport; readonly problems: readonly string[]; readonly repro: string };
}

export interface CampaignStats {
  cases: number;
  skipped: number;
  byTransport: Record<Transport, number>;
  failures: Map<string, FailureClass>;
  seconds: number;
}

export class CaseFailure extends Error {}

/** Problems with volatile parts (numbers, quoted text) blanked, plus what was sent: one class per kind of failure. */
export function signatureOf(c: FuzzCase, transport: Transport, problem: string): string {
  const shape = c.op.split(':')[0];
  // Representation differences group by which side lost or gained a value, not by the path.
  const diff = /^read-back: Protobuf and JSON differ: .*: protobuf (.*) vs json (.*)$/.exec(problem);
  if (diff !== null) {
    const side = diff[1] === 'undefined' ? 'only in JSON' : diff[2] === 'undefined' ? 'only in Protobuf' : 'values differ';
    return `read-back Protobuf/JSON: a field ${side}`;
  }
  const normal = problem
    .replace(/"[^"]*"/g, '"…"')
    .replace(/\d+/g, 'N')
    .replace(/: [^:]{80,}$/, ': …')
    .slice(0, 160);
  return `${shape} ${c.body?.label.split(':')[0] ?? 'no-body'} ${transport === 'inprocess' ? '' : `[${transport}] `}${normal}`;
}

export function fuzzArbitrary(share: CampaignOptions['httpShare']): fc.Arbitrary<{ c: FuzzCase; transport: Transport }> {
  const registry = new ResourceRegistry(builtinResourceTypes, {});
  const types = registry.types;
  const ctx = { types, seeds: new SeedSchemas(types) };
  const perMille = (x: number): number => Math.round(x * 1000);
  const inprocess = Math.max(1, 1000 - perMille(share.node) - perMille(share.uws));
  const transports: { weight: number; arbitrary: fc.Arbitrary<Transport> }[] = [{ weight: inprocess, arbitrary: fc.constant('inprocess' as const) }];
  if (share.node > 0) transports.push({ weight: perMille(share.node), arbitrary: fc.constant('node' as const) });
  if (share.uws > 0) transports.push({ weight: perMille(share.uws), arbitrary: fc.constant('uws' as const) });
  return fc.record({ c: caseArb(ctx), transport: fc.oneof(...transports) });
}

/** Describes an uncaught error for a report: its message and the top of its stack. */
function crashText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  return `${err.name}: ${err.message} ${(err.stack ?? '').split('\n').slice(1, 4).map((l) => l.trim()).join(' < ')}`;
}

/**
 * Runs a campaign against servers from `start`. An uncaught error while a
 * case runs is that case's failure ("crash"): the server lives in this
 * process, so the harness listens for it; in collect mode the server is then
 * replaced by a fresh one and the campaign goes on.
 */
export async function runCampaign(start: () => Promise<FuzzTarget>, opts: CampaignOptions): Promise<CampaignStats> {
  const stats: CampaignStats = { cases: 0, skipped: 0, byTransport: { inprocess: 0, node: 0, uws: 0 }, failures: new Map(), seconds: 0 };
  const started = performance.now();
  const livenessEvery = opts.livenessEvery ?? 2_000;
  // FUZZ_SLOW_MS=<ms>: name every case that takes at least that long (where a long run's time goes).
  const slowMs = Number(process.env['FUZZ_SLOW_MS'] ?? 0) || 0;
  const crashes: unknown[] = [];
  const onCrash = (err: unknown): void => void crashes.push(err);
  process.on('uncaughtException', onCrash);
  process.on('unhandledRejection', onCrash);
  let target = await start();
  // The fast-check path of a case run without shrinking is its index; a replay starts at the given one.
  let index = opts.path === undefined ? 0 : Number(opts.path.split(':')[0]) || 0;
  const record = (i: number, c: FuzzCase, transport: Transport, problems: string[]): void => {
    for (const p of problems) {
      const signature = signatureOf(c, transport, p);
      const known = stats.failures.get(signature);
      if (known !== undefined) known.count++;
      else stats.failures.set(signature, { signature, count: 1, first: { index: i, transport, problems, repro: describeCase(c) } });
    }
  };
  const property = fc.asyncProperty(fuzzArbitrary(opts.httpShare), async ({ c, transport }) => {
    const i = index++;
    const caseStarted = slowMs > 0 ? performance.now() : 0;
    const result = await target.run(c, transport);
    if (slowMs > 0) {
      const took = performance.now() - caseStarted;
      if (took >= slowMs) process.stderr.write(`slow case ${i} (${took.toFixed(0)} ms over ${transport}): ${c.method} ${c.url.slice(0, 160)}${c.watch ? ' [watch]' : ''}\n`);
    }
    stats.cases++;
    stats.byTransport[transport]++;
    if (result.skipped) stats.skipped++;
    const problems = [...result.problems];
    // Give an error thrown from a worker's message a turn to arrive before judging the case.
    if (crashes.length === 0) await new Promise<void>((r) => setImmediate(r));
    const crashed = crashes.length > 0;
    if (crashed) problems.push(...crashes.splice(0).map((e) => `crash: uncaught ${crashText(e)}`));
    else if ((i + 1) % livenessEvery === 0) problems.push(...(await target.alive()));
    if (opts.onProgress !== undefined && (i + 1) % 1_000 === 0) opts.onProgress(i + 1, { ...stats, seconds: (performance.now() - started) / 1000 });
    if (problems.length === 0) return;
    if (opts.mode === 'assert') throw new CaseFailure(`${problems.join('\n')}\nover ${transport}:\n${describeCase(c)}`);
    record(i, c, transport, problems);
    if (crashed) {
      await target.stop();
      target = await start();
    }
  });
  const restartEvery = opts.restartEvery ?? 0;
  const restarting = restartEvery <= 0 ? property : property.afterEach(async () => {
    if (index % restartEvery === 0) {
      await target.stop();
      target = await start();
    }
  });
  const params: fc.Parameters<[{ c: FuzzCase; transport: Transport }]> = {
    seed: opts.seed,
    numRuns: opts.runs,
    endOnFailure: !(opts.shrink ?? false),
    // The problems found are the report: without this fast-check prints only the counterexample.
    includeErrorInReport: true,
    ...(opts.path === undefined ? {} : { path: opts.path }),
  };
  try {
    await fc.assert(restarting, params);
    const last = await target.alive();
    if (last.length > 0) {
      if (opts.mode === 'assert') throw new CaseFailure(`the server is not alive after the campaign: ${last.join('; ')}`);
      stats.failures.set('liveness', { signature: 'liveness', count: 1, first: { index, transport: 'inprocess', problems: last, repro: '(after the campaign)' } });
    }
  } finally {
    stats.seconds = (performance.now() - started) / 1000;
    await target.stop();
    process.off('uncaughtException', onCrash);
    process.off('unhandledRejection', onCrash);
  }
  return stats;
}
