/**
 * LIST of 50,000 1 KiB ConfigMaps on its own (the same measurement the
 * side-by-side mode of loadtest/h2load/run.ts makes after its h2load rounds):
 * JSON, curl to the last byte, consistent read and `resourceVersion=0`, on our
 * uWS listener and secure port, and on the original when given.
 *
 *   node --import tsx loadtest/list50k/run.ts [--original=/path/to/kube-apiserver] [--out=<file>]
 *
 * Needs curl and h2load (Debian `nghttp2-client`; seeding goes through it);
 * without them it says so and skips. Knobs: BENCH_LIST50K_COUNT=50000,
 * BENCH_LIST50K_RUNS=3, BENCH_ORIGINAL_APISERVER (as --original), BENCH_LIST50K_FILLER=0 (that many more
 * ConfigMaps in another namespace first: a store and heaps as large as after the side-by-side's create rounds).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describeServer, REPO_ROOT, startApiServer, stopEverything, type ServerHandle } from '../api/server.ts';
import { argValue, envNumber, haveCommand } from '../lib/env.ts';
import { describeMachine, loadAverage, machineInfo } from '../lib/machine.ts';
import { makeTempDir, removeTempDir } from '../lib/tmp.ts';
import { exitOnSignals, startOriginalApiServer, type OriginalHandle } from '../original/apiserver.ts';
import { originalTargets, oursTargets } from '../original/side-by-side.ts';
import type { Target } from '../original/target.ts';
import { LIST_NAMESPACE, listTable, listUserAgent, measureLists, seedConfigMaps } from './list.ts';

const COUNT = envNumber('BENCH_LIST50K_COUNT', 50_000);
const RUNS = envNumber('BENCH_LIST50K_RUNS', 3);
const FILLER = envNumber('BENCH_LIST50K_FILLER', 0);

async function main(argv: readonly string[] = process.argv.slice(2)): Promise<number> {
  for (const cmd of ['h2load', 'curl']) {
    if (!haveCommand(cmd)) {
      console.log(`LIST-50k benchmark skipped: ${cmd} is not installed (apt-get install ${cmd === 'h2load' ? 'nghttp2-client' : 'curl'}).`);
      return 0;
    }
  }
  const binary = argValue('original', argv) ?? process.env['BENCH_ORIGINAL_APISERVER'];
  const out = argValue('out', argv) ?? join(REPO_ROOT, 'loadtest/results/list50k.md');
  const machine = describeMachine(machineInfo());
  exitOnSignals();
  const dir = await makeTempDir('orch-list50k');
  let ours: ServerHandle | null = null;
  let original: OriginalHandle | null = null;
  const lines: string[] = [];
  try {
    ours = await startApiServer('embedded', null);
    const [uws, secure] = oursTargets(ours);
    const targets: Target[] = [
      { ...uws!, key: 'ours-uws', label: 'ours, uWS listener' },
      { ...secure!, key: 'ours-secure', label: 'ours, secure port' },
    ];
    if (binary !== undefined && binary !== '') {
      original = await startOriginalApiServer(binary);
      targets.push({ ...originalTargets(original)[1]!, key: 'orig', label: 'original' });
    }
    for (const t of targets.filter((x) => x.key !== 'ours-secure')) {
      if (FILLER > 0) {
        const filled = await seedConfigMaps(t, `${LIST_NAMESPACE}-filler`, FILLER, dir);
        console.log(`  seeded ${FILLER} filler ConfigMaps on ${t.label} in ${filled.seconds.toFixed(1)} s`);
      }
      const { seconds } = await seedConfigMaps(t, LIST_NAMESPACE, COUNT, dir);
      console.log(`  seeded ${COUNT} ConfigMaps on ${t.label} in ${seconds.toFixed(1)} s`);
    }
    const table = listTable(await measureLists(targets, LIST_NAMESPACE, RUNS, dir, (s) => console.log(s)));
    console.log(table.join('\n'));
    lines.push(
      `# LIST of ${COUNT.toLocaleString('en-US')} ConfigMaps (1 KiB each), JSON, curl to the last byte`,
      '',
      `Machine: ${machine}, ${loadAverage().toFixed(2)} at the end. Ours: ${describeServer()}, embedded storage.`,
      original ? `Original: ${original.version}, etcd ${original.etcd.version}, flags \`${original.flags.join(' ')}\`.` : 'Original: not given (--original=/path/to/kube-apiserver).',
      `Median of ${RUNS} interleaved rounds after one untimed list per target and kind; User-Agent \`${listUserAgent()}\` (with curl's own the original pretty-prints its JSON).`,
      `Command: \`node --import tsx loadtest/list50k/run.ts${original ? ' --original=<path to kube-apiserver>' : ''}\``,
      '',
      ...table,
    );
  } finally {
    await ours?.stop();
    await original?.stop();
    await removeTempDir(dir);
    await stopEverything();
  }
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, lines.join('\n') + '\n');
  console.log(`\nwritten to ${out}`);
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exit(await main());
}
