/**
 * Tests of what is specific to the embedded backend: durability across
 * reopen, snapshots, torn-tail repair, the directory lock, persisted
 * compaction, group commit, and the rule that nothing is visible before it is
 * durable. The Store contract itself is covered by test/conformance/storage.
 */
import { describe, it, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFile, mkdtemp, readdir, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CorruptStoreError, DirLockedError, EmbeddedStore, type EmbeddedStoreOptions } from '../../src/storage/embedded/index.ts';
import {
  AlreadyExistsError,
  CompactedError,
  StorageUnavailableError,
  StoreClosedError,
} from '../../src/storage/errors.ts';
import type { Revision, StoreEvent } from '../../src/storage/interface.ts';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const dec = (b: Uint8Array | null): string | null => (b === null ? null : new TextDecoder().decode(b));

async function rejects<T extends Error>(p: Promise<unknown>, cls: new (...args: never[]) => T): Promise<T> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof cls, `expected ${cls.name}, got ${String(err)}`);
    return err as T;
  }
  assert.fail(`expected ${cls.name}, but the call succeeded`);
}

const segments = async (dir: string): Promise<string[]> => (await readdir(dir)).filter((n) => n.startsWith('wal-')).sort();
const snapshots = async (dir: string): Promise<string[]> => (await readdir(dir)).filter((n) => n.endsWith('.snap')).sort();

/** Everything readable under `prefix` at `revision`, as [key, value, modRevision, createRevision]. */
async function dump(store: EmbeddedStore, prefix: string, revision?: Revision): Promise<unknown[]> {
  const res = await store.range(prefix, revision === undefined ? {} : { revision });
  return res.kvs.map((kv) => [kv.key, dec(kv.value), kv.modRevision, kv.createRevision]);
}

describe('embedded store', () => {
  let dir: string;
  const open: EmbeddedStore[] = [];
  const openStore = async (options: Partial<EmbeddedStoreOptions> = {}): Promise<EmbeddedStore> => {
    const s = await EmbeddedStore.open({ dir, ...options });
    open.push(s);
    return s;
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'orch-embedded-'));
  });
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close();
    await rm(dir, { recursive: true, force: true });
  });

  describe('recovery', () => {
    it('keeps every acknowledged write, history included, across close and reopen', async () => {
      let s = await openStore();
      const a1 = await s.create('/r/a', enc('a1'));
      const b1 = await s.create('/r/b', enc('b1'));
      const a2 = await s.update('/r/a', enc('a2'), a1.modRevision);
      const delB = await s.delete('/r/b');
      const b2 = await s.create('/r/b', enc('b2'));
      await Promise.all(Array.from({ length: 100 }, (_, i) => s.create(`/r/many/${i}`, enc(`m${i}`))));
      const before = await s.currentRevision();
      const latest = await dump(s, '/r/');
      const atB1 = await dump(s, '/r/', b1.modRevision);
      await s.close();

      s = await openStore();
      assert.equal(await s.currentRevision(), before);
      assert.deepEqual(await dump(s, '/r/'), latest);
      assert.deepEqual(await dump(s, '/r/', b1.modRevision), atB1);
      assert.equal((await s.get('/r/b', delB.revision)).kv, null);
      assert.equal((await s.get('/r/b')).kv!.createRevision, b2.modRevision);
      assert.equal(dec((await s.get('/r/a', a2.modRevision - 1)).kv!.value), 'a1');
      const next = await s.create('/r/c', enc('c'));
      assert.ok(next.modRevision > before, 'revisions continue after the last durable one');
    });

    it('writes snapshots, deletes covered segments, and replays the WAL after the newest snapshot', async () => {
      // Small enough for several snapshots although each waits for a segment as large as the last snapshot.
      const threshold = 8 * 1024;
      let s = await openStore({ snapshotThresholdBytes: threshold });
      const value = enc('x'.repeat(200));
      const revs: Revision[] = [];
      const firstSegment = s.stats().currentSegment;
      // A rotation starts a snapshot in the background, and none starts while one runs: wait for each to end, so
      // that how many there are depends on the sizes written, not on how fast a loaded machine writes snapshots.
      const snapshotsDone = async (): Promise<void> => {
        for (let waited = 0; ; waited += 10) {
          const st = s.stats();
          if (st.snapshotsWritten + st.snapshotFailures >= st.currentSegment - firstSegment) return;
          assert.ok(waited < 30_000, `a snapshot ends (segment ${st.currentSegment}, ${st.snapshotsWritten} written)`);
          await new Promise((r) => setTimeout(r, 10));
        }
      };
      for (let round = 0; round < 10; round++) {
        const batch = await Promise.all(Array.from({ length: 40 }, (_, i) => s.create(`/s/${round}/${i}`, value)));
        revs.push(...batch.map((kv) => kv.modRevision));
        const kv = (await s.get('/s/0/0')).kv!;
        await s.update('/s/0/0', enc(`round ${round}`), kv.modRevision);
        await snapshotsDone();
      }
      assert.ok(s.stats().snapshotsWritten >= 3, `snapshots written: ${s.stats().snapshotsWritten}`);
      await s.update('/s/1/1', enc('after snapshot'), (await s.get('/s/1/1')).kv!.modRevision);
      const latest = await dump(s, '/s/');
      const early = await dump(s, '/s/', revs[5]!);
      const current = await s.currentRevision();
      await s.close();

      assert.equal((await snapshots(dir)).length, 1, 'older snapshots are deleted');
      assert.ok((await segments(dir)).length <= 2, `covered segments are deleted: ${await segments(dir)}`);

      s = await openStore({ snapshotThresholdBytes: threshold });
      const rec = s.stats().recovery;
      assert.ok(rec.snapshotRevision > 0 && rec.snapshotRevision < current, `snapshot at ${rec.snapshotRevision}`);
      assert.ok(rec.recordsReplayed > 0, 'records after the snapshot are replayed');
      assert.equal(await s.currentRevision(), current);
      assert.deepEqual(await dump(s, '/s/'), latest);
      assert.deepEqual(await dump(s, '/s/', revs[5]!), early, 'history before the snapshot survives');
      assert.equal(dec((await s.get('/s/0/0')).kv!.value), 'round 9');
    });

    it('waits for a segment as large as the last snapshot before the next one, also after a reopen', async () => {
      const threshold = 4 * 1024;
      const fileSize = async (name: string | undefined): Promise<number> => (name === undefined ? 0 : (await stat(join(dir, name))).size);
      const snapshotBytes = async (): Promise<number> => fileSize((await snapshots(dir)).at(-1));
      // The records in it: its file also holds the zeros preallocated after them.
      const segmentBytes = async (): Promise<number> => s.stats().currentSegmentBytes;
      const settle = async (): Promise<void> => {
        await new Promise((r) => setTimeout(r, 50));
      };
      // Updates of one key add WAL bytes (~350 each) without growing the state.
      let kv = { modRevision: 0 };
      let n = 0;
      const update = async (s: EmbeddedStore, bytes: number): Promise<void> => {
        const start = s.stats().walBytesWritten;
        while (s.stats().walBytesWritten - start < bytes) {
          kv = await s.update('/g/hot', enc(`hot ${n++} ${'h'.repeat(300)}`), kv.modRevision);
        }
      };
      /** Until a snapshot starts and ends: the segment after it holds only what was written meanwhile. */
      const rotate = async (s: EmbeddedStore): Promise<void> => {
        const before = s.stats().snapshotsWritten;
        while (s.stats().snapshotsWritten === before) await update(s, 1);
        await settle();
      };
      /** WAL bytes the current segment can still take before a snapshot starts. */
      const room = async (): Promise<number> => Math.max(threshold, await snapshotBytes()) - (await segmentBytes());

      let s = await openStore({ snapshotThresholdBytes: threshold });
      kv = await s.create('/g/hot', enc('hot'));
      const value = enc('v'.repeat(500));
      for (let i = 0; i < 120; i++) await s.create(`/g/${i}`, value);
      await rotate(s); // a snapshot of the whole state (~60 KiB)
      const size = await snapshotBytes();
      assert.ok(size > 10 * threshold, `the snapshot holds the state: ${size} bytes`);
      const written = s.stats().snapshotsWritten;
      const left = await room();
      assert.ok(left > size / 2, `a fresh segment: ${left} bytes of room`);

      await update(s, left - 1024);
      await settle();
      assert.equal(s.stats().snapshotsWritten, written, 'less WAL than the last snapshot starts none (a fixed threshold would start many)');
      await update(s, 1024 + threshold);
      await settle();
      assert.equal(s.stats().snapshotsWritten, written + 1, 'a segment as large as the snapshot starts one');
      await s.close();
      open.length = 0;

      s = await openStore({ snapshotThresholdBytes: threshold });
      kv = (await s.get('/g/hot')).kv!;
      const after = await room();
      assert.ok(after > 2048, `room after the reopen: ${after}`);
      await update(s, after - 1024);
      await settle();
      assert.equal(s.stats().snapshotsWritten, 0, 'after a reopen, the recovered snapshot sets the size');
      await update(s, 1024 + threshold);
      await settle();
      assert.equal(s.stats().snapshotsWritten, 1);
      assert.equal((await s.range('/g/')).kvs.length, 121, 'nothing lost');
    });

    it('cuts a torn last record and keeps everything before it', async () => {
      let s = await openStore();
      const kvs = [];
      for (let i = 0; i < 10; i++) kvs.push(await s.create(`/t/${i}`, enc(`v${i}`)));
      await s.close();
      const [seg] = await segments(dir);
      const path = join(dir, seg!);
      const size = (await stat(path)).size;
      await truncate(path, size - 3); // the last frame is now short

      s = await openStore();
      assert.ok(s.stats().recovery.truncatedBytes > 0);
      assert.equal(await s.currentRevision(), kvs[8]!.modRevision);
      assert.equal((await s.get('/t/9')).kv, null);
      assert.equal(dec((await s.get('/t/8')).kv!.value), 'v8');
      const after = await s.create('/t/new', enc('new'));
      await s.close();

      s = await openStore();
      assert.equal(s.stats().recovery.truncatedBytes, 0, 'the repaired log is clean');
      assert.equal(dec((await s.get('/t/new')).kv!.value), 'new');
      assert.equal(await s.currentRevision(), after.modRevision);
    });

    it('refuses a flipped bit in the last complete record, and writes over trailing zeros', async () => {
      let s = await openStore();
      for (let i = 0; i < 5; i++) await s.create(`/t/${i}`, enc(`v${i}`));
      await s.close();
      open.splice(0);
      const path = join(dir, (await segments(dir))[0]!);
      const bytes = await readFile(path);
      bytes[bytes.length - 1]! ^= 0x01;
      await writeFile(path, bytes);
      // A complete record with a bad checksum may have been acknowledged: not a torn write.
      await rejects(EmbeddedStore.open({ dir }), CorruptStoreError);

      bytes[bytes.length - 1]! ^= 0x01;
      await writeFile(path, bytes);
      await appendFile(path, Buffer.alloc(100)); // zeros, as a crashed file extension or preallocation leaves
      s = await openStore();
      assert.equal(s.stats().recovery.truncatedBytes, 0, 'zeros hold no record: written over, not cut');
      assert.equal(dec((await s.get('/t/4')).kv!.value), 'v4');
    });

    it('replays several segments, and refuses to open when one but the last is damaged', async () => {
      let s = await openStore();
      for (let i = 0; i < 30; i++) await s.create(`/t/${i}`, enc('y'.repeat(100)));
      const current = await s.currentRevision();
      await s.close();
      // Split the one segment in two at a frame boundary, as a rotation would have.
      const [seg] = await segments(dir);
      const bytes = await readFile(join(dir, seg!));
      let cut = 0;
      for (let i = 0; i < 10; i++) cut += 8 + bytes.readUInt32LE(cut);
      await writeFile(join(dir, seg!), bytes.subarray(0, cut));
      await writeFile(join(dir, 'wal-0000000000000002.log'), bytes.subarray(cut));
      s = await openStore();
      assert.equal(await s.currentRevision(), current, 'both segments replayed');
      assert.equal((await s.get('/t/29')).kv!.modRevision, current);
      await s.close();
      open.splice(0);

      const damaged = await readFile(join(dir, seg!));
      damaged[damaged.length - 1]! ^= 0xff;
      await writeFile(join(dir, seg!), damaged);
      await assert.rejects(EmbeddedStore.open({ dir }), CorruptStoreError);
    });
  });

  describe('lock', () => {
    it('lets only one store open a directory at a time', async () => {
      const s = await openStore();
      const err = await rejects(EmbeddedStore.open({ dir }), DirLockedError);
      assert.equal(err.ownerPid, process.pid);
      await s.close();
      const again = await openStore();
      assert.equal(await again.currentRevision(), 0);
    });

    it('takes over the lock of a dead process', async () => {
      const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
      const deadPid = Number(child.stdout.toString());
      assert.ok(deadPid > 0);
      await writeFile(join(dir, 'LOCK'), `${deadPid}\n`);
      const s = await openStore();
      assert.equal(Number(await readFile(join(dir, 'LOCK'), 'utf8')), process.pid);
      await s.close();
      await assert.rejects(stat(join(dir, 'LOCK')), 'close removes the lock');
    });
  });

  describe('compaction', () => {
    it('persists the compacted revision across restarts, with and without a snapshot', async () => {
      // No snapshot; a snapshot before the compaction record; snapshots after every group.
      for (const threshold of [64 << 20, 100, 1]) {
        await rm(dir, { recursive: true, force: true });
        let s = await openStore({ snapshotThresholdBytes: threshold });
        const a1 = await s.create('/c/a', enc('a1'));
        const b1 = await s.create('/c/b', enc('b1'));
        const a2 = await s.update('/c/a', enc('a2'), a1.modRevision);
        const delB = await s.delete('/c/b');
        await s.compact(delB.revision);
        const c1 = await s.create('/c/c', enc('c1'));
        await new Promise((r) => setTimeout(r, 50));
        if (threshold < 1000) assert.ok(s.stats().snapshotsWritten > 0, 'a snapshot was written');
        await s.close();

        s = await openStore({ snapshotThresholdBytes: threshold });
        assert.equal(await s.compactedRevision(), delB.revision, `threshold ${threshold}`);
        await rejects(s.get('/c/a', a1.modRevision), CompactedError);
        await rejects(s.range('/c/', { revision: b1.modRevision }), CompactedError);
        await rejects(s.get('/c/a', a2.modRevision), CompactedError);
        assert.deepEqual(await dump(s, '/c/', delB.revision), [['/c/a', 'a2', a2.modRevision, a1.modRevision]]);
        assert.deepEqual(await dump(s, '/c/'), [
          ['/c/a', 'a2', a2.modRevision, a1.modRevision],
          ['/c/c', 'c1', c1.modRevision, c1.modRevision],
        ]);
        await s.close();
        open.splice(0);
      }
    });

    it('drops the history of compacted revisions from memory', async () => {
      const s = await openStore();
      let kv = await s.create('/c/x', enc('0'));
      for (let i = 1; i <= 50; i++) kv = await s.update('/c/x', enc(String(i)), kv.modRevision);
      await s.create('/c/gone', enc('g'));
      await s.delete('/c/gone');
      assert.equal(s.stats().keys, 2);
      await s.compact(await s.currentRevision());
      await new Promise((r) => setTimeout(r, 20));
      assert.equal(s.stats().keys, 1, 'a key deleted at or before the compacted revision is gone');
      assert.equal(dec((await s.get('/c/x')).kv!.value), '50');
    });
  });

  describe('group commit', () => {
    it('makes many concurrent writes durable with far fewer fsyncs', async () => {
      const s = await openStore();
      const n = 2000;
      const results = await Promise.all(Array.from({ length: n }, (_, i) => s.create(`/g/${i}`, enc(String(i)))));
      assert.equal(new Set(results.map((r) => r.modRevision)).size, n);
      const { walFsyncs, groupCommits } = s.stats();
      assert.ok(walFsyncs >= 1 && walFsyncs <= n / 50, `${walFsyncs} fsyncs for ${n} writes`);
      assert.ok(groupCommits <= walFsyncs + 1);
    });

    it('shows nothing to readers or watchers before it is durable, while CAS sees pending writes', async () => {
      let release!: () => void;
      let held = false;
      const s = await openStore({
        faults: {
          beforeSync: () => {
            if (!held) return;
            return new Promise<void>((resolve) => (release = resolve));
          },
        },
      });
      const a = await s.create('/v/a', enc('a1'));
      const events: StoreEvent[] = [];
      const w = s.watch('/v/', a.modRevision, { onEvents: (e) => events.push(...e), onProgress() {}, onError() {} });
      held = true;
      const pending = s.create('/v/b', enc('b1'));
      await new Promise((r) => setTimeout(r, 30)); // the flush is now waiting in beforeSync
      assert.equal((await s.get('/v/b')).kv, null, 'not visible before fsync');
      assert.equal(await s.currentRevision(), a.modRevision);
      let dupSettled = false;
      const dup = s.create('/v/b', enc('again')).finally(() => (dupSettled = true));
      const upd = s.update('/v/b', enc('b2'), a.modRevision + 1); // CAS against the pending create
      await new Promise((r) => setTimeout(r, 10));
      assert.equal(dupSettled, false, 'a result decided by a pending write waits for it');
      assert.equal(events.length, 0, 'watchers see nothing yet');
      held = false;
      release();
      const b = await pending;
      await rejects(dup, AlreadyExistsError);
      const b2 = await upd;
      assert.equal(b2.modRevision, b.modRevision + 1);
      assert.equal(dec((await s.get('/v/b')).kv!.value), 'b2');
      assert.deepEqual(events.map((e) => e.revision), [b.modRevision, b2.modRevision]);
      w.close();
    });

    it('fails pending and later writes when the log cannot be synced', async () => {
      let fail = false;
      const s = await openStore({
        faults: {
          beforeSync: () => {
            if (fail) throw new Error('EIO (injected)');
          },
        },
      });
      const ok = await s.create('/f/ok', enc('ok'));
      let watchError = null as Error | null;
      s.watch('/f/', ok.modRevision, { onEvents() {}, onProgress() {}, onError: (e) => (watchError = e) });
      await new Promise((r) => setTimeout(r, 10));
      fail = true;
      const results = await Promise.allSettled([s.create('/f/x', enc('x')), s.create('/f/y', enc('y'))]);
      for (const r of results) {
        assert.equal(r.status, 'rejected');
        assert.ok(r.reason instanceof StorageUnavailableError);
      }
      await rejects(s.create('/f/z', enc('z')), StorageUnavailableError);
      assert.ok(watchError instanceof StorageUnavailableError);
      assert.equal((await s.get('/f/x')).kv, null, 'a failed write never became visible');
      assert.equal(await s.currentRevision(), ok.modRevision);
    });
  });

  describe('watch', () => {
    it('delivers concurrent writes in one batch per commit group', async () => {
      const s = await openStore();
      const start = await s.currentRevision();
      let batches = 0;
      const events: StoreEvent[] = [];
      s.watch('/b/', start, { onEvents: (e) => (batches++, events.push(...e)), onProgress() {}, onError() {} });
      await new Promise((r) => setImmediate(r));
      await Promise.all(Array.from({ length: 64 }, (_, i) => s.create(`/b/${i}`, enc(String(i)))));
      assert.equal(events.length, 64);
      assert.ok(batches <= s.stats().groupCommits, `${batches} batches, ${s.stats().groupCommits} groups`);
      assert.ok(batches < 8, `${batches} batches for 64 concurrent writes`);
      assert.deepEqual(
        events.map((e) => e.revision),
        [...events.map((e) => e.revision)].sort((x, y) => x - y),
      );
    });

    it('gives every live watcher the events under its prefix, however the prefix splits the key space', async () => {
      const s = await openStore();
      const start = await s.currentRevision();
      // Whole first segments, a deeper prefix, a partial first segment, everything, and a key with no segment.
      const prefixes = ['/b/', '/c/', '/b/x/', '/b', '/', '', 'k'];
      const seen = new Map<string, string[]>(prefixes.map((p) => [p, []]));
      const watches = prefixes.map((p) =>
        s.watch(p, start, { onEvents: (e) => seen.get(p)!.push(...e.map((x) => x.key)), onProgress() {}, onError() {} }),
      );
      await new Promise((r) => setImmediate(r));
      const keys = ['/b/1', '/c/1', '/b/x/1', '/bb/1', 'k1', '/b/2', '/cc', '/c/2'];
      await Promise.all(keys.map((k) => s.create(k, enc(k))));
      // One watch closed, then more writes: it hears nothing further, the others go on.
      watches[1]!.close();
      await Promise.all(['/c/3', '/b/3'].map((k) => s.create(k, enc(k))));
      // Writes take their revisions in the order they were issued, and each watcher hears them in that order.
      const all = [...keys, '/c/3', '/b/3'];
      for (const p of prefixes) {
        const expected = all.filter((k) => k.startsWith(p) && !(p === '/c/' && k === '/c/3'));
        assert.deepEqual(seen.get(p), expected, `prefix ${JSON.stringify(p)}`);
      }
    });

    it('replays history written before a restart and snapshot', async () => {
      let s = await openStore({ snapshotThresholdBytes: 2048 });
      const first = await s.create('/h/a', enc('a1'));
      let kv = first;
      const pad = '.'.repeat(100); // enough bytes to pass the snapshot threshold
      for (let i = 2; i <= 30; i++) kv = await s.update('/h/a', enc(`a${i}${pad}`), kv.modRevision);
      await new Promise((r) => setTimeout(r, 50));
      await s.close();
      s = await openStore({ snapshotThresholdBytes: 2048 });
      assert.ok(s.stats().recovery.snapshotRevision > first.modRevision);
      const events: StoreEvent[] = [];
      s.watch('/h/', first.modRevision, { onEvents: (e) => events.push(...e), onProgress() {}, onError() {} });
      for (let i = 0; i < 50 && events.length < 29; i++) await new Promise((r) => setTimeout(r, 10));
      assert.equal(events.length, 29);
      assert.equal(dec(events[0]!.prevValue), 'a1');
      assert.equal(dec(events.at(-1)!.value), `a30${'.'.repeat(100)}`);
      assert.deepEqual(
        events.map((e) => e.prevModRevision),
        events.map((e) => e.revision - 1),
      );
    });

    it('ends watches with StoreClosedError on close and refuses use afterwards', async () => {
      const s = await openStore();
      let err = null as Error | null;
      s.watch('/x/', 0, { onEvents() {}, onProgress() {}, onError: (e) => (err = e) });
      const pending = s.create('/x/a', enc('a'));
      await s.close();
      assert.equal((await pending).key, '/x/a', 'a write accepted before close completes');
      assert.ok(err instanceof StoreClosedError);
      await rejects(s.create('/x/b', enc('b')), StoreClosedError);
      await rejects(s.get('/x/a'), StoreClosedError);
    });
  });
});
