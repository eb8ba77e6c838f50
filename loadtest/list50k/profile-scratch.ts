import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startApiServer, stopEverything, REPO_ROOT } from '../api/server.ts';
import { oursTargets } from '../original/side-by-side.ts';
import { makeTempDir, removeTempDir } from '../lib/tmp.ts';
import { LIST_NAMESPACE, seedConfigMaps, timeList } from './list.ts';

const profDir = process.env['PROF_DIR'] ?? '/tmp/hlist-prof';
process.env['NODE_OPTIONS'] = `--require ${join(REPO_ROOT, 'loadtest/profile/preload.cjs')}`;
process.env['ORCH_PROFILE_DIR'] = profDir;
process.env['ORCH_PROFILE_INTERVAL_US'] = '500';
const dir = await makeTempDir('hlist');
const ours = await startApiServer('embedded', null);
delete process.env['NODE_OPTIONS'];
try {
  const [uws, secure] = oursTargets(ours);
  await seedConfigMaps(uws!, LIST_NAMESPACE, Number(process.env['COUNT'] ?? 50000), dir);
  const windows: [typeof uws, 'consistent' | 'rv0'][] = [[uws, 'consistent'], [uws, 'rv0'], [secure, 'consistent'], [secure, 'rv0']];
  for (const [t, k] of windows) await timeList(t!, LIST_NAMESPACE, k, dir);
  for (const [t, k] of windows) {
    process.kill(ours.pid, 'SIGUSR2');
    await new Promise((r) => setTimeout(r, 200));
    const ms: number[] = [];
    for (let i = 0; i < 3; i++) ms.push(Math.round((await timeList(t!, LIST_NAMESPACE, k, dir)).ms));
    process.kill(ours.pid, 'SIGUSR2');
    console.log(t!.label, k, ms.join(','));
    await new Promise((r) => setTimeout(r, 1000));
  }
} finally {
  await ours.stop();
  await removeTempDir(dir);
  await stopEverything();
}
