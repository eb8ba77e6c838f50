/**
 * Rebuilds the MVCC state of a store directory at open: the newest intact
 * snapshot, then every WAL record after it.
 *
 * Zeros after the newest segment's last record are preallocated space (wal.ts), or a file extension whose
 * data never reached the disk: no record is in them, so they are written over, not cut.
 * Only a torn write at the end of the newest segment is cut by itself: it was
 * in flight when the process died, so never acknowledged (acknowledgement
 * follows the fsync), and its revision was never visible. damage.ts tells it
 * from corruption. Any other damage (a bad record followed by intact ones,
 * a bad checksum in a complete record, damage in an older segment, a gap in
 * the revisions, a corrupt snapshot the WAL cannot make up for) may hide
 * acknowledged writes, so the open fails with the file, the offset and what
 * is wrong, as etcd does.
 *
 * With `repair` (the operator's --embedded-wal-repair), the log is cut at the
 * first damage instead: the cut bytes and any later segments are kept aside
 * as `.broken` files, and the revision jumps past every revision the dropped
 * bytes can have held, so none is ever handed out twice. Every cut is
 * reported in `notes`, for the server log.
 */
import { open, rename, unlink } from 'node:fs/promises';
import { basename } from 'node:path';
import { FrameFileReader } from './frame-file.ts';
import { brokenName, fsyncDir, listStoreDir, pathIn, PRIVATE_FILE_MODE, readFrom, segmentName, snapshotName } from './files.ts';
import { findIntactRecords, isAllZero, judgeDamage, MIN_REVISION_RECORD_BYTES } from './damage.ts';
import { MvccState } from './mvcc.ts';
import { readSnapshot, writeSnapshot } from './snapshot.ts';
import { REC_COMPACT, REC_DELETE, REC_PUT, type PayloadReader } from './records.ts';

export class CorruptStoreError extends Error {}

/** The flag that lets an operator cut a damaged log (see src/server/options.ts). */
export const REPAIR_FLAG = '--embedded-wal-repair';

export interface RecoveryOptions {
  /** Cut the log at the first damage instead of refusing to open. */
  readonly repair?: boolean;
}

/** Something recovery did that belongs in the server log. Plain data, so it can cross threads. */
export interface RecoveryNote {
  readonly level: 'info' | 'warn' | 'error';
  readonly msg: string;
  readonly details: Readonly<Record<string, string | number>>;
}

export interface RecoveryResult {
  readonly state: MvccState;
  /** The last segment, to continue writing at `size`; null when there is none. */
  readonly lastSegment: { readonly seq: number; readonly size: number } | null;
  readonly snapshotRevision: number;
  readonly recordsReplayed: number;
  /** Bytes cut off the end of the log (a torn write, or a repair). */
  readonly truncatedBytes: number;
  /** Skipped snapshots, cuts, repairs: everything worth logging. */
  readonly notes: RecoveryNote[];
}

interface SkippedSnapshot {
  readonly revision: number;
  readonly path: string;
  readonly reason: string;
}

/** Where replay stopped on damage it must not cut by itself. */
interface Damage {
  readonly segmentIndex: number;
  readonly offset: number;
  /** What is wrong at `offset`. */
  readonly what: string;
  /** Why it is not a torn write. */
  readonly why: string;
  /** The frame at `offset` is intact (a revision gap, an unknown record): count it among what a cut drops. */
  readonly intactFrame: boolean;
}

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export async function recover(dir: string, options: RecoveryOptions = {}): Promise<RecoveryResult> {
  const listing = await listStoreDir(dir);
  const notes: RecoveryNote[] = [];
  for (const temp of listing.temps) await unlink(pathIn(dir, temp));

  let state: MvccState | null = null;
  let snapshotRevision = 0;
  const skipped: SkippedSnapshot[] = [];
  for (const rev of listing.snapshots) {
    try {
      state = await readSnapshot(dir, rev);
      snapshotRevision = rev;
      break;
    } catch (err) {
      // An older snapshot still works if the WAL since it is there; the
      // checks below refuse the open if it is not.
      const path = pathIn(dir, snapshotName(rev));
      skipped.push({ revision: rev, path, reason: message(err) });
      notes.push({ level: 'warn', msg: 'embedded store: skipped an invalid snapshot', details: { file: path, revision: rev, reason: message(err) } });
    }
  }
  state ??= new MvccState();
  const skippedSuffix =
    skipped.length === 0
      ? ''
      : ` (newer snapshot(s) were skipped as invalid: ${skipped.map((s) => `${s.path}: ${s.reason}`).join('; ')})`;

  let recordsReplayed = 0;
  let truncatedBytes = 0;
  let lastSegment: RecoveryResult['lastSegment'] = null;
  let damage: Damage | null = null;
  const segments = listing.segments;
  for (let i = 0; i < segments.length && damage === null; i++) {
    const seq = segments[i]!;
    const newest = i === segments.length - 1;
    const path = pathIn(dir, segmentName(seq));
    const reader = await FrameFileReader.open(path);
    let validEnd = 0;
    try {
      for (;;) {
        const f = await reader.next();
        if (f.kind === 'frame') {
          try {
            if (applyRecord(state, snapshotRevision, f.type, f.payload)) recordsReplayed++;
          } catch (err) {
            damage = { segmentIndex: i, offset: f.offset, what: message(err), why: 'an intact record that cannot be applied', intactFrame: true };
            break;
          }
          continue;
        }
        validEnd = f.offset;
        if (f.kind === 'eof') break;
        const tail = await readFrom(path, f.offset);
        if (newest && isAllZero(tail)) {
          // Preallocated space (wal.ts), or an extension whose data never reached the disk: no record is there,
          // so none was acknowledged; the writer goes on over the zeros.
          notes.push({
            level: 'info',
            msg: 'embedded store: the WAL goes on after its last record, over the zeros after it',
            details: { file: path, offset: f.offset, zeroBytes: tail.length, lastRevision: state.headRevision },
          });
          break;
        }
        const verdict = judgeDamage(tail, f.offset, state.headRevision, newest);
        if (verdict.kind === 'corrupt') {
          damage = { segmentIndex: i, offset: f.offset, what: f.reason, why: verdict.why, intactFrame: false };
          break;
        }
        const cut = await truncateAt(path, f.offset);
        truncatedBytes += cut;
        notes.push({
          level: 'warn',
          msg: 'embedded store: cut a torn write (never acknowledged) off the end of the WAL',
          details: { file: path, offset: f.offset, bytesCut: cut, lastRevisionKept: state.headRevision, reason: verdict.why },
        });
        break;
      }
    } finally {
      await reader.close();
    }
    if (newest && damage === null) lastSegment = { seq, size: validEnd };
  }

  if (damage !== null) {
    const path = pathIn(dir, segmentName(segments[damage.segmentIndex]!));
    if (options.repair !== true) {
      throw new CorruptStoreError(
        `embedded store cannot start: WAL segment ${path} is damaged at offset ${damage.offset}: ${damage.what}; ` +
          `${damage.why}. Cutting the log there could lose acknowledged writes (those after revision ${state.headRevision})` +
          `${skippedSuffix}. To recover, restore the data directory from a backup, or start once with ${REPAIR_FLAG} ` +
          `to cut the log at offset ${damage.offset} (the cut bytes are kept in .broken files; see ops/runbook.md).`,
      );
    }
    const cut = await repairCut(dir, state, damage, skipped);
    truncatedBytes += cut.bytesDropped;
    notes.push(cut.note);
    lastSegment = { seq: segments[damage.segmentIndex]!, size: damage.offset };
  } else if (skipped.length > 0 && state.headRevision < skipped[0]!.revision) {
    // The snapshot held revisions the WAL no longer has (its segments were
    // deleted once the snapshot was durable): falling back would lose them.
    const newestSkipped = skipped[0]!;
    if (options.repair !== true) {
      throw new CorruptStoreError(
        `embedded store cannot start: snapshot ${newestSkipped.path} is invalid (${newestSkipped.reason}) and the older ` +
          `snapshots and the WAL only reach revision ${state.headRevision} of its ${newestSkipped.revision}, so falling back ` +
          `would lose acknowledged writes. To recover, restore the data directory from a backup, or start once with ` +
          `${REPAIR_FLAG} to continue from revision ${state.headRevision} (see ops/runbook.md).`,
      );
    }
    const lastKept = state.headRevision;
    const nextRevision = await raiseRevisionFloor(dir, state, newestSkipped.revision, skipped);
    notes.push({
      level: 'error',
      msg: 'embedded store repair: continued without an invalid snapshot; acknowledged writes after the last revision kept are lost',
      details: { file: newestSkipped.path, reason: newestSkipped.reason, lastRevisionKept: lastKept, revisionsDropped: `${lastKept + 1}-${newestSkipped.revision}`, nextRevision },
    });
  }

  if (options.repair === true && !notes.some((n) => n.level === 'error')) {
    notes.push({ level: 'warn', msg: `embedded store: ${REPAIR_FLAG} is set but nothing needed a repair; remove the flag`, details: { dir } });
  }

  state.prune(state.compactedRevision, Number.POSITIVE_INFINITY);
  return { state, lastSegment, snapshotRevision, recordsReplayed, truncatedBytes, notes };
}

/** Cut a file at `offset` durably; returns the bytes removed. */
async function truncateAt(path: string, offset: number): Promise<number> {
  const fh = await open(path, 'r+');
  try {
    const { size } = await fh.stat();
    if (size <= offset) return 0;
    await fh.truncate(offset);
    await fh.sync();
    return size - offset;
  } finally {
    await fh.close();
  }
}

/**
 * The repair: keep the damaged segment up to the damage, set the rest and
 * every later segment aside, and raise the revision past anything the
 * dropped bytes can have held. The raised revision is made durable before
 * anything is cut, so a crash in between cannot leave a clean-looking log
 * that hands out dropped revisions again.
 */
async function repairCut(
  dir: string,
  state: MvccState,
  damage: Damage,
  skipped: readonly SkippedSnapshot[],
): Promise<{ bytesDropped: number; note: RecoveryNote }> {
  const listing = await listStoreDir(dir);
  const lastKept = state.headRevision;
  const seq = listing.segments[damage.segmentIndex]!;
  const path = pathIn(dir, segmentName(seq));
  const later = listing.segments.slice(damage.segmentIndex + 1).map((n) => pathIn(dir, segmentName(n)));

  const tail = await readFrom(path, damage.offset);
  const found = [findIntactRecords(tail, damage.offset, damage.intactFrame ? 0 : 1, lastKept, damage.intactFrame)];
  let bytesDropped = tail.length;
  for (const laterPath of later) {
    const bytes = await readFrom(laterPath, 0);
    found.push(findIntactRecords(bytes, 0, 0, lastKept, true));
    bytesDropped += bytes.length;
  }

  // Revisions are consecutive, and a record that takes one is at least
  // MIN_REVISION_RECORD_BYTES long, so the unreadable bytes can hold at most
  // that many revisions beyond the highest one still readable.
  const intactRecords = found.reduce((n, f) => n + f.count, 0);
  const intactBytes = found.reduce((n, f) => n + f.bytes, 0);
  const maxFound = Math.max(lastKept, ...found.map((f) => f.maxRevision));
  const unreadable = Math.max(0, bytesDropped - intactBytes);
  const ceiling = Math.max(maxFound + Math.ceil(unreadable / MIN_REVISION_RECORD_BYTES), ...skipped.map((s) => s.revision));
  const nextRevision = await raiseRevisionFloor(dir, state, ceiling, skipped);

  const savedTo = [pathIn(dir, await brokenName(dir, segmentName(seq)))];
  await writePrivate(savedTo[0]!, tail);
  await truncateAt(path, damage.offset);
  for (const laterPath of later) {
    const aside = pathIn(dir, await brokenName(dir, basename(laterPath)));
    await rename(laterPath, aside);
    savedTo.push(aside);
  }
  await fsyncDir(dir);
  return {
    bytesDropped,
    note: {
      level: 'error',
      msg: 'embedded store repair: cut the WAL at damaged data; acknowledged writes after the last revision kept are lost',
      details: {
        file: path,
        offset: damage.offset,
        reason: `${damage.what}; ${damage.why}`,
        lastRevisionKept: lastKept,
        bytesDropped,
        intactRecordsDropped: intactRecords,
        revisionsDropped: maxFound > lastKept ? `${lastKept + 1}-${maxFound} readable, up to ${ceiling} possible` : `up to ${ceiling} possible`,
        segmentsSetAside: later.length,
        nextRevision,
        savedTo: savedTo.join(', '),
      },
    },
  };
}

/**
 * Make `ceiling` the last revision handed out, durably, before anything is
 * cut or written: a snapshot as of `ceiling` (holding the state as
 * recovered) is what every later open starts from. It replaces an invalid
 * snapshot of the same revision; other invalid ones are then set aside.
 * Returns the next revision a write will get.
 */
async function raiseRevisionFloor(dir: string, state: MvccState, ceiling: number, skipped: readonly SkippedSnapshot[]): Promise<number> {
  if (ceiling > state.headRevision) {
    state.headRevision = ceiling;
    const written = await writeSnapshot(dir, state, ceiling, Math.min(state.compactedRevision, ceiling), () => false);
    if (written === null) throw new Error('could not write the snapshot that records the repaired revision');
  }
  for (const s of skipped) {
    if (s.revision !== ceiling) await rename(s.path, pathIn(dir, await brokenName(dir, snapshotName(s.revision))));
  }
  await fsyncDir(dir);
  return state.headRevision + 1;
}

async function writePrivate(path: string, data: Buffer): Promise<void> {
  const fh = await open(path, 'wx', PRIVATE_FILE_MODE);
  try {
    await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
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
