/**
 * Pod Security levels, policy versions and the namespace labels that choose
 * them, as the original's k8s.io/pod-security-admission/api (v1.25):
 * `<prefix>enforce|audit|warn` name a level, `<prefix>*-version` a version
 * (`latest` or `v1.<minor>`); a label that is absent falls back to the
 * configured default. A bad enforce label is evaluated as restricted:latest
 * (fail closed); a bad audit or warn level as privileged (fail open).
 */
import { names } from '../../../naming/index.ts';
import { fieldErrors, type FieldError } from '../../../registry/strategy.ts';

export type Level = 'privileged' | 'baseline' | 'restricted';

export const LEVELS: readonly Level[] = ['privileged', 'baseline', 'restricted'];

/** A policy version: `latest`, or v1.<minor>. Compared by value (`major`, `minor`, `latest`). */
export interface Version {
  readonly major: number;
  readonly minor: number;
  readonly latest: boolean;
}

export const LATEST: Version = { major: 0, minor: 0, latest: true };

export function majorMinor(major: number, minor: number): Version {
  return { major, minor, latest: false };
}

export function versionString(v: Version): string {
  return v.latest ? 'latest' : `v${v.major}.${v.minor}`;
}

/** Whether `a` is older than `b` (latest is newer than every version, even future ones). */
export function older(a: Version, b: Version): boolean {
  if (a.latest) return false;
  if (b.latest) return true;
  return a.major !== b.major ? a.major < b.major : a.minor < b.minor;
}

export function sameVersion(a: Version, b: Version): boolean {
  return a.latest === b.latest && a.major === b.major && a.minor === b.minor;
}

export interface LevelVersion {
  readonly level: Level;
  readonly version: Version;
}

export function levelVersionString(lv: LevelVersion): string {
  return `${lv.level}:${versionString(lv.version)}`;
}

export function sameLevelVersion(a: LevelVersion, b: LevelVersion): boolean {
  return a.level === b.level && sameVersion(a.version, b.version);
}

/** Both privileged, or the same level and version. */
export function equivalentLevelVersion(a: LevelVersion, b: LevelVersion): boolean {
  return (a.level === 'privileged' && b.level === 'privileged') || sameLevelVersion(a, b);
}

export interface Policy {
  readonly enforce: LevelVersion;
  readonly audit: LevelVersion;
  readonly warn: LevelVersion;
}

export function fullyPrivileged(p: Policy): boolean {
  return p.enforce.level === 'privileged' && p.audit.level === 'privileged' && p.warn.level === 'privileged';
}

export function equivalentPolicy(a: Policy, b: Policy): boolean {
  return equivalentLevelVersion(a.enforce, b.enforce) && equivalentLevelVersion(a.audit, b.audit) && equivalentLevelVersion(a.warn, b.warn);
}

/** The modes that are not privileged (`enforce=baseline:latest, warn=restricted:v1.24`), or `privileged`. */
export function compactPolicyString(p: Policy): string {
  const parts: string[] = [];
  if (p.enforce.level !== 'privileged') parts.push(`enforce=${levelVersionString(p.enforce)}`);
  if (p.audit.level !== 'privileged') parts.push(`audit=${levelVersionString(p.audit)}`);
  if (p.warn.level !== 'privileged') parts.push(`warn=${levelVersionString(p.warn)}`);
  return parts.length === 0 ? 'privileged' : parts.join(', ');
}

/** -1 when `a` is less strict than `b`, 0 when equal, 1 when stricter. */
export function compareLevels(a: Level, b: Level): number {
  if (a === b) return 0;
  if (a === 'privileged') return -1;
  if (a === 'restricted') return 1;
  return b === 'privileged' ? 1 : -1;
}

export const LEVEL_ERROR = `must be one of ${LEVELS.join(', ')}`;
export const VERSION_ERROR = 'must be "latest" or "v1.x"';

/** A level, or undefined when the text names none. */
export function parseLevel(text: string): Level | undefined {
  return (LEVELS as readonly string[]).includes(text) ? (text as Level) : undefined;
}

const VERSION_RE = /^v1\.([0-9]|[1-9][0-9]*)$/;

/** A version, or undefined when the text is neither `latest` nor `v1.<minor>`. */
export function parseVersion(text: string): Version | undefined {
  if (text === 'latest') return LATEST;
  const m = VERSION_RE.exec(text);
  if (m === null) return undefined;
  const minor = Number(m[1]);
  return Number.isSafeInteger(minor) ? majorMinor(1, minor) : undefined;
}

/** The six label keys in this flavor. */
export const LABELS = {
  enforce: `${names.podSecurity.prefix}enforce`,
  enforceVersion: `${names.podSecurity.prefix}enforce-version`,
  audit: `${names.podSecurity.prefix}audit`,
  auditVersion: `${names.podSecurity.prefix}audit-version`,
  warn: `${names.podSecurity.prefix}warn`,
  warnVersion: `${names.podSecurity.prefix}warn-version`,
} as const;

/** Keys of the audit annotations the plugin leaves (`<prefix><key>`). */
export const AUDIT_KEYS = {
  exempt: `${names.podSecurity.prefix}exempt`,
  auditViolations: `${names.podSecurity.prefix}audit-violations`,
  enforcePolicy: `${names.podSecurity.prefix}enforce-policy`,
  error: `${names.podSecurity.prefix}error`,
} as const;

/**
 * The policy a namespace's labels ask for, over `defaults`, and the label
 * errors found. A usable policy is always answered: a bad level or version
 * reads as restricted / latest, except audit and warn levels, which fail open.
 */
export function policyToEvaluate(labels: Readonly<Record<string, string>> | undefined, defaults: Policy): { policy: Policy; errors: FieldError[] } {
  if (labels === undefined || labels === null || typeof labels !== 'object') return { policy: defaults, errors: [] };
  const errors: FieldError[] = [];
  const read = (key: string): string | undefined => (Object.prototype.hasOwnProperty.call(labels, key) && typeof labels[key] === 'string' ? labels[key] : undefined);
  const level = (key: string, current: Level, failOpen: boolean): Level => {
    const text = read(key);
    if (text === undefined) return current;
    const l = parseLevel(text);
    if (l !== undefined) return l;
    errors.push(fieldErrors.invalid(`metadata.labels[${key}]`, text, LEVEL_ERROR));
    return failOpen ? 'privileged' : 'restricted';
  };
  const version = (key: string, current: Version): Version => {
    const text = read(key);
    if (text === undefined) return current;
    const v = parseVersion(text);
    if (v !== undefined) return v;
    errors.push(fieldErrors.invalid(`metadata.labels[${key}]`, text, VERSION_ERROR));
    return LATEST;
  };
  const enforceLevel = level(LABELS.enforce, defaults.enforce.level, false);
  const enforceVersion = version(LABELS.enforceVersion, defaults.enforce.version);
  const auditLevel = level(LABELS.audit, defaults.audit.level, true);
  const auditVersion = version(LABELS.auditVersion, defaults.audit.version);
  const warnLevel = level(LABELS.warn, defaults.warn.level, true);
  const warnVersion = version(LABELS.warnVersion, defaults.warn.version);
  return {
    policy: {
      enforce: { level: enforceLevel, version: enforceVersion },
      audit: { level: auditLevel, version: auditVersion },
      warn: { level: warnLevel, version: warnVersion },
    },
    errors,
  };
}

export const PRIVILEGED_LATEST: LevelVersion = { level: 'privileged', version: LATEST };

/** The default when no configuration says otherwise: everything privileged:latest. */
export const DEFAULT_POLICY: Policy = { enforce: PRIVILEGED_LATEST, audit: PRIVILEGED_LATEST, warn: PRIVILEGED_LATEST };
