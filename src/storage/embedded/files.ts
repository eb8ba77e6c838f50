/**
 * Layout of an embedded store directory:
 *
 *   LOCK                       pid of the process that has the store open
 *   wal-<seq>.log              write-ahead log segments, replayed in seq order
 *   snap-<revision>.snap       snapshot of the MVCC state as of <revision>
 *   snap-<revision>.tmp        a snapshot being written (removed on open)
 *
 * Numbers are 16 hex digits so names sort in numeric order.
 */
import { open, readdir } from 'node:fs/promises';
import { join } from 'node:path';

const hex16 = (n: number): string => n.toString(16).padStart(16, '0');

export const segmentName = (seq: number): string => `wal-${hex16(seq)}.log`;
export const snapshotName = (revision: number): string => `snap-${hex16(revision)}.snap`;
export const snapshotTempName = (revision: number): string => `snap-${hex16(revision)}.tmp`;

export interface DirListing {
  /** Segment sequence numbers, ascending. */
  readonly segments: number[];
  /** Snapshot revisions, newest first. */
  readonly snapshots: number[];
  /** Leftover temporary files. */
  readonly temps: string[];
}

export async function listStoreDir(dir: string): Promise<DirListing> {
  const segments: number[] = [];
  const snapshots: number[] = [];
  const temps: string[] = [];
  for (const name of await readdir(dir)) {
    let m = /^wal-([0-9a-f]{16})\.log$/.exec(name);
    if (m) {
      segments.push(parseInt(m[1]!, 16));
      continue;
    }
    m = /^snap-([0-9a-f]{16})\.snap$/.exec(name);
    if (m) {
      snapshots.push(parseInt(m[1]!, 16));
      continue;
    }
    if (/^snap-[0-9a-f]{16}\.tmp$/.test(name)) temps.push(name);
  }
  segments.sort((a, b) => a - b);
  snapshots.sort((a, b) => b - a);
  return { segments, snapshots, temps };
}

/**
 * fsync a directory, which makes file creations, renames and deletions in it
 * durable. Without it a crash can lose a freshly created WAL segment or a
 * renamed snapshot even though their contents were synced.
 */
export async function fsyncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

export const pathIn = (dir: string, name: string): string => join(dir, name);
