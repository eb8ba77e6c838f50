/**
 * Section 5: resident memory per 10,000 objects of 1 KiB, as the process RSS
 * delta (all threads: main, shards, store host) around creating the list data
 * sets through the router. For etcd, etcd's own RSS delta is shown apart.
 */
import { fmtBytes } from '../lib/format.ts';
import type { BackendHarness } from './harness.ts';
import { listNamespace } from './list.ts';
import { OBJECT_BYTES } from './objects.ts';
import type { Report } from './report.ts';
import type { Settings } from './settings.ts';

const SECTION = 'rss';
const PER = 10_000;

export async function memorySection(h: BackendHarness, report: Report, s: Settings): Promise<void> {
  await h.listData([
    [listNamespace(s.listSmall), s.listSmall],
    [listNamespace(s.listLarge), s.listLarge],
  ]);
  const p = h.population;
  if (p === null) throw new Error('the list data sets existed before memory could be measured');
  const payload = { name: '1 KiB payload', value: PER * OBJECT_BYTES };
  report.add({
    section: SECTION,
    label: `process RSS per ${PER.toLocaleString('en-US')} objects (all threads)`,
    backend: h.backend.name,
    kind: 'bytes',
    value: ((p.rssAfter - p.rssBefore) / p.objects) * PER,
    ceiling: payload,
    note:
      `RSS ${fmtBytes(p.rssBefore)} -> ${fmtBytes(p.rssAfter)} over ${p.objects.toLocaleString('en-US')} objects created through the router; ` +
      `lowest of 3 s of samples; GC forced on the main thread only` +
      (h.backend.name === 'embedded' ? '; holds the store (store-host thread) and the cache (shard)' : '; the cache only, etcd is another process'),
  });
  if (p.serverRssBefore !== null && p.serverRssAfter !== null) {
    report.add({
      section: SECTION,
      label: `etcd process RSS per ${PER.toLocaleString('en-US')} objects (not in the row above)`,
      backend: h.backend.name,
      kind: 'bytes',
      value: ((p.serverRssAfter - p.serverRssBefore) / p.objects) * PER,
      ceiling: payload,
      note: `etcd RSS ${fmtBytes(p.serverRssBefore)} -> ${fmtBytes(p.serverRssAfter)}; Go's heap and etcd's compaction make this rough`,
    });
  }
}
