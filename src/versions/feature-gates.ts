/**
 * `--feature-gates`: the gates of this server, with the life cycle of spec 3.4
 * and the original's component-base featuregate rules and words:
 *
 * - ALPHA gates are off by default, BETA on; either may be set;
 * - GA gates are locked to their default (true): setting one to false fails
 *   the start with `cannot set feature gate X to false, feature is locked to
 *   true`; setting it to true warns that it will be removed;
 * - DEPRECATED gates work and warn;
 * - a gate not in the table (never known, or removed once its deprecation
 *   window closed) fails with `unrecognized feature gate: X`;
 * - `AllAlpha` / `AllBeta` set every ALPHA / BETA gate not set by name.
 *
 * The flag is a MapStringBool: `Name=bool` pairs split on commas, a pair
 * without `=` is `malformed pair, expect string=bool`, a value that is not a Go
 * boolean is `invalid value of Name: x, err: strconv.ParseBool: ...`.
 *
 * The table is the original's API-server gates of the spec's (v1.25-era)
 * release; the ones this server acts on say where in `USED_BY`.
 */
import { parseGoBool } from './runtime-config.ts';

export type FeatureStage = 'ALPHA' | 'BETA' | 'GA' | 'DEPRECATED';

export interface FeatureSpec {
  readonly default: boolean;
  readonly stage: FeatureStage;
  /** A locked gate cannot be set to anything but its default. */
  readonly lockToDefault?: boolean;
}

export class FeatureGateError extends Error {}

const ALL_ALPHA = 'AllAlpha';
const ALL_BETA = 'AllBeta';

/** The gates, as the original's kube-apiserver of the spec's release lists them (those an API server reads). */
export const FEATURE_GATES: Readonly<Record<string, FeatureSpec>> = {
  [ALL_ALPHA]: { default: false, stage: 'ALPHA' },
  [ALL_BETA]: { default: false, stage: 'BETA' },
  APIListChunking: { default: true, stage: 'BETA' },
  APIPriorityAndFairness: { default: true, stage: 'BETA' },
  APIResponseCompression: { default: true, stage: 'BETA' },
  APIServerIdentity: { default: false, stage: 'ALPHA' },
  APIServerTracing: { default: false, stage: 'ALPHA' },
  AdvancedAuditing: { default: true, stage: 'GA', lockToDefault: true },
  CSRDuration: { default: true, stage: 'GA', lockToDefault: true },
  CustomResourceValidationExpressions: { default: true, stage: 'BETA' },
  DryRun: { default: true, stage: 'GA', lockToDefault: true },
  EfficientWatchResumption: { default: true, stage: 'GA', lockToDefault: true },
  KMSv2: { default: false, stage: 'ALPHA' },
  LegacyServiceAccountTokenNoAutoGeneration: { default: true, stage: 'BETA' },
  OpenAPIEnums: { default: true, stage: 'BETA' },
  OpenAPIV3: { default: true, stage: 'BETA' },
  PodSecurity: { default: true, stage: 'GA', lockToDefault: true },
  RemainingItemCount: { default: true, stage: 'BETA' },
  RemoveSelfLink: { default: true, stage: 'GA', lockToDefault: true },
  ServerSideApply: { default: true, stage: 'GA', lockToDefault: true },
  ServerSideFieldValidation: { default: true, stage: 'BETA' },
  ServiceAccountIssuerDiscovery: { default: true, stage: 'GA', lockToDefault: true },
  StorageVersionAPI: { default: false, stage: 'ALPHA' },
  StorageVersionHash: { default: true, stage: 'BETA' },
  WatchBookmark: { default: true, stage: 'GA', lockToDefault: true },
};

/** Where this server acts on a gate (for --help readers and the docs). */
export const USED_BY: Readonly<Record<string, string>> = {
  APIListChunking: 'off: list ignores limit and continue (one page, no continue token)',
  RemainingItemCount: 'off: list pages carry no metadata.remainingItemCount',
  OpenAPIV3: 'off: /openapi/v3 answers 404',
};

/** MapStringBool.Set: adds one flag value's pairs to `m`. */
export function addFeatureGates(m: Map<string, boolean>, value: string): void {
  for (const s of value.split(',')) {
    if (s.length === 0) continue;
    const eq = s.indexOf('=');
    if (eq < 0) throw new FeatureGateError('malformed pair, expect string=bool');
    const key = s.slice(0, eq).trim();
    const text = s.slice(eq + 1).trim();
    const parsed = parseGoBool(text);
    if (parsed === undefined) throw new FeatureGateError(`invalid value of ${key}: ${text}, err: strconv.ParseBool: parsing ${JSON.stringify(text)}: invalid syntax`);
    m.set(key, parsed);
  }
}

/** The gates' values after the flag. */
export class FeatureGates {
  readonly #enabled = new Map<string, boolean>();
  /** Warnings the original logs for GA and deprecated gates that were set. */
  readonly warnings: string[] = [];

  /** @throws FeatureGateError for an unknown gate or a locked one set to another value. */
  constructor(set: ReadonlyMap<string, boolean> = new Map(), table: Readonly<Record<string, FeatureSpec>> = FEATURE_GATES) {
    for (const [name, value] of set) {
      const spec = table[name];
      if (spec === undefined) throw new FeatureGateError(`unrecognized feature gate: ${name}`);
      if (spec.lockToDefault === true && spec.default !== value) {
        throw new FeatureGateError(`cannot set feature gate ${name} to ${value}, feature is locked to ${spec.default}`);
      }
      this.#enabled.set(name, value);
      if (spec.stage === 'DEPRECATED') this.warnings.push(`Setting deprecated feature gate ${name}=${value}. It will be removed in a future release.`);
      else if (spec.stage === 'GA') this.warnings.push(`Setting GA feature gate ${name}=${value}. It will be removed in a future release.`);
    }
    // AllAlpha/AllBeta fill in the gates of their stage not named explicitly.
    for (const [special, stage] of [[ALL_ALPHA, 'ALPHA'], [ALL_BETA, 'BETA']] as const) {
      const all = set.get(special);
      if (all === undefined) continue;
      for (const [name, spec] of Object.entries(table)) {
        if (spec.stage === stage && name !== special && !set.has(name)) this.#enabled.set(name, all);
      }
    }
    this.#table = table;
  }

  readonly #table: Readonly<Record<string, FeatureSpec>>;

  enabled(name: string): boolean {
    const spec = this.#table[name];
    if (spec === undefined) throw new Error(`feature gate ${JSON.stringify(name)} is not registered`);
    return this.#enabled.get(name) ?? spec.default;
  }

  /** `Name=true` for every gate, sorted: for logs and tests. */
  describe(): string[] {
    return Object.keys(this.#table).sort().map((n) => `${n}=${this.enabled(n)}`);
  }
}

/** The flag's help, as the original's: the settable gates (not GA or deprecated), sorted. */
export function featureGatesHelp(table: Readonly<Record<string, FeatureSpec>> = FEATURE_GATES): string {
  const known = Object.entries(table)
    .filter(([, s]) => s.stage !== 'GA' && s.stage !== 'DEPRECATED')
    .map(([n, s]) => `${n}=true|false (${s.stage} - default=${s.default})`)
    .sort();
  return `A set of key=value pairs that describe feature gates for alpha/experimental features. Options are:\n        ${known.join('\n        ')}`;
}
