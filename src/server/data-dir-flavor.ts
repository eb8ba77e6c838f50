/**
 * The data dir remembers the API flavor it was created with (the file
 * `api-flavor`): its objects carry that flavor's group names, labels and
 * secret types, so starting the other flavor on it would serve them under
 * names no client asks for. A dir from before the file existed holds the
 * spec's names (the only flavor there was).
 */
import { readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { DEFAULT_API_FLAVOR, isApiFlavor, type ApiFlavor } from '../naming/index.ts';
import { DATA_FILE_MODE, readIfExists, writeFileAtomic } from '../pki/files.ts';
import { EtcdConnection } from '../storage/etcd/connection.ts';
import { claimFlavorRecord } from '../storage/etcd/flavor-record.ts';
import { OptionsError } from './options.ts';

export const API_FLAVOR_FILE = 'api-flavor';

/** The flavor a data dir was created with, or undefined for a new (absent or empty) dir. */
export async function recordedApiFlavor(dataDir: string): Promise<ApiFlavor | undefined> {
  const dir = resolve(dataDir);
  const recorded = await readIfExists(join(dir, API_FLAVOR_FILE));
  if (recorded !== undefined) {
    const text = recorded.trim();
    if (!isApiFlavor(text)) throw new OptionsError(`data dir ${dir}: ${API_FLAVOR_FILE} holds ${JSON.stringify(text)}, not a known API flavor`);
    return text;
  }
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  return entries.length === 0 ? undefined : DEFAULT_API_FLAVOR;
}

/** Refuses a data dir of another flavor; before any side effect of the start. */
export async function checkDataDirFlavor(dataDir: string, flavor: ApiFlavor): Promise<void> {
  const recorded = await recordedApiFlavor(dataDir);
  if (recorded !== undefined && recorded !== flavor) {
    throw new OptionsError(
      `data dir ${resolve(dataDir)} holds objects of the ${recorded} API flavor; this server was started with --api-flavor=${flavor}. ` +
        `Start it with --api-flavor=${recorded}, or use another --data-dir.`,
    );
  }
}

/** Writes the flavor into a data dir that exists (idempotent). */
export async function recordDataDirFlavor(dataDir: string, flavor: ApiFlavor): Promise<void> {
  const path = join(resolve(dataDir), API_FLAVOR_FILE);
  const recorded = await readIfExists(path);
  if (recorded?.trim() !== flavor) await writeFileAtomic(path, `${flavor}\n`, DATA_FILE_MODE);
}

/**
 * The same for an etcd prefix, whose objects outlive any one data dir: the
 * prefix records the flavor of the first server on it, and refuses others.
 */
export async function checkEtcdPrefixFlavor(endpoints: readonly string[], prefix: string, flavor: ApiFlavor): Promise<void> {
  const connection = new EtcdConnection({ endpoints, requestTimeoutMs: 10_000, keepaliveMs: 10_000 });
  let recorded: string;
  try {
    recorded = await claimFlavorRecord(connection, prefix, flavor, DEFAULT_API_FLAVOR);
  } finally {
    connection.close();
  }
  if (recorded !== flavor) {
    throw new OptionsError(
      `etcd prefix ${JSON.stringify(prefix)} holds objects of the ${recorded} API flavor; this server was started with --api-flavor=${flavor}. ` +
        `Start it with --api-flavor=${recorded}, or use another --etcd-prefix.`,
    );
  }
}
