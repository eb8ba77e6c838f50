/**
 * Section 2: list latency of the small and the large data set from the watch
 * cache through the router, with read {kind:'any'} (whatever the cache has)
 * and {kind:'latest'} (the cache confirmed against the store's revision).
 */
import type { ReadMode } from '../../shards/protocol.ts';
import { median } from '../lib/stats.ts';
import { fmtDuration } from '../lib/format.ts';
import { now } from '../lib/timer.ts';
import { CEIL } from './ceilings.ts';
import { RESOURCE, type BackendHarness } from './harness.ts';
import type { Report } from './report.ts';
import type { Settings } from './settings.ts';

const SECTION = 'list';

export const listNamespace = (n: number): string => `list-${n}`;

export async function listSection(h: BackendHarness, report: Report, s: Settings): Promise<void> {
  await h.listData([
    [listNamespace(s.listSmall), s.listSmall],
    [listNamespace(s.listLarge), s.listLarge],
  ]);
  const router = await h.router();
  for (const [n, runs] of [
    [s.listSmall, s.listRunsSmall],
    [s.listLarge, s.listRunsLarge],
  ] as const) {
    const namespace = listNamespace(n);
    const modes = [{ kind: 'any' }, { kind: 'latest' }] as const satisfies readonly ReadMode[];
    // One untimed list first: the first touch of a large reply pays for page faults.
    await router.list(RESOURCE, { kind: 'any' }, { namespace });
    const times = new Map<string, number[]>(modes.map((m) => [m.kind, []]));
    let bytes = 0;
    // Interleaved, so that background work after the load (GC, snapshots) hits both modes alike.
    for (let r = 0; r < runs; r++) {
      for (const read of r % 2 === 0 ? modes : [...modes].reverse()) {
        const t0 = now();
        const reply = await router.list(RESOURCE, read, { namespace });
        times.get(read.kind)!.push(now() - t0);
        if (reply.count !== n) throw new Error(`list of ${namespace} returned ${reply.count} items, expected ${n}`);
        bytes = reply.items.byteLength;
      }
    }
    for (const read of modes) {
      const t = times.get(read.kind)!;
      report.add({
        section: SECTION,
        label: `list ${n.toLocaleString('en-US')} objects from the cache, read ${read.kind}`,
        backend: h.backend.name,
        kind: 'time',
        value: median(t),
        ceiling: report.ceiling(CEIL.listFloor(n)),
        note: `median of ${runs} (min ${fmtDuration(Math.min(...t))}, max ${fmtDuration(Math.max(...t))}); ${(bytes / 2 ** 20).toFixed(1)} MiB reply`,
      });
    }
  }
}
