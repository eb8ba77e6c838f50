/**
 * The storage benchmark: `npm run bench:storage` (node --import tsx loadtest/storage/run.ts).
 *
 * Measures machine ceilings first, then for each backend (embedded, and etcd3
 * against a real etcd on loopback) creates, list latency from the cache,
 * watch delivery, the shard round trip, memory per object and a delete-heavy
 * case; prints one table with each figure against its ceiling and the
 * targets, and writes it to loadtest/results/storage.md.
 *
 *   --only=<section>[,<section>...]   ceilings, creates, list, watch, hop, rss, delete
 *   --backend=embedded|etcd3          one backend only
 *   --out=<file>                      markdown output (default: loadtest/results/storage.md on a full run)
 * Sizes: see settings.ts (BENCH_FULL=1 for the 200,000-object delete case).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { argValue } from '../lib/env.ts';
import { describeMachine, loadAverage, machineInfo } from '../lib/machine.ts';
import { renderMarkdown, renderText } from '../lib/table.ts';
import { now } from '../lib/timer.ts';
import { BACKENDS, openBackend, type BackendName, type BenchBackend } from './backends.ts';
import { runCeilings } from './ceilings.ts';
import { createsSection } from './creates.ts';
import { deletesSection } from './deletes.ts';
import { BackendHarness } from './harness.ts';
import { hopSection } from './hop.ts';
import { listSection } from './list.ts';
import { memorySection } from './memory-section.ts';
import { Report, SECTION_TITLES } from './report.ts';
import { loadSettings, type Settings } from './settings.ts';
import { watchSection } from './watch.ts';

type Section = 'ceilings' | 'creates' | 'list' | 'watch' | 'hop' | 'rss' | 'delete';
const ALL_SECTIONS: readonly Section[] = ['ceilings', 'creates', 'list', 'watch', 'hop', 'rss', 'delete'];

/** Backend sections in the order they run (rss right after list: it reuses the list data). */
const BACKEND_SECTIONS: ReadonlyArray<[Section, (h: BackendHarness, r: Report, s: Settings) => Promise<void>]> = [
  ['creates', createsSection],
  ['list', listSection],
  ['rss', memorySection],
  ['hop', hopSection],
  ['watch', watchSection],
  ['delete', deletesSection],
];

function parseList<T extends string>(raw: string | undefined, all: readonly T[], what: string): T[] {
  if (raw === undefined) return [...all];
  const picked = raw.split(',').map((x) => x.trim()).filter((x) => x !== '');
  for (const p of picked) if (!all.includes(p as T)) throw new Error(`unknown ${what} ${p}; one of ${all.join(', ')}`);
  return picked as T[];
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${Math.round(ms / 1000)} s`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

async function main(): Promise<number> {
  const sections = parseList(argValue('only'), ALL_SECTIONS, 'section');
  const backends = parseList<BackendName>(argValue('backend'), BACKENDS, 'backend');
  const settings = loadSettings();
  const machine = machineInfo();
  const report = new Report();
  const started = now();
  const complete = sections.length === ALL_SECTIONS.length && backends.length === BACKENDS.length;

  console.log(`storage benchmark: ${describeMachine(machine)}`);
  console.log(`sections: ${sections.join(', ')}; backends: ${backends.join(', ')}; ${settings.full ? 'BENCH_FULL' : 'default sizes'}`);
  if (!sections.includes('ceilings')) console.log('(ceilings not measured: the ratio column stays empty)');
  if (machine.loadAverage > 0.5 * machine.nproc) {
    console.log(`warning: load average ${machine.loadAverage.toFixed(2)} on ${machine.nproc} CPUs; other work will skew the figures`);
  }

  if (sections.includes('ceilings')) {
    console.log(`\n== ${SECTION_TITLES['ceilings']}`);
    await withTimeout(runCeilings(report, [settings.listSmall, settings.listLarge]), settings.sectionTimeoutMs, 'ceilings');
  }

  const descriptions: string[] = [];
  for (const name of backends) {
    const todo = BACKEND_SECTIONS.filter(([s]) => sections.includes(s));
    if (todo.length === 0) continue;
    console.log(`\n== backend ${name}`);
    let backend: BenchBackend;
    try {
      backend = await withTimeout(openBackend(name), 60_000, `starting ${name}`);
    } catch (err) {
      for (const [section] of todo) report.fail(section, name, err);
      continue;
    }
    descriptions.push(`${name}: ${backend.description}`);
    const harness = new BackendHarness(backend);
    try {
      for (const [section, run] of todo) {
        console.log(`-- ${SECTION_TITLES[section]} [${name}]`);
        const t0 = now();
        try {
          await withTimeout(run(harness, report, settings), settings.sectionTimeoutMs, `${section} on ${name}`);
        } catch (err) {
          report.fail(section, name, err);
        }
        console.log(`   (${((now() - t0) / 1000).toFixed(1)} s)`);
      }
    } finally {
      await withTimeout(harness.close(), 60_000, `closing the ${name} router`).catch((err: unknown) => report.fail('creates', name, err));
      await withTimeout(backend.close(), 60_000, `closing ${name}`).catch((err: unknown) => report.fail('creates', name, err));
    }
  }

  const minutes = (now() - started) / 60_000;
  const table = report.table();
  const header = [
    `Storage benchmark (1 KiB objects), ${settings.full ? 'BENCH_FULL' : 'default sizes'}, took ${minutes.toFixed(1)} min`,
    `Machine: ${describeMachine(machine)}, ${loadAverage().toFixed(2)} at the end`,
    ...descriptions.map((d) => `Backend ${d}`),
  ];
  console.log(`\n${header.join('\n')}\n`);
  console.log(renderText(table));
  const targets = report.measurements.filter((m) => m.target !== undefined);
  const missed = targets.filter((m) => !m.target!.pass);
  console.log(`\ntargets: ${targets.length - missed.length} PASS, ${missed.length} MISS; failures: ${report.failures.length}`);

  const out =
    argValue('out') ?? (complete ? fileURLToPath(new URL('../results/storage.md', import.meta.url)) : undefined);
  if (out !== undefined) {
    const md = [
      '# Storage benchmark',
      '',
      '`npm run bench:storage` (`node --import tsx loadtest/storage/run.ts`)',
      '',
      ...header.map((l) => `- ${l}`),
      `- Ratio column: for rates, the share of the ceiling reached; for times and bytes, how many times the ceiling (floor).`,
      `- Targets: ${targets.length - missed.length} PASS, ${missed.length} MISS. Section failures: ${report.failures.length}.`,
      '',
      renderMarkdown(table),
      '',
    ].join('\n');
    await mkdir(dirname(out), { recursive: true });
    await writeFile(out, md);
    console.log(`written to ${out}`);
  } else {
    console.log('(partial run: no markdown written; pass --out=<file> to write one)');
  }
  return report.failures.length > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(2);
  },
);
