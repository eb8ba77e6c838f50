/**
 * Section 6: the delete-heavy case of a namespace deletion. Create N objects
 * in one prefix, delete them all, then measure create-if-absent transactions
 * per second (Store.create, concurrency 64) before and after
 * store.compact(currentRevision), both for names that were just deleted (a
 * namespace re-created with the same objects) and for names never used.
 * The reported etcd issue: txns fell to 40-110/s after 200k deletes until a
 * compaction restored them.
 */
import type { Store } from '../../src/storage/interface.ts';
import { fmtNum } from '../lib/format.ts';
import { summarize } from '../lib/stats.ts';
import { drive, timeIt, type DriveResult } from '../lib/timer.ts';
import type { BenchBackend } from './backends.ts';
import { ObjectFactory } from './objects.ts';
import type { CeilingRef, Report } from './report.ts';
import type { Settings } from './settings.ts';

const SECTION = 'delete';
const CONCURRENCY = 64;
const PREFIX = '/configmaps/';

export async function deletesSection(h: { readonly backend: BenchBackend }, report: Report, s: Settings): Promise<void> {
  const b = h.backend;
  const direct = await b.openDirect('delete-heavy');
  const store: Store = direct.store;
  const n = s.deleteN;
  const add = (label: string, run: DriveResult, ref: CeilingRef | undefined, note: string, snapshotsBefore?: number | null): void => {
    const lat = summarize(run.latencies);
    const snaps = direct.snapshots();
    const during = snapshotsBefore !== undefined && snapshotsBefore !== null && snaps !== null ? snaps - snapshotsBefore : 0;
    report.add({
      section: SECTION,
      label,
      backend: b.name,
      kind: 'rate',
      value: run.rate,
      unit: 'txns/s',
      p50: lat.p50,
      p99: lat.p99,
      ceiling: ref,
      note: note + (during > 0 ? `; ${during} snapshot${during === 1 ? '' : 's'} written meanwhile` : ''),
    });
  };
  /** Create-if-absent of `factory`'s objects [from, to), for the measuring duration. */
  const createIfAbsent = (factory: ObjectFactory, from: number, to: number, concurrency = CONCURRENCY): Promise<DriveResult> =>
    drive({ concurrency, count: to - from, durationMs: concurrency === 1 ? s.deleteMeasureMs / 2 : s.deleteMeasureMs }, (i) =>
      store.create(factory.key(PREFIX, from + i), factory.bytes(from + i)),
    );
  /** Measures c64 and c1 create-if-absent, for deleted names [from, to) and for new names. */
  const phase = async (when: string, from: number, to: number, ref: CeilingRef): Promise<void> => {
    const mid = from + Math.floor((to - from) * 0.8);
    let snap = direct.snapshots();
    const deletedNames = await createIfAbsent(doomed, from, mid);
    add(`create-if-absent ${when}: deleted names, c64`, deletedNames, ref, `${fmtNum(deletedNames.ops)} txns`, snap);
    snap = direct.snapshots();
    const newNames = await createIfAbsent(new ObjectFactory(`new-${++newSeq}`), 0, 10_000_000);
    add(`create-if-absent ${when}: new names, c64`, newNames, ref, `${fmtNum(newNames.ops)} txns`, snap);
    snap = direct.snapshots();
    const deletedOne = await createIfAbsent(doomed, mid, to, 1);
    add(`create-if-absent ${when}: deleted names, c1`, deletedOne, freshOneRef, `${fmtNum(deletedOne.ops)} txns`, snap);
  };
  let newSeq = 0;
  const doomed = new ObjectFactory('doomed');
  let freshOneRef: CeilingRef = { name: 'c1 before deletes', value: Number.NaN };
  try {
    // Warm up the connection and the store first.
    const warm = new ObjectFactory('warmup');
    await drive({ concurrency: CONCURRENCY, count: 500, latencies: false }, (i) => store.create(warm.key(PREFIX, i), warm.bytes(i)));
    const fresh = await createIfAbsent(new ObjectFactory('fresh'), 0, 10_000_000);
    const freshRef = { name: 'before deletes', value: fresh.rate };
    add('create-if-absent before any deletes (baseline), c64', fresh, undefined, `${s.deleteMeasureMs} ms`);
    const freshOne = await createIfAbsent(new ObjectFactory('fresh1'), 0, 10_000_000, 1);
    freshOneRef = { name: 'c1 before deletes', value: freshOne.rate };
    add('create-if-absent before any deletes (baseline), c1', freshOne, undefined, `${s.deleteMeasureMs / 2} ms`);

    let snap = direct.snapshots();
    const created = await drive({ concurrency: CONCURRENCY, count: n }, (i) => store.create(doomed.key(PREFIX, i), doomed.bytes(i)));
    add(`create ${fmtNum(n)} objects in one prefix, c64`, created, freshRef, `${created.seconds.toFixed(1)} s`, snap);
    snap = direct.snapshots();
    const deleted = await drive({ concurrency: CONCURRENCY, count: n }, (i) => store.delete(doomed.key(PREFIX, i)));
    add(`delete all ${fmtNum(n)}, c64`, deleted, freshRef, `${deleted.seconds.toFixed(1)} s`, snap);

    const half = Math.floor(n / 2);
    await phase(`after ${fmtNum(n)} deletes, before compaction`, 0, half, freshRef);

    const revision = await store.currentRevision();
    const compaction = await timeIt(() => store.compact(revision));
    report.add({
      section: SECTION,
      label: `store.compact(currentRevision) after ${fmtNum(n)} deletes`,
      backend: b.name,
      kind: 'time',
      value: compaction.ms,
      note: `to revision ${revision}; until compact() resolved${b.name === 'etcd3' ? ' (etcd compacts physically in the background)' : ' (history pruned in the background)'}`,
    });

    await phase('after compaction', half, n, freshRef);
  } finally {
    await direct.dispose();
  }
}
