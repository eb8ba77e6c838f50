/**
 * An exclusive lock on a store directory, so that two processes (or two
 * stores in one process) never write the same WAL.
 *
 * The lock is a file `LOCK` holding the owner's pid. It is created atomically
 * with link(2) from a fully written temp file, so a reader never sees a
 * half-written pid. A lock whose pid is no longer alive (the owner was killed)
 * is stale and is taken over. Limits, accepted for a single-host store: a
 * recycled pid makes a stale lock look live (remove LOCK by hand), and two
 * processes taking over the same stale lock at the same instant can race.
 */
import { link, readFile, unlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { PRIVATE_FILE_MODE } from './files.ts';

export class DirLockedError extends Error {
  constructor(
    readonly dir: string,
    readonly ownerPid: number,
  ) {
    super(`store directory ${dir} is locked by process ${ownerPid}`);
  }
}

function errno(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : undefined;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return errno(err) === 'EPERM';
  }
}

/** Lock files this process holds, so a LOCK naming our own pid can be told apart from a stale one. */
const heldHere = new Set<string>();

export class DirLock {
  private released = false;

  private constructor(private readonly path: string) {}

  static async acquire(dir: string): Promise<DirLock> {
    const path = join(resolve(dir), 'LOCK');
    const temp = join(dir, `LOCK.${process.pid}.${Math.random().toString(36).slice(2)}`);
    await writeFile(temp, `${process.pid}\n`, { mode: PRIVATE_FILE_MODE });
    try {
      for (let attempt = 0; attempt < 5; attempt++) {
        try {
          await link(temp, path);
          heldHere.add(path);
          return new DirLock(path);
        } catch (err) {
          if (errno(err) !== 'EEXIST') throw err;
        }
        let owner: number;
        try {
          owner = parseInt(await readFile(path, 'utf8'), 10);
        } catch (err) {
          if (errno(err) === 'ENOENT') continue; // released meanwhile
          throw err;
        }
        // Our own pid is live only if this process really holds the lock: in a
        // container a restarted server often gets the pid its killed
        // predecessor had, and that lock is stale.
        const live = owner === process.pid ? heldHere.has(path) : Number.isInteger(owner) && owner > 0 && processAlive(owner);
        if (live) throw new DirLockedError(dir, owner);
        await unlink(path).catch((err: unknown) => {
          if (errno(err) !== 'ENOENT') throw err;
        });
      }
      throw new Error(`could not lock store directory ${dir}`);
    } finally {
      await unlink(temp).catch(() => undefined);
    }
  }

  /** Remove the lock file if it is still ours. */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    heldHere.delete(this.path);
    try {
      if (parseInt(await readFile(this.path, 'utf8'), 10) === process.pid) await unlink(this.path);
    } catch (err) {
      if (errno(err) !== 'ENOENT') throw err;
    }
  }
}
