/**
 * `--runtime-config`: which group versions (and single resources) are served,
 * decided as the original decides it (k8s.io/apiserver resourceconfig and
 * kube-apiserver's options):
 *
 * - the flag is a ConfigurationMap: `key[=value]` pairs split on commas, keys
 *   and values trimmed, a bare key meaning `""` (true); repeated flags add up;
 * - `v1`, `api/v1` and `v1/...`/`api/v1/...` name the core group version
 *   (`/v1`); `api/legacy` is dropped;
 * - `api/all`, `api/ga`, `api/beta`, `api/alpha` switch every matching
 *   version, applied in that order (a later one wins where both match), and
 *   accept exactly `true` or `false`;
 * - `<group>/<version>` then wins over them, and `<group>/<version>/<resource>`
 *   over that; their values are Go booleans (`1`, `t`, `TRUE`, `false`, ...);
 * - otherwise the type's default: GA and the older betas on, alpha (and betas
 *   new since 1.24) off.
 *
 * Errors carry the original's words: `invalid key with only api/all=false`,
 * `runtime-config invalid key x`, `unknown api groups a,b`, `group version
 * batch/v9 that has not been registered`, `invalid value api/beta=yes`.
 */

/** A problem with the flag: the server refuses to start with this message. */
export class RuntimeConfigError extends Error {}

export const API_ALL = 'api/all';
export const API_GA = 'api/ga';
export const API_BETA = 'api/beta';
export const API_ALPHA = 'api/alpha';

const GA = /^v\d+$/;
const BETA = /^v\d+beta\d+$/;
const ALPHA = /^v\d+alpha\d+$/;

const MATCHERS: ReadonlyArray<readonly [string, (version: string) => boolean]> = [
  [API_ALL, () => true],
  [API_GA, (v) => GA.test(v)],
  [API_BETA, (v) => BETA.test(v)],
  [API_ALPHA, (v) => ALPHA.test(v)],
];
const MATCHER_KEYS = new Set(MATCHERS.map(([k]) => k));

/** cliflag.ConfigurationMap.Set: adds one flag value's pairs to `m`. */
export function addRuntimeConfig(m: Map<string, string>, value: string): void {
  for (const s of value.split(',')) {
    if (s.length === 0) continue;
    const eq = s.indexOf('=');
    if (eq < 0) m.set(s.trim(), '');
    else m.set(s.slice(0, eq).trim(), s.slice(eq + 1).trim());
  }
}

/** The keys as kube-apiserver's Complete() rewrites them: the core group's spellings become `/v1`. */
export function normalizeRuntimeConfig(raw: ReadonlyMap<string, string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of raw) {
    if (key === 'api/legacy') continue;
    if (key === 'v1' || key.startsWith('v1/') || key === 'api/v1' || key.startsWith('api/v1/')) out.set('/v1', value);
    else out.set(key, value);
  }
  return out;
}

/** Go's strconv.ParseBool. */
export function parseGoBool(text: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return false;
  return undefined;
}

/** A resource the server can serve, with whether it is on when the flag says nothing. */
export interface KnownResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly defaultEnabled: boolean;
}

/** The stage of a version string, as the matchers see it. */
export function versionTrack(version: string): 'ga' | 'beta' | 'alpha' | 'other' {
  if (GA.test(version)) return 'ga';
  if (BETA.test(version)) return 'beta';
  if (ALPHA.test(version)) return 'alpha';
  return 'other';
}

/** The decisions of one `--runtime-config`, checked against the resources the server knows. */
export class RuntimeConfig {
  readonly #matchers: Array<readonly [(version: string) => boolean, boolean]> = [];
  readonly #versions = new Map<string, boolean>();
  readonly #resources = new Map<string, boolean>();

  /** @throws RuntimeConfigError with the original's message. */
  constructor(raw: ReadonlyMap<string, string>, known: readonly KnownResource[]) {
    const overrides = normalizeRuntimeConfig(raw);
    const groups = new Set(known.map((k) => k.group));
    const versions = new Set(known.map((k) => `${k.group}/${k.version}`));

    // APIEnablementOptions.Validate.
    if (overrides.get(API_ALL) === 'false' && overrides.size === 1) throw new RuntimeConfigError(`invalid key with only ${API_ALL}=false`);
    const unknownGroups = new Set<string>();
    for (const key of overrides.keys()) {
      if (MATCHER_KEYS.has(key)) continue;
      const tokens = key.split('/');
      if (tokens.length !== 2 && tokens.length !== 3) throw new RuntimeConfigError(`runtime-config invalid key ${key}`);
      if (!groups.has(tokens[0]!)) unknownGroups.add(tokens[0]!);
    }
    if (unknownGroups.size > 0) throw new RuntimeConfigError(`unknown api groups ${[...unknownGroups].sort().join(',')}`);

    // MergeAPIResourceConfigs: the matchers in their order, then versions, then resources.
    for (const [key, matches] of MATCHERS) {
      const value = overrides.get(key);
      if (value === undefined) continue;
      if (value !== 'true' && value !== 'false') throw new RuntimeConfigError(`invalid value ${key}=${value}`);
      this.#matchers.push([matches, value === 'true']);
    }
    for (const [key, value] of overrides) {
      if (MATCHER_KEYS.has(key)) continue;
      const tokens = key.split('/');
      const gv = `${tokens[0]}/${tokens[1]}`;
      if (!versions.has(gv)) throw new RuntimeConfigError(`group version ${tokens[0] === '' ? tokens[1] : gv} that has not been registered`);
      let enabled = true;
      if (value !== '') {
        const parsed = parseGoBool(value);
        if (parsed === undefined) throw new RuntimeConfigError(`invalid value of ${key}: ${value}, err: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
        enabled = parsed;
      }
      if (tokens.length === 2) {
        this.#versions.set(gv, enabled);
      } else {
        const resource = tokens[2]!;
        if (resource.toLowerCase() !== resource) {
          throw new RuntimeConfigError(`invalid key ${key}: group/version/resource and resource is always lowercase plural, not ${JSON.stringify(resource)}`);
        }
        this.#resources.set(`${gv}/${resource}`, enabled);
      }
    }
  }

  /** Whether a resource is served: resource key, then version key, then the matchers, then its default. */
  isEnabled(group: string, version: string, resource: string, defaultEnabled: boolean): boolean {
    const gv = `${group}/${version}`;
    const byResource = this.#resources.get(`${gv}/${resource}`);
    if (byResource !== undefined) return byResource;
    const byVersion = this.#versions.get(gv);
    if (byVersion !== undefined) return byVersion;
    let enabled = defaultEnabled;
    for (const [matches, value] of this.#matchers) if (matches(version)) enabled = value;
    return enabled;
  }
}

/** The default of a version the catalog does not decide: alpha off, the rest on. */
export function defaultEnabledFor(version: string): boolean {
  return versionTrack(version) !== 'alpha';
}
