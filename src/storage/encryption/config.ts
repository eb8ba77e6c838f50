/**
 * The encryption-at-rest configuration (`--encryption-provider-config`): an
 * `EncryptionConfiguration` (`apiserver.config.<suffix>/v1`) listing, per set
 * of resources, the providers in order — the first one encrypts every write,
 * all of them are tried (by their prefix) to read.
 *
 * Read and checked once at start, in the main thread, with the original's
 * rules; every problem refuses the start with a message naming the file and
 * the field. The result is plain data (keys as bytes) so that it crosses to
 * the shard threads that encrypt and decrypt.
 */
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { apiGroup } from '../../naming/index.ts';

export type ProviderConfig =
  | { readonly kind: 'identity' }
  | { readonly kind: 'aescbc' | 'aesgcm' | 'secretbox'; readonly keys: readonly { readonly name: string; readonly secret: Uint8Array }[] }
  | { readonly kind: 'kms'; readonly apiVersion: 'v1' | 'v2'; readonly name: string; readonly endpoint: string; readonly cachesize: number; readonly timeoutMs: number };

export interface ResourceRule {
  /** `secrets`, `deployments.apps`, `*.apps`, `*.*` as written (lower case). */
  readonly resources: readonly string[];
  readonly providers: readonly ProviderConfig[];
}

export interface EncryptionConfig {
  readonly rules: readonly ResourceRule[];
}

export class EncryptionConfigError extends Error {}

const KEY_SIZES: Readonly<Record<'aescbc' | 'aesgcm' | 'secretbox', readonly number[]>> = {
  aescbc: [16, 24, 32],
  aesgcm: [16, 24, 32],
  secretbox: [32],
};
const DEFAULT_KMS_CACHE_SIZE = 1000;
const DEFAULT_KMS_TIMEOUT_MS = 3000;

export async function readEncryptionConfig(file: string): Promise<EncryptionConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new EncryptionConfigError(`error reading encryption provider configuration file "${file}": ${err instanceof Error ? err.message : String(err)}`);
  }
  return parseEncryptionConfig(text, file);
}

export function parseEncryptionConfig(text: string, file = 'encryption configuration'): EncryptionConfig {
  const fail = (msg: string): never => {
    throw new EncryptionConfigError(`error while parsing file "${file}": ${msg}`);
  };
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (err) {
    return fail(err instanceof Error ? err.message.split('\n')[0]! : String(err));
  }
  if (!isObject(doc)) return fail('the file is not an EncryptionConfiguration object');
  const group = apiGroup('apiserver.config');
  if (doc['kind'] !== 'EncryptionConfiguration') fail(`kind: must be EncryptionConfiguration, got ${JSON.stringify(doc['kind'] ?? '')}`);
  if (doc['apiVersion'] !== `${group}/v1`) fail(`apiVersion: must be ${group}/v1, got ${JSON.stringify(doc['apiVersion'] ?? '')}`);
  const resources = doc['resources'];
  if (!Array.isArray(resources) || resources.length === 0) return fail('resources: Required value: EncryptionConfiguration.Resources must contain at least one item');
  const seen = new Set<string>();
  const kmsNames = new Set<string>();
  const rules = resources.map((r: unknown, i: number): ResourceRule => {
    const at = `resources[${i}]`;
    if (!isObject(r)) return fail(`${at}: must be an object`);
    const names = r['resources'];
    if (!Array.isArray(names) || names.length === 0) return fail(`${at}.resources: Required value: at least one resource is required`);
    const list = names.map((n: unknown, j: number) => {
      if (typeof n !== 'string' || n === '') return fail(`${at}.resources[${j}]: Invalid value: must be a non-empty string`);
      if (n !== n.toLowerCase()) fail(`${at}.resources[${j}]: Invalid value: ${JSON.stringify(n)}: resource name must be lower case`);
      if (n.startsWith('*') && n !== '*.*' && !/^\*\.[a-z0-9.-]*$/.test(n)) fail(`${at}.resources[${j}]: Invalid value: ${JSON.stringify(n)}: wildcards are only allowed as "*.<group>" or "*.*"`);
      if (seen.has(n)) fail(`${at}.resources[${j}]: Duplicate value: ${JSON.stringify(n)}`);
      seen.add(n);
      return n;
    });
    const providers = r['providers'];
    if (!Array.isArray(providers) || providers.length === 0) return fail(`${at}.providers: Required value: at least one provider is required`);
    return { resources: list, providers: providers.map((p: unknown, j: number) => provider(p, `${at}.providers[${j}]`, fail, kmsNames)) };
  });
  return { rules };
}

function provider(p: unknown, at: string, fail: (msg: string) => never, kmsNames: Set<string>): ProviderConfig {
  if (!isObject(p)) return fail(`${at}: must be an object`);
  const kinds = Object.keys(p).filter((k) => p[k] !== undefined && p[k] !== null);
  if (kinds.length !== 1) return fail(`${at}: Invalid value: provider does not contain exactly one of aescbc, aesgcm, secretbox, kms or identity (found ${kinds.length})`);
  const kind = kinds[0]!;
  const body = p[kind];
  switch (kind) {
    case 'identity':
      return { kind: 'identity' };
    case 'aescbc':
    case 'aesgcm':
    case 'secretbox': {
      if (!isObject(body)) return fail(`${at}.${kind}: must be an object`);
      const keys = body['keys'];
      if (!Array.isArray(keys) || keys.length === 0) return fail(`${at}.${kind}.keys: Required value: at least one key is required`);
      const names = new Set<string>();
      return {
        kind,
        keys: keys.map((k: unknown, i: number) => {
          const kat = `${at}.${kind}.keys[${i}]`;
          if (!isObject(k)) return fail(`${kat}: must be an object`);
          const name = k['name'];
          const secret = k['secret'];
          if (typeof name !== 'string' || name === '') return fail(`${kat}.name: Required value: key name is required`);
          if (name.includes(':')) fail(`${kat}.name: Invalid value: ${JSON.stringify(name)}: should not contain ":"`);
          if (names.has(name)) fail(`${kat}.name: Duplicate value: ${JSON.stringify(name)}`);
          names.add(name);
          if (typeof secret !== 'string' || secret === '') return fail(`${kat}.secret: Required value: secret is required`);
          // The secret is never quoted back: it is a key.
          if (!/^[A-Za-z0-9+/]*={0,2}$/.test(secret) || secret.length % 4 !== 0) return fail(`${kat}.secret: Invalid value: REDACTED: secrets must be base64 encoded`);
          const bytes = new Uint8Array(Buffer.from(secret, 'base64'));
          if (!KEY_SIZES[kind].includes(bytes.length)) {
            fail(`${kat}.secret: Invalid value: REDACTED: secret is not of the expected length, got ${bytes.length}, expected one of ${JSON.stringify(KEY_SIZES[kind])}`);
          }
          return { name, secret: bytes };
        }),
      };
    }
    case 'kms': {
      if (!isObject(body)) return fail(`${at}.kms: must be an object`);
      const apiVersion = body['apiVersion'] ?? 'v1';
      if (apiVersion !== 'v1' && apiVersion !== 'v2') return fail(`${at}.kms.apiVersion: Unsupported value: ${JSON.stringify(apiVersion)}: supported values: "v1", "v2"`);
      const name = body['name'];
      if (typeof name !== 'string' || name === '') return fail(`${at}.kms.name: Required value: name is required`);
      if (name.includes(':')) fail(`${at}.kms.name: Invalid value: ${JSON.stringify(name)}: should not contain ":"`);
      if (kmsNames.has(name)) fail(`${at}.kms.name: Duplicate value: ${JSON.stringify(name)}`);
      kmsNames.add(name);
      const endpoint = body['endpoint'];
      if (typeof endpoint !== 'string' || endpoint === '') return fail(`${at}.kms.endpoint: Required value: endpoint is required`);
      if (!endpoint.startsWith('unix://')) fail(`${at}.kms.endpoint: Invalid value: ${JSON.stringify(endpoint)}: unsupported scheme for KMS plugin endpoint (only unix:// is supported)`);
      const cachesize = body['cachesize'] ?? DEFAULT_KMS_CACHE_SIZE;
      if (typeof cachesize !== 'number' || !Number.isInteger(cachesize)) return fail(`${at}.kms.cachesize: Invalid value: must be an integer`);
      if (apiVersion === 'v1' && cachesize === 0) fail(`${at}.kms.cachesize: Invalid value: 0: cachesize must be a positive integer (or negative to turn the cache off)`);
      const timeout = body['timeout'] ?? '3s';
      const timeoutMs = typeof timeout === 'string' ? goDurationMs(timeout) : undefined;
      if (timeoutMs === undefined || timeoutMs <= 0) return fail(`${at}.kms.timeout: Invalid value: ${JSON.stringify(timeout)}: timeout should be a positive value`);
      return { kind: 'kms', apiVersion, name, endpoint, cachesize, timeoutMs: timeoutMs ?? DEFAULT_KMS_TIMEOUT_MS };
    }
    default:
      return fail(`${at}: Invalid value: unknown provider ${JSON.stringify(kind)}`);
  }
}

/** A Go duration (`3s`, `500ms`, `1m30s`) in milliseconds; undefined when it is not one. */
function goDurationMs(s: string): number | undefined {
  const units: Readonly<Record<string, number>> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  const re = /([0-9]+(?:\.[0-9]*)?)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let at = 0;
  for (let m = re.exec(s); m !== null; m = re.exec(s)) {
    total += Number(m[1]) * units[m[2]!]!;
    at = re.lastIndex;
  }
  return at === s.length && s.length > 0 ? total : undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
