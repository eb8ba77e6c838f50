/**
 * A plugin's own configuration from `--admission-control-config-file` (an
 * AdmissionConfiguration whose `plugins[]` give a `path` or an inline
 * `configuration`), for PodNodeSelector and PodTolerationRestriction.
 *
 * Kept small and local (PodSecurity reads its own entry in
 * pod-security/config.ts; a shared reader may replace both). Read once when
 * the plugin is built; a broken file stops the start with a message naming it.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { parse } from 'yaml';
import type { ServerOptions } from '../../server/options.ts';

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function read(file: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`unable to read ${what} from ${JSON.stringify(file)} [${e instanceof Error ? e.message : String(e)}]`);
  }
  try {
    return parse(text, { maxAliasCount: 100 }) as unknown;
  } catch (e) {
    throw new Error(`unable to read ${what} from ${JSON.stringify(file)} [${e instanceof Error ? e.message : String(e)}]`);
  }
}

/** The configuration the file gives `plugin`, or undefined (no file, or nothing for the plugin). */
export function pluginConfiguration(opts: ServerOptions, plugin: string): unknown {
  const file = opts.admissionControlConfigFile;
  if (typeof file !== 'string' || file === '') return undefined;
  const doc = read(file, 'admission control configuration');
  if (!isRecord(doc)) return undefined;
  for (const entry of Array.isArray(doc['plugins']) ? doc['plugins'] : []) {
    if (!isRecord(entry) || entry['name'] !== plugin) continue;
    const path = typeof entry['path'] === 'string' ? entry['path'] : '';
    if (path !== '') return read(isAbsolute(path) ? path : join(dirname(file), path), `${plugin} configuration`);
    return entry['configuration'] ?? undefined;
  }
  return undefined;
}
