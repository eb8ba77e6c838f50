/**
 * The check registry, as the original's policy/registry.go: for every
 * policy version from v1.0 to the newest a check names, the ordered list of
 * checks of each level, built once. Restricted runs the baseline checks too,
 * minus those its own revisions override. Versions past the newest (and
 * `latest`) use the newest list. Order is fixed (baseline IDs sorted, then
 * restricted IDs sorted) so that messages are stable.
 */
import { majorMinor, older, versionString, type LevelVersion, type Version } from './api.ts';
import type { Check, CheckFn, CheckResult, VersionedCheck } from './checks.ts';
import type { PodView } from './pod-view.ts';

export interface AggregateResult {
  readonly allowed: boolean;
  readonly reasons: readonly string[];
  readonly details: readonly string[];
}

const nextMinor = (v: Version): Version => (v.latest ? v : majorMinor(v.major, v.minor + 1));

export class Evaluator {
  readonly #baseline = new Map<string, CheckFn[]>();
  readonly #restricted = new Map<string, CheckFn[]>();
  readonly maxVersion: Version;

  constructor(checks: readonly Check[]) {
    validateChecks(checks);
    let max = majorMinor(1, 0);
    for (const c of checks) {
      const last = c.versions[c.versions.length - 1]!.minimumVersion;
      if (older(max, last)) max = last;
    }
    this.maxVersion = max;
    const baselineIds = checks.filter((c) => c.level === 'baseline').map((c) => c.id).sort();
    const restrictedIds = checks.filter((c) => c.level === 'restricted').map((c) => c.id).sort();
    const orderedIds = [...baselineIds, ...restrictedIds];
    const byId = new Map(checks.map((c) => [c.id, c]));
    for (let v = majorMinor(1, 0); older(v, nextMinor(max)); v = nextMinor(v)) {
      const baseline = new Map<string, VersionedCheck>();
      const restricted = new Map<string, VersionedCheck>();
      for (const id of orderedIds) {
        const c = byId.get(id)!;
        const revision = revisionAt(c, v);
        if (revision !== undefined) (c.level === 'baseline' ? baseline : restricted).set(id, revision);
      }
      const overridden = new Set<string>();
      for (const r of restricted.values()) for (const o of r.overrides ?? []) overridden.add(o);
      const restrictedAll = new Map(restricted);
      for (const [id, r] of baseline) if (!overridden.has(id)) restrictedAll.set(id, r);
      const ordered = (m: Map<string, VersionedCheck>): CheckFn[] => orderedIds.filter((id) => m.has(id)).map((id) => m.get(id)!.check);
      this.#baseline.set(versionString(v), ordered(baseline));
      this.#restricted.set(versionString(v), ordered(restrictedAll));
    }
  }

  /** Every check result for the level and version (empty for privileged). */
  evaluate(lv: LevelVersion, pod: PodView): CheckResult[] {
    if (lv.level === 'privileged') return [];
    const v = older(this.maxVersion, lv.version) ? this.maxVersion : lv.version;
    const checks = (lv.level === 'baseline' ? this.#baseline : this.#restricted).get(versionString(v)) ?? [];
    return checks.map((check) => check(pod));
  }

  /** The aggregate verdict: allowed when every check allows. */
  evaluateAggregate(lv: LevelVersion, pod: PodView): AggregateResult {
    return aggregate(this.evaluate(lv, pod));
  }
}

/** The revision of a check that applies at version `v`, if any (the last whose minimum is not newer than `v`). */
function revisionAt(c: Check, v: Version): VersionedCheck | undefined {
  let found: VersionedCheck | undefined;
  for (const r of c.versions) if (!older(v, r.minimumVersion)) found = r;
  return found;
}

export const UNKNOWN_FORBIDDEN_REASON = 'unknown forbidden reason';

export function aggregate(results: readonly CheckResult[]): AggregateResult {
  const reasons: string[] = [];
  const details: string[] = [];
  for (const r of results) {
    if (r.allowed) continue;
    reasons.push(r.reason ? r.reason : UNKNOWN_FORBIDDEN_REASON);
    details.push(r.detail ?? '');
  }
  return { allowed: reasons.length === 0, reasons, details };
}

/** `host ports, privileged` (namespace checks list reasons only). */
export function forbiddenReason(r: AggregateResult): string {
  return r.reasons.join(', ');
}

/** `host ports (8080, 9090), privileged (container "c" must not ...)`. */
export function forbiddenDetail(r: AggregateResult): string {
  return r.reasons.map((reason, i) => (r.details[i] ? `${reason} (${r.details[i]})` : reason)).join(', ');
}

/** The original's NewEvaluator checks: unique IDs, strictly increasing versions, overrides only of baseline checks by restricted ones. */
function validateChecks(checks: readonly Check[]): void {
  const levels = new Map<string, string>();
  for (const c of checks) {
    if (levels.has(c.id)) throw new Error(`multiple checks registered for ID ${c.id}`);
    levels.set(c.id, c.level);
    if (c.versions.length === 0) throw new Error(`check ${c.id}: empty`);
    let prev: Version | undefined;
    for (const r of c.versions) {
      if (r.minimumVersion.latest) throw new Error(`check ${c.id}: version cannot be 'latest'`);
      if (prev !== undefined && !older(prev, r.minimumVersion)) throw new Error(`check ${c.id}: versions must be strictly increasing`);
      prev = r.minimumVersion;
    }
  }
  for (const c of checks) {
    for (const r of c.versions) {
      if (!r.overrides || r.overrides.length === 0) continue;
      if (c.level !== 'restricted') throw new Error(`check ${c.id}: only restricted checks may set overrides`);
      for (const o of r.overrides) {
        const l = levels.get(o);
        if (l !== undefined && l !== 'baseline') throw new Error(`check ${c.id}: overrides ${l} check ${o}`);
      }
    }
  }
}
