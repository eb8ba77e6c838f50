/**
 * File primitives for the data dir. Writes go to a temporary file that is
 * renamed into place, so a crash or a concurrent reader never sees half a key
 * or an empty certificate, only the old content or the new.
 */
import { chmod, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';

/** Private keys, the token file and kubeconfigs (which embed a key or token). */
export const SECRET_MODE = 0o600;
/** Certificates and public keys. */
export const PUBLIC_MODE = 0o644;

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

/** Makes the renames in a directory durable. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
