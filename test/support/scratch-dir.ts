/**
 * Scratch directories for tests that leave their files to the end of the
 * test process (a server's data dir, a token file it reads): each is removed
 * when the process exits, so test runs leave nothing in the temp dir.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made = new Set<string>();
let hooked = false;

/** A new directory under the temp dir (0700, as mkdtemp makes it), removed at process exit. */
export function scratchDirSync(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.add(dir);
  if (!hooked) {
    hooked = true;
    process.once('exit', () => {
      for (const d of made) rmSync(d, { recursive: true, force: true });
    });
  }
  return dir;
}

export async function scratchDir(prefix: string): Promise<string> {
  return scratchDirSync(prefix);
}
