/**
 * The admission configuration file (`--admission-control-config-file`), as
 * the original reads it (apiserver/pkg/admission/config.go): an
 * `AdmissionConfiguration` of the apiserver.config group (v1, v1beta1 or
 * v1alpha1; YAML or JSON) whose `plugins[]` give each plugin by `name`
 * either a `path` to its own file (relative paths from the configuration
 * file's directory) or an inline `configuration`. Read once at start; a
 * broken file stops the start with a message naming it.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { parse } from 'yaml';
import { names } from '../naming/index.ts';

const VERSIONS = new Set(['v1', 'v1beta1', 'v1alpha1']);

function parseDocument(text: string, file: string): unknown {
  try {
    return parse(text, { maxAliasCount: 100 }) as unknown;
  } catch (e) {
    throw new Error(`unable to read admission control configuration from ${JSON.stringify(file)} [${e instanceof Error ? e.message : String(e)}]`);
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The configuration object the file gives `plugin`, or undefined when there
 * is no file or it says nothing about the plugin.
 */
export function admissionPluginConfig(configFile: string | undefined, plugin: string): unknown {
  if (configFile === undefined || configFile === '') return undefined;
  let text: string;
  try {
    text = readFileSync(configFile, 'utf8');
  } catch (e) {
    throw new Error(`unable to read admission control configuration from ${JSON.stringify(configFile)} [${e instanceof Error ? e.message : String(e)}]`);
  }
  const doc = parseDocument(text, configFile);
  if (!isRecord(doc)) throw new Error(`admission control configuration ${JSON.stringify(configFile)} is not an object`);
  const apiVersion = typeof doc['apiVersion'] === 'string' ? doc['apiVersion'] : '';
  const [group = '', version = ''] = apiVersion.split('/');
  if (doc['kind'] !== 'AdmissionConfiguration' || !names.admissionNames.admissionConfigGroups.includes(group) || !VERSIONS.has(version)) {
    throw new Error(
      `admission control configuration ${JSON.stringify(configFile)} must be kind AdmissionConfiguration in ${names.admissionNames.admissionConfigGroups[0]}/v1, not ${JSON.stringify(apiVersion)} ${JSON.stringify(doc['kind'])}`,
    );
  }
  const plugins = Array.isArray(doc['plugins']) ? doc['plugins'] : [];
  for (const entry of plugins) {
    if (!isRecord(entry) || entry['name'] !== plugin) continue;
    const path = typeof entry['path'] === 'string' ? entry['path'] : '';
    if (path !== '') {
      const full = isAbsolute(path) ? path : join(dirname(configFile), path);
      let pluginText: string;
      try {
        pluginText = readFileSync(full, 'utf8');
      } catch (e) {
        throw new Error(`unable to read ${plugin} configuration from ${JSON.stringify(full)} [${e instanceof Error ? e.message : String(e)}]`);
      }
      return parseDocument(pluginText, full);
    }
    return entry['configuration'] ?? undefined;
  }
  return undefined;
}
