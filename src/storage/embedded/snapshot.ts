/**
 * Snapshots of the MVCC state, so that recovery need not replay the whole WAL
 * and old WAL segments can be deleted.
 *
 * A snapshot "as of revision S" holds, for every key, its versions with
 * revisions <= S reduced for the compacted revision C (the newest version at
 * or below C, unless a tombstone, and everything after it), so that reads at
 * any revision in [C, S] and watches from C on are served exactly as before.
 *
 * File format: frames (see records.ts) of
 *   HEADER  magic u32, format u32, revision u64, compacted u64
 *   KEY     key str, count u32, then per version:
 *             modRevision u64, createRevision u64, flags u8 (1: tombstone), length u32, value
 *   END     keys u64, versions u64
 * A snapshot is only ever read if it has an END frame that matches what came
 * before it; it is written to a temp name, synced, renamed and the directory
 * synced, so a crash leaves either the whole file or none.
 */
import { open, rename, unlink } from 'node:fs/promises';
import { FrameBuffer, maxUtf8Bytes, REC_SNAP_END, REC_SNAP_HEADER, REC_SNAP_KEY } from './records.ts';
import { FrameFileReader } from './frame-file.ts';
import { fsyncDir, pathIn, PRIVATE_FILE_MODE, snapshotName, snapshotTempName } from './files.ts';
import { MvccState, type Version } from './mvcc.ts';

const MAGIC = 0x504e534f; // "OSNP"
const FORMAT = 1;
const FLAG_TOMBSTONE = 1;
const KEYS_PER_CHUNK = 2000;
const WRITE_THRESHOLD_BYTES = 4 << 20;

export class InvalidSnapshotError extends Error {}

/**
 * Write the snapshot of `state` as of `revision`. Runs in chunks, yielding to
 * the event loop so writes continue meanwhile; they only add versions above
 * `revision`, which are skipped. The caller keeps compaction from pruning
 * below `revision` until this finishes. Returns the file's size in bytes, or
 * null if `aborted()` turned true before the snapshot was complete (the temp
 * file is removed).
 */
export async function writeSnapshot(
  dir: string,
  state: MvccState,
  revision: number,
  compactedRevision: number,
  aborted: () => boolean,
): Promise<number | null> {
  const tempPath = pathIn(dir, snapshotTempName(revision));
  const fh = await open(tempPath, 'w', PRIVATE_FILE_MODE);
  let done = false;
  try {
    const out = new FrameBuffer(WRITE_THRESHOLD_BYTES * 2);
    let position = 0;
    const write = async (): Promise<void> => {
      let written = 0;
      while (written < out.length) {
        written += (await fh.write(out.buf, written, out.length - written, position + written)).bytesWritten;
      }
      position += written;
      out.reset();
    };

    let start = out.begin(1 + 4 + 4 + 8 + 8);
    out.u8(REC_SNAP_HEADER);
    out.u32(MAGIC);
    out.u32(FORMAT);
    out.u64(revision);
    out.u64(compactedRevision);
    out.end(start);

    let keys = 0;
    let versionsWritten = 0;
    let afterKey: string | undefined;
    for (;;) {
      if (aborted()) return null;
      const chunk = state.snapshotChunk(afterKey, KEYS_PER_CHUNK, revision, compactedRevision);
      for (const [key, versions] of chunk.items) {
        let size = 1 + 4 + maxUtf8Bytes(key) + 4;
        for (const v of versions) size += 8 + 8 + 1 + 4 + (v.value === null ? 0 : v.value.length);
        start = out.begin(size);
        out.u8(REC_SNAP_KEY);
        out.str(key);
        out.u32(versions.length);
        for (const v of versions) {
          out.u64(v.modRevision);
          out.u64(v.createRevision);
          out.u8(v.value === null ? FLAG_TOMBSTONE : 0);
          out.u32(v.value === null ? 0 : v.value.length);
          if (v.value !== null) out.bytes(v.value);
        }
        out.end(start);
        keys++;
        versionsWritten += versions.length;
      }
      if (chunk.lastKey === undefined) break;
      afterKey = chunk.lastKey;
      if (out.length >= WRITE_THRESHOLD_BYTES) await write();
      else await new Promise((resolve) => setImmediate(resolve));
    }

    start = out.begin(1 + 8 + 8);
    out.u8(REC_SNAP_END);
    out.u64(keys);
    out.u64(versionsWritten);
    out.end(start);
    await write();
    await fh.sync();
    await fh.close();
    done = true;
    await rename(tempPath, pathIn(dir, snapshotName(revision)));
    await fsyncDir(dir);
    return position;
  } finally {
    if (!done) {
      await fh.close().catch(() => undefined);
      await unlink(tempPath).catch(() => undefined);
    }
  }
}

/** Load a snapshot file into a fresh MVCC state. Throws InvalidSnapshotError if it is not complete and intact. */
export async function readSnapshot(dir: string, revision: number): Promise<MvccState> {
  const reader = await FrameFileReader.open(pathIn(dir, snapshotName(revision)));
  const bad = (why: string): InvalidSnapshotError =>
    new InvalidSnapshotError(`snapshot ${snapshotName(revision)} is invalid: ${why}`);
  try {
    const first = await reader.next();
    if (first.kind === 'bad') throw bad(`${first.reason} at offset ${first.offset}`);
    if (first.kind !== 'frame' || first.type !== REC_SNAP_HEADER) throw bad('missing header');
    const h = first.payload;
    if (h.u32() !== MAGIC) throw bad('bad magic');
    const format = h.u32();
    if (format !== FORMAT) throw bad(`unsupported format ${format}`);
    const headerRevision = h.u64();
    const compacted = h.u64();
    if (headerRevision !== revision || compacted > revision) throw bad('header does not match file name');

    const loader = MvccState.loader(revision, compacted);
    let keys = 0;
    let versionCount = 0;
    for (;;) {
      const f = await reader.next();
      if (f.kind !== 'frame') throw bad(f.kind === 'eof' ? 'missing end record' : `${f.reason} at offset ${f.offset}`);
      const p = f.payload;
      if (f.type === REC_SNAP_END) {
        if (p.u64() !== keys || p.u64() !== versionCount) throw bad('end record does not match contents');
        if ((await reader.next()).kind !== 'eof') throw bad('data after end record');
        return loader.finish();
      }
      if (f.type !== REC_SNAP_KEY) throw bad(`unexpected record type ${f.type}`);
      const key = p.str();
      const n = p.u32();
      const versions: Version[] = [];
      let last = 0;
      for (let i = 0; i < n; i++) {
        const modRevision = p.u64();
        const createRevision = p.u64();
        const flags = p.u8();
        const length = p.u32();
        if (modRevision <= last || modRevision > revision) throw bad(`key ${key}: revisions out of order`);
        last = modRevision;
        versions.push(
          flags & FLAG_TOMBSTONE
            ? { key, value: null, createRevision, modRevision }
            : { key, value: p.bytes(length), createRevision, modRevision },
        );
      }
      if (n === 0) throw bad(`key ${key} without versions`);
      loader.add(key, versions);
      keys++;
      versionCount += n;
    }
  } catch (err) {
    if (err instanceof InvalidSnapshotError) throw err;
    throw bad(err instanceof Error ? err.message : String(err));
  } finally {
    await reader.close();
  }
}
