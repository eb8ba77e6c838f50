/**
 * Layout of an embedded store directory:
 *
 *   LOCK                       pid of the process that has the store open
 *   wal-<seq>.log              write-ahead log segments, replayed in seq order
 *   snap-<revision>.snap       snapshot of the MVCC state as of <revision>
 *   snap-<revision>.tmp        a snapshot being written (removed on open)
 *   <name>.broken[.<n>]        bytes a repair cut off or set aside, for forensics
 *
 * Numbers are 16 hex digits so names sort in numeric order.
 *
 * The directory is 0700 and every file in it 0600, as etcd keeps its data
 * dir: the store holds Secrets.
 */
import { chmod, mkdir, open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

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

/** A name for set-aside bytes of `name` that no earlier repair used. */
export async function brokenName(dir: string, name: string): Promise<string> {
  const taken = new Set(await readdir(dir));
  for (let n = 0; ; n++) {
    const candidate = n === 0 ? `${name}.broken` : `${name}.broken.${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/** The bytes of a file from `offset` to its end. */
export async function readFrom(path: string, offset: number): Promise<Buffer> {
  const fh = await open(path, 'r');
  try {
    const { size } = await fh.stat();
    const out = Buffer.alloc(Math.max(0, size - offset));
    let done = 0;
    while (done < out.length) {
      const { bytesRead } = await fh.read(out, done, out.length - done, offset + done);
      if (bytesRead === 0) break;
      done += bytesRead;
    }
    return out.subarray(0, done);
  } finally {
    await fh.close();
  }
}

/**
 * Create the store directory 0700, or take group and other access away from
 * an existing one and from every file in it (a directory made 0755 by hand or
 * by an older version, files written under a lax umask).
 */
export async function ensurePrivateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  await restrictTo(dir, PRIVATE_DIR_MODE);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isFile()) await restrictTo(join(dir, entry.name), PRIVATE_FILE_MODE);
  }
}

/** Remove permission bits beyond `mode`; never widen (an operator's stricter mode stays). */
async function restrictTo(path: string, mode: number): Promise<void> {
  const current = (await stat(path)).mode & 0o7777;
  if ((current & ~mode) !== 0) await chmod(path, current & mode);
}
