/**
 * Recovery of a damaged embedded store: only a torn write at the very end of
 * the newest WAL segment is cut by itself (and logged); any other damage stops
 * the open with the file and offset, until an operator asks for a repair,
 * which cuts at the damage, says what was dropped and never hands out a
 * revision again. Zeros after the newest segment's records (its preallocated
 * space, or a crashed extension) are written over, not cut. Also: a corrupt snapshot is named, and the store's files
 * are private (0700 directory, 0600 files).
 */
import { describe, it, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, truncate, unlink, writeFile, appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CorruptStoreError, EmbeddedStore, type EmbeddedStoreOptions } from '../../src/storage/embedded/index.ts';
import { recover } from '../../src/storage/embedded/recovery.ts';
import { WalWriter } from '../../src/storage/embedded/wal.ts';
import { writeSnapshot } from '../../src/storage/embedded/snapshot.ts';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const dec = (b: Uint8Array | null | undefined): string | null => (b == null ? null : new TextDecoder().decode(b));

const segments = async (dir: string): Promise<string[]> => (await readdir(dir)).filter((n) => /^wal-[0-9a-f]{16}\.log$/.test(n)).sort();

/** Start offsets of the frames of a segment. */
function frameOffsets(bytes: Buffer): number[] {
  const out: number[] = [];
  for (let off = 0; off < bytes.length; off += 8 + bytes.readUInt32LE(off)) out.push(off);
  return out;
}

async function rejectsCorrupt(p: Promise<unknown>): Promise<CorruptStoreError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof CorruptStoreError, `expected CorruptStoreError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected the open to fail, but it succeeded');
}

describe('embedded store recovery from damage', () => {
  let dir: string;
  const opened: EmbeddedStore[] = [];
  const openStore = async (options: Partial<EmbeddedStoreOptions> = {}): Promise<EmbeddedStore> => {
    const s = await EmbeddedStore.open({ dir, ...options });
    opened.push(s);
    return s;
  };

  /** 20 writes, one segment; returns the segment's path and the last revision. */
  async function populate(count = 20): Promise<{ path: string; revision: number }> {
    const s = await EmbeddedStore.open({ dir });
    for (let i = 0; i < count; i++) await s.create(`/d/${i}`, enc(`value ${i} `.repeat(4)));
    const revision = await s.currentRevision();
    await s.close();
    const [seg] = await segments(dir);
    return { path: join(dir, seg!), revision };
  }

  async function flip(path: string, offset: number, mask = 0x10): Promise<void> {
    const bytes = await readFile(path);
    bytes[offset]! ^= mask;
    await writeFile(path, bytes);
  }

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'orch-recovery-'));
  });
  afterEach(async () => {
    for (const s of opened.splice(0)) await s.close();
    await rm(dir, { recursive: true, force: true });
  });

  describe('refuses to start on damage that is not a torn write', () => {
    const cases: Array<[string, (offsets: number[], bytes: Buffer) => number]> = [
      ['the first record (payload)', (o) => o[0]! + 20],
      ['a middle record (payload)', (o) => o[10]! + 30],
      ['a middle record (checksum field)', (o) => o[10]! + 5],
      ['a middle record (length field, pointing past the end)', (o) => o[10]! + 3],
      ['the record before the last', (o) => o.at(-2)! + 25],
      ['the last complete record (payload)', (o, b) => o.at(-1)! + Math.floor((b.length - o.at(-1)!) / 2)],
      ['the last complete record (checksum field)', (o) => o.at(-1)! + 4],
      ['the last complete record (type byte)', (o) => o.at(-1)! + 8],
    ];
    for (const [what, where] of cases) {
      it(`a flipped byte in ${what}`, async () => {
        const { path, revision } = await populate();
        const bytes = await readFile(path);
        const offsets = frameOffsets(bytes);
        const at = where(offsets, bytes);
        const damagedFrame = offsets.filter((o) => o <= at).at(-1)!;
        await flip(path, at, what.includes('length') ? 0x80 : 0x10);
        const err = await rejectsCorrupt(EmbeddedStore.open({ dir }));
        const seg = (await segments(dir))[0]!;
        assert.match(err.message, new RegExp(seg.replace('.', '\\.')), 'names the file');
        assert.match(err.message, new RegExp(`offset ${damagedFrame}\\b`), `names the offset: ${err.message}`);
        assert.match(err.message, /--embedded-wal-repair/, 'says how to recover');
        assert.equal((await stat(path)).size, bytes.length, 'nothing was cut');
        // The data is still all there: undo the flip and everything is back.
        await flip(path, at, what.includes('length') ? 0x80 : 0x10);
        const s = await openStore();
        assert.equal(await s.currentRevision(), revision);
      });
    }

    it('damage in a segment that is not the newest, even at its end', async () => {
      const { path } = await populate(30);
      const bytes = await readFile(path);
      const offsets = frameOffsets(bytes);
      await writeFile(path, bytes.subarray(0, offsets[10]!));
      await writeFile(join(dir, 'wal-0000000000000002.log'), bytes.subarray(offsets[10]!));
      await truncate(path, offsets[10]! - 3);
      const err = await rejectsCorrupt(EmbeddedStore.open({ dir }));
      assert.match(err.message, /wal-0000000000000001\.log/);
      assert.match(err.message, new RegExp(`offset ${offsets[9]}\\b`));
    });
  });

  describe('cuts a torn write at the end of the newest segment, and logs it', () => {
    it('at every position inside the last record', async () => {
      const { path, revision } = await populate(6);
      const bytes = await readFile(path);
      const last = frameOffsets(bytes).at(-1)!;
      for (let cut = last + 1; cut < bytes.length; cut++) {
        await writeFile(path, bytes.subarray(0, cut));
        const s = await EmbeddedStore.open({ dir });
        try {
          assert.equal(await s.currentRevision(), revision - 1, `cut at ${cut}`);
          const rec = s.stats().recovery;
          assert.equal(rec.truncatedBytes, cut - last);
          const note = rec.notes.find((n) => n.details['file'] !== undefined);
          assert.ok(note, `a note for the cut at ${cut}: ${JSON.stringify(rec.notes)}`);
          assert.equal(note.details['file'], path);
          assert.equal(note.details['offset'], last);
          assert.equal(note.details['bytesCut'], cut - last);
          assert.equal(note.details['lastRevisionKept'], revision - 1);
        } finally {
          await s.close();
        }
        assert.equal((await stat(path)).size, last);
      }
    });

    it('a last record whose newest sector never reached the disk', async () => {
      const s0 = await EmbeddedStore.open({ dir });
      for (let i = 0; i < 3; i++) await s0.create(`/d/${i}`, enc('x'.repeat(100)));
      const revision = await s0.currentRevision();
      await s0.create('/d/big', enc('y'.repeat(3000)));
      await s0.close();
      const path = join(dir, (await segments(dir))[0]!);
      const bytes = await readFile(path);
      const last = frameOffsets(bytes).at(-1)!;
      // Zero every byte of the last record from the first sector boundary inside it.
      const boundary = Math.ceil((last + 9) / 512) * 512;
      bytes.fill(0, boundary);
      await writeFile(path, bytes);
      const s = await openStore();
      assert.equal(await s.currentRevision(), revision);
      assert.equal(s.stats().recovery.truncatedBytes, bytes.length - last);
    });
  });

  describe('preallocated segments', () => {
    /** Frames from the start of `bytes` up to the first zero length: where the records end. */
    const recordsEnd = (bytes: Buffer): number => {
      let off = 0;
      while (off + 8 <= bytes.length && bytes.readUInt32LE(off) !== 0) off += 8 + bytes.readUInt32LE(off);
      return off;
    };

    it('holds zeros after the records while open, and is cut to its records at a clean close', async () => {
      const s = await openStore();
      for (let i = 0; i < 20; i++) await s.create(`/p/${i}`, enc(`value ${i}`));
      const records = s.stats().currentSegmentBytes;
      const path = join(dir, (await segments(dir))[0]!);
      const open = await readFile(path);
      assert.ok(open.length >= records + 32 * 1024, `zeros preallocated after ${records} bytes of records: ${open.length}`);
      assert.equal(recordsEnd(open), records);
      assert.ok(open.subarray(records).every((b) => b === 0), 'only zeros after the records');
      await s.close();
      opened.splice(0);
      assert.equal((await stat(path)).size, records, 'a clean close leaves the records alone');
    });

    it('a rotation cuts the old segment to its records before the new one exists', async () => {
      const wal = await WalWriter.create(dir, 1);
      try {
        for (let i = 1; i <= 5; i++) wal.appendPut(i, i, `/r/${i}`, enc('v'.repeat(100)));
        await wal.flush();
        const records = wal.segmentBytes;
        const first = join(dir, (await segments(dir))[0]!);
        assert.ok((await stat(first)).size > records, 'preallocated while it is the newest');
        assert.equal(await wal.rotate(), 1);
        assert.equal((await stat(first)).size, records, 'an older segment never ends in zeros');
        wal.appendPut(6, 6, '/r/6', enc('v'));
        await wal.flush();
        const names = await segments(dir);
        assert.equal(names.length, 2);
        assert.ok((await stat(join(dir, names[1]!))).size > wal.segmentBytes, 'the new segment is preallocated in turn');
      } finally {
        await wal.close();
      }
      const rec = await recover(dir);
      assert.equal(rec.state.headRevision, 6);
      assert.equal(rec.truncatedBytes, 0);
    });

    it('a crash leaves the zeros: the next start keeps every record, logs it, and writes over them', async () => {
      const s = await openStore();
      for (let i = 0; i < 10; i++) await s.create(`/p/${i}`, enc(`value ${i}`));
      const revision = await s.currentRevision();
      const records = s.stats().currentSegmentBytes;
      const name = (await segments(dir))[0]!;
      // The directory as a kill -9 or a power cut leaves it: the store never closed.
      const crashed = await mkdtemp(join(tmpdir(), 'orch-recovery-crashed-'));
      try {
        const bytes = await readFile(join(dir, name));
        await writeFile(join(crashed, name), bytes, { mode: 0o600 });
        const after = await EmbeddedStore.open({ dir: crashed });
        try {
          assert.equal(await after.currentRevision(), revision);
          const rec = after.stats().recovery;
          assert.equal(rec.truncatedBytes, 0, 'zeros hold no record: nothing is cut');
          const note = rec.notes.find((n) => n.details['zeroBytes'] !== undefined);
          assert.ok(note, JSON.stringify(rec.notes));
          assert.equal(note.level, 'info');
          assert.equal(note.details['offset'], records);
          assert.equal(note.details['zeroBytes'], bytes.length - records);
          assert.equal((await after.create('/p/next', enc('next'))).modRevision, revision + 1);
        } finally {
          await after.close();
        }
        const again = await EmbeddedStore.open({ dir: crashed });
        try {
          assert.equal(await again.currentRevision(), revision + 1);
          assert.equal(dec((await again.get('/p/next')).kv?.value), 'next');
          assert.equal(dec((await again.get('/p/9')).kv?.value), 'value 9');
          assert.equal(again.stats().recovery.notes.length, 0, 'a clean close left nothing to say');
        } finally {
          await again.close();
        }
      } finally {
        await rm(crashed, { recursive: true, force: true });
      }
    });

    it('a torn last record whose lost sector holds only a few of its bytes is cut, not refused', async () => {
      // A record that ends 20 bytes into a sector; that sector never reached the disk (zeros), and the
      // preallocated zeros follow. 20 zero bytes alone are no evidence (a value may hold them), a whole zero
      // sector is.
      const { revision } = await populate(3);
      const path = join(dir, (await segments(dir))[0]!);
      const start = (await stat(path)).size;
      const key = '/d/last';
      const header = 8 + 1 + 8 + 8 + 4 + key.length;
      const end = (Math.floor((start + header + 200) / 512) + 1) * 512 + 20;
      const s = await EmbeddedStore.open({ dir });
      await s.create(key, enc('z'.repeat(end - start - header)));
      await s.close();
      const bytes = await readFile(path);
      assert.equal(bytes.length, end, 'the record ends where the test wants it');
      bytes.fill(0, end - 20);
      await writeFile(path, Buffer.concat([bytes, Buffer.alloc(4096)]));
      const after = await openStore();
      assert.equal(await after.currentRevision(), revision, 'the torn record is cut');
      assert.equal(after.stats().recovery.truncatedBytes, end + 4096 - start);
      assert.equal((await after.get(key)).kv, null);
    });
  });

  describe('--embedded-wal-repair', () => {
    it('cuts at the damage, says what it dropped, keeps a copy, and never reuses a revision', async () => {
      const { path, revision } = await populate(20);
      const bytes = await readFile(path);
      const offsets = frameOffsets(bytes);
      await flip(path, offsets[12]! + 30);
      const damaged = await readFile(path);
      const s = await openStore({ repair: true });
      assert.equal((await s.get('/d/11')).kv !== null, true);
      assert.equal((await s.get('/d/12')).kv, null);
      const note = s.stats().recovery.notes.find((n) => n.level === 'error');
      assert.ok(note, JSON.stringify(s.stats().recovery.notes));
      assert.equal(note.details['file'], path);
      assert.equal(note.details['offset'], offsets[12]);
      assert.equal(note.details['lastRevisionKept'], 12);
      assert.equal(note.details['intactRecordsDropped'], 7, 'records 14..20 were still readable');
      assert.equal(note.details['bytesDropped'], bytes.length - offsets[12]!);
      assert.ok(Number(note.details['nextRevision']) > revision, `next revision ${note.details['nextRevision']} > ${revision}`);
      const saved = (await readdir(dir)).filter((n) => n.includes('.broken'));
      assert.equal(saved.length, 1, `the cut bytes are kept aside: ${saved}`);
      assert.deepEqual(await readFile(join(dir, saved[0]!)), damaged.subarray(offsets[12]!));
      assert.equal((await stat(path)).size, offsets[12]);
      const next = await s.create('/d/after-repair', enc('new'));
      assert.ok(next.modRevision > revision, `revision ${next.modRevision} was never handed out before (max ${revision})`);
      await s.close();
      opened.splice(0);

      // A plain start afterwards is clean and keeps the new write and the revision floor.
      const again = await openStore();
      assert.equal(dec((await again.get('/d/after-repair')).kv?.value), 'new');
      assert.equal(await again.currentRevision(), next.modRevision);
      assert.equal(again.stats().recovery.truncatedBytes, 0);
    });

    it('sets aside later segments when an older one is damaged', async () => {
      const { path, revision } = await populate(30);
      const bytes = await readFile(path);
      const offsets = frameOffsets(bytes);
      await writeFile(path, bytes.subarray(0, offsets[10]!));
      const second = join(dir, 'wal-0000000000000002.log');
      await writeFile(second, bytes.subarray(offsets[10]!));
      await flip(path, offsets[5]! + 30);
      const s = await openStore({ repair: true });
      assert.equal(await s.currentRevision() >= revision, true, 'the revision floor covers the dropped segment');
      assert.equal((await s.get('/d/4')).kv !== null, true);
      assert.equal((await s.get('/d/5')).kv, null);
      assert.equal((await segments(dir)).includes('wal-0000000000000002.log'), false);
      const note = s.stats().recovery.notes.find((n) => n.level === 'error')!;
      assert.equal(note.details['intactRecordsDropped'], 24);
      const next = await s.create('/d/x', enc('x'));
      assert.ok(next.modRevision > revision);
    });
  });

  describe('snapshots', () => {
    /** A store with a snapshot at its head revision and its whole WAL still present. */
    async function withSnapshot(): Promise<{ snap: string; revision: number }> {
      const { revision } = await populate(20);
      const rec = await recover(dir);
      assert.ok(((await writeSnapshot(dir, rec.state, revision, 0, () => false)) ?? 0) > 0);
      const snap = (await readdir(dir)).find((n) => n.endsWith('.snap'))!;
      return { snap, revision };
    }

    it('falls back to the WAL when it still holds everything, and names the bad snapshot', async () => {
      const { snap, revision } = await withSnapshot();
      await flip(join(dir, snap), 60);
      const s = await openStore();
      assert.equal(await s.currentRevision(), revision);
      assert.equal(dec((await s.get('/d/19')).kv?.value), 'value 19 '.repeat(4));
      const note = s.stats().recovery.notes.find((n) => n.details['file'] === join(dir, snap));
      assert.ok(note, JSON.stringify(s.stats().recovery.notes));
    });

    it('refuses when falling back would lose what the snapshot holds', async () => {
      const { snap } = await withSnapshot();
      for (const seg of await segments(dir)) await unlink(join(dir, seg));
      await flip(join(dir, snap), 60);
      const err = await rejectsCorrupt(EmbeddedStore.open({ dir }));
      assert.match(err.message, new RegExp(snap.replace('.', '\\.')));
      assert.match(err.message, /at offset \d+/, 'says where in the snapshot');
    });

    it('with repair, continues from what is left above every revision the snapshot held', async () => {
      const { snap, revision } = await withSnapshot();
      for (const seg of await segments(dir)) await unlink(join(dir, seg));
      await flip(join(dir, snap), 60);
      const s = await openStore({ repair: true });
      const note = s.stats().recovery.notes.find((n) => n.level === 'error');
      assert.ok(note, JSON.stringify(s.stats().recovery.notes));
      assert.equal(note.details['file'], join(dir, snap));
      assert.equal(note.details['nextRevision'], revision + 1);
      const next = await s.create('/d/after', enc('a'));
      assert.ok(next.modRevision > revision);
      await s.close();
      opened.splice(0);
      const again = await openStore();
      assert.equal(await again.currentRevision(), next.modRevision);
      assert.equal(again.stats().recovery.notes.filter((n) => n.level !== 'info').length, 0, 'the next start is clean');
    });
  });

  describe('file modes', () => {
    it('makes the store directory 0700 and its files 0600, also ones that existed', async () => {
      await mkdir(dir, { recursive: true });
      await chmod(dir, 0o755);
      await populate(5);
      const seg = join(dir, (await segments(dir))[0]!);
      await chmod(seg, 0o644);
      await chmod(dir, 0o755);
      const s = await openStore();
      await s.create('/d/more', enc('m'));
      assert.equal((await stat(dir)).mode & 0o777, 0o700);
      for (const name of await readdir(dir)) {
        assert.equal((await stat(join(dir, name))).mode & 0o777, 0o600, name);
      }
    });

    it('writes snapshots 0600', async () => {
      const s = await openStore({ snapshotThresholdBytes: 2048 });
      for (let i = 0; i < 60; i++) await s.create(`/m/${i}`, enc('z'.repeat(100)));
      for (let i = 0; i < 100 && s.stats().snapshotsWritten < 1; i++) await new Promise((r) => setTimeout(r, 10));
      const snaps = (await readdir(dir)).filter((n) => n.endsWith('.snap'));
      assert.ok(snaps.length > 0);
      for (const name of await readdir(dir)) assert.equal((await stat(join(dir, name))).mode & 0o777, 0o600, name);
    });
  });
});

describe('embedded store recovery: what is not taken for a record', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'orch-recovery-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('a torn record whose value holds a copy of the log is still a torn write', async () => {
    const s = await EmbeddedStore.open({ dir });
    for (let i = 0; i < 10; i++) await s.create(`/c/${i}`, enc(`v${i}`));
    const path = join(dir, (await segments(dir))[0]!);
    // A backup of the log stored as a value: its frames are intact, but old.
    await s.create('/c/backup', await readFile(path));
    const revision = await s.currentRevision();
    await s.close();
    const bytes = await readFile(path);
    const last = frameOffsets(bytes).at(-1)!;
    await truncate(path, bytes.length - 5);
    const again = await EmbeddedStore.open({ dir });
    try {
      assert.equal(await again.currentRevision(), revision - 1);
      assert.equal(again.stats().recovery.truncatedBytes, bytes.length - 5 - last);
    } finally {
      await again.close();
    }
  });

  it('tells an operator who left the repair flag on to remove it', async () => {
    const s = await EmbeddedStore.open({ dir, repair: true });
    try {
      assert.ok(s.stats().recovery.notes.some((n) => n.level === 'warn' && n.msg.includes('--embedded-wal-repair')));
    } finally {
      await s.close();
    }
  });
});

describe('embedded store recovery: every single flipped byte', () => {
  it('refuses the open and cuts nothing, wherever in the log the byte is', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'orch-recovery-'));
    try {
      const s = await EmbeddedStore.open({ dir });
      for (let i = 0; i < 8; i++) await s.create(`/f/${i}`, enc(`value-${i}`));
      await s.compact(4);
      await s.delete('/f/0');
      await s.close();
      const path = join(dir, (await segments(dir))[0]!);
      const bytes = await readFile(path);
      const accepted: number[] = [];
      for (let at = 0; at < bytes.length; at++) {
        for (const mask of [0x01, 0x80]) {
          const damaged = Buffer.from(bytes);
          damaged[at]! ^= mask;
          await writeFile(path, damaged);
          const outcome = await recover(dir).then(
            () => 'opened',
            (err: unknown) => (err instanceof CorruptStoreError ? 'refused' : String(err)),
          );
          if (outcome !== 'refused') accepted.push(at);
          assert.equal((await stat(path)).size, bytes.length, `nothing cut for a flip at ${at}`);
        }
      }
      assert.deepEqual(accepted, [], `flips at these offsets were not refused (of ${bytes.length} bytes)`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
  it('takes every prefix of a log for what a crash can leave: opens with exactly the complete records', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'orch-recovery-'));
    try {
      const s = await EmbeddedStore.open({ dir });
      await Promise.all(Array.from({ length: 6 }, (_, i) => s.create(`/p/${i}`, enc(`value-${i}`))));
      await s.compact(3);
      await s.update('/p/1', enc('again'), 2);
      await s.close();
      const path = join(dir, (await segments(dir))[0]!);
      const bytes = await readFile(path);
      const offsets = frameOffsets(bytes);
      for (let end = 0; end <= bytes.length; end++) {
        await writeFile(path, bytes.subarray(0, end));
        const rec = await recover(dir);
        const complete = offsets.filter((o) => o + 8 + bytes.readUInt32LE(o) <= end).length;
        const kept = offsets[complete] ?? bytes.length;
        assert.equal((await stat(path)).size, kept, `prefix of ${end} bytes is cut to the complete records`);
        assert.equal(rec.truncatedBytes, end - kept);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
