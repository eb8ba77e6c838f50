/**
 * Rebuilds the MVCC state of a store directory at open: the newest intact
 * snapshot, then every WAL record after it.
 *
 * Only the last segment may end in invalid bytes: that is a write that was in
 * flight when the process died (never acknowledged, since acknowledgement
 * follows the fsync), and it is cut off so new records follow valid ones.
 * Invalid bytes anywhere else, or a gap in the revisions, mean damage we
 * cannot repair without losing acknowledged writes, so open fails instead.
 */
import { open, unlink } from 'node:fs/promises';
import { FrameFileReader } from './frame-file.ts';
import { listStoreDir, pathIn, segmentName } from './files.ts';
import { MvccState } from './mvcc.ts';
import { readSnapshot } from './snapshot.ts';
import { REC_COMPACT, REC_DELETE, REC_PUT, type PayloadReader } from './records.ts';

export class CorruptStoreError extends Error {}

export interface RecoveryResult {
  readonly state: MvccState;
  /** The last segment, to continue writing at `size`; null when there is none. */
  readonly lastSegment: { readonly seq: number; readonly size: number } | null;
  readonly snapshotRevision: number;
  readonly recordsReplayed: number;
  /** Bytes cut off the end of the last segment. */
  readonly truncatedBytes: number;
  /** Things worth logging: skipped snapshots, truncation. */
  readonly notes: string[];
}

export async function recover(dir: string): Promise<RecoveryResult> {
  const listing = await listStoreDir(dir);
  const notes: string[] = [];
  for (const temp of listing.temps) await unlink(pathIn(dir, temp));

  let state: MvccState | null = null;
  let snapshotRevision = 0;
  for (const rev of listing.snapshots) {
    try {
      state = await readSnapshot(dir, rev);
      snapshotRevision = rev;
      break;
    } catch (err) {
      // An older snapshot still works if the WAL since it is there; the
      // revision continuity check below fails the open if it is not.
      notes.push(`skipped snapshot at revision ${rev}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  state ??= new MvccState();

  let recordsReplayed = 0;
  let truncatedBytes = 0;
  let lastSegment: RecoveryResult['lastSegment'] = null;
  for (let i = 0; i < listing.segments.length; i++) {
    const seq = listing.segments[i]!;
    const isLast = i === listing.segments.length - 1;
    const path = pathIn(dir, segmentName(seq));
    const reader = await FrameFileReader.open(path);
    let validEnd: number;
    try {
      for (;;) {
        const f = await reader.next();
        if (f.kind === 'frame') {
          try {
            if (applyRecord(state, snapshotRevision, f.type, f.payload)) recordsReplayed++;
          } catch (err) {
            const why = err instanceof Error ? err.message : String(err);
            throw new CorruptStoreError(`${segmentName(seq)} at offset ${f.offset}: ${why}`);
          }
          continue;
        }
        if (f.kind === 'bad' && !isLast) {
          throw new CorruptStoreError(`${segmentName(seq)} is damaged at offset ${f.offset} (${f.reason}) and is not the last segment`);
        }
        if (f.kind === 'bad') notes.push(`cut torn tail of ${segmentName(seq)} at offset ${f.offset}: ${f.reason}`);
        validEnd = f.offset;
        break;
      }
    } finally {
      await reader.close();
    }
    if (isLast) {
      const fh = await open(path, 'r+');
      try {
        const { size } = await fh.stat();
        if (size > validEnd) {
          await fh.truncate(validEnd);
          await fh.sync();
          truncatedBytes = size - validEnd;
        }
      } finally {
        await fh.close();
      }
      lastSegment = { seq, size: validEnd };
    }
  }

  state.prune(state.compactedRevision, Number.POSITIVE_INFINITY);
  return { state, lastSegment, snapshotRevision, recordsReplayed, truncatedBytes, notes };
}

/** Apply one WAL record; returns false for a record the snapshot already covers. */
function applyRecord(state: MvccState, snapshotRevision: number, type: number, p: PayloadReader): boolean {
  switch (type) {
    case REC_PUT:
    case REC_DELETE: {
      const rev = p.u64();
      if (rev <= snapshotRevision) return false;
      if (rev !== state.headRevision + 1) {
        throw new Error(`revision ${rev} does not follow ${state.headRevision}: log records are missing`);
      }
      const createRevision = p.u64();
      const key = p.str();
      if (type === REC_PUT) state.applyPut(rev, key, p.rest(), createRevision);
      else state.applyDelete(rev, key, createRevision);
      return true;
    }
    case REC_COMPACT: {
      const rev = p.u64();
      if (rev > state.headRevision) throw new Error(`compaction at ${rev} beyond revision ${state.headRevision}`);
      if (rev > state.compactedRevision) state.compactedRevision = rev;
      return true;
    }
    default:
      throw new Error(`unknown record type ${type}`);
  }
}
