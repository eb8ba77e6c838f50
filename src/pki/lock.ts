/**
 * Serialises data-dir fills across processes and within one. Two first starts
 * on one directory (a server and a second one started by mistake, test
 * harnesses starting several servers) could otherwise each create a CA and
 * leave ca.crt from one and ca.key from the other. With the lock, the later
 * caller waits, then finds and reuses what the first one wrote.
 *
 * The lock is a file holding the owner's pid, created with O_EXCL. A lock
 * whose owner is dead is stale and taken over. Accepted limits, as for the
 * store's LOCK: a recycled pid makes a stale lock look live until the
 * timeout, and two processes taking over one stale lock at the same instant
 * can race.
 */
import { open, readFile, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DATA_FILE_MODE } from './files.ts';

export const LOCK_FILE = '.pki.lock';
const POLL_MS = 50;
/** An empty lock file older than this was left by an owner that died before writing its pid. */
const EMPTY_LOCK_STALE_MS = 5_000;

/** Callers in this process, queued per lock path (the pid check cannot tell them apart). */
const queues = new Map<string, Promise<void>>();

export async function withDirLock<T>(dir: string, fn: () => Promise<T>, timeoutMs = 60_000): Promise<T> {
  const path = join(dir, LOCK_FILE);
  const previous = queues.get(path) ?? Promise.resolve();
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const mine = previous.then(() => gate);
  queues.set(path, mine);
  await previous;
  try {
    await acquire(path, timeoutMs);
    try {
      return await fn();
    } finally {
      await unlink(path).catch(() => undefined);
    }
  } finally {
    release();
    if (queues.get(path) === mine) queues.delete(path);
  }
}

async function acquire(path: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const handle = await open(path, 'wx', DATA_FILE_MODE);
      try {
        await handle.writeFile(`${process.pid}\n`);
      } finally {
        await handle.close();
      }
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const owner = await lockOwner(path);
    if (owner === 'gone') continue;
    if (owner === 'stale') {
      await unlink(path).catch(() => undefined);
      continue;
    }
    if (Date.now() >= deadline) throw new Error(`${path} is held by process ${owner}; remove it if that process is not an orch server`);
    await sleep(POLL_MS);
  }
}

async function lockOwner(path: string): Promise<number | 'stale' | 'gone'> {
  let text: string;
  let mtimeMs: number;
  try {
    [text, { mtimeMs }] = await Promise.all([readFile(path, 'utf8'), stat(path)]);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
    throw err;
  }
  const pid = Number.parseInt(text, 10);
  if (!(pid > 0)) return Date.now() - mtimeMs > EMPTY_LOCK_STALE_MS ? 'stale' : 0;
  // Callers in this process are queued above, so a lock naming our own pid
  // was left by a killed predecessor that had the same pid (common in containers).
  if (pid === process.pid) return 'stale';
  return processAlive(pid) ? pid : 'stale';
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
