/**
 * File primitives for the data dir. Writes go to a temporary file that is
 * renamed into place, so a crash or a concurrent reader never sees half a key
 * or an empty certificate, only the old content or the new.
 */
import { chmod, mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';

/**
 * Every file in the data dir: keys, certificates, the token file,
 * kubeconfigs, lock files. Owner only, as etcd keeps its data dir: a
 * certificate is not secret, but one rule for the whole directory leaves
 * nothing to get wrong when a file moves from one kind to the other.
 */
export const DATA_FILE_MODE = 0o600;
/** The data dir itself. */
export const DATA_DIR_MODE = 0o700;

export async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

export async function writeFileAtomic(path: string, data: string, mode: number): Promise<void> {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  // 'wx' creates the file with `mode` from the start: a secret is never
  // readable by others, not even between create and chmod.
  const handle = await open(tmp, 'wx', mode);
  try {
    await handle.writeFile(data, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/**
 * Removes permission bits beyond `mode` on an existing file (a key copied in
 * with 0644, say). Never widens: an operator's stricter mode stays.
 */
export async function restrictMode(path: string, mode: number): Promise<void> {
  const current = (await stat(path)).mode & 0o777;
  if ((current & ~mode) !== 0) await chmod(path, current & mode);
}

/**
 * Creates the data dir 0700, or takes group and other access away from an
 * existing one (made 0755 by hand or by an older version). A shared directory
 * such as /tmp (sticky bit) is refused rather than locked down for everyone.
 */
export async function ensurePrivateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: DATA_DIR_MODE });
  const info = await stat(dir);
  if (!info.isDirectory()) throw new Error(`data dir ${dir} is not a directory`);
  if ((info.mode & 0o1000) !== 0) {
    throw new Error(`data dir ${dir} is a shared directory (sticky bit set); use a directory of its own, such as ${dir}/orch`);
  }
  await restrictMode(dir, DATA_DIR_MODE);
}

/** Makes the renames in a directory durable. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
