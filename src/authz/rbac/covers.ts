/**
 * Covers, after the original's rbac/validation policy_comparator.go: does a
 * set of owner rules grant everything a set of requested rules grants?
 * Requested rules are broken into atomic rules (one verb, one group, one
 * resource, one name or URL) and each must be covered by one owner rule.
 * Exact-string semantics as the original: `*` in a requested rule is only
 * covered by `*` in an owner rule.
 */
import type { PolicyRule } from './types.ts';

function has(set: readonly string[] | undefined, s: string): boolean {
  return set !== undefined && set.includes(s);
}

function hasAll(set: readonly string[] | undefined, items: readonly string[] | undefined): boolean {
  for (const i of items ?? []) if (!has(set, i)) return false;
  return true;
}

function resourceCoversAll(owner: readonly string[] | undefined, requested: readonly string[] | undefined): boolean {
  if (has(owner, '*') || hasAll(owner, requested)) return true;
  for (const path of requested ?? []) {
    if (has(owner, path)) continue;
    const slash = path.indexOf('/');
    if (slash < 0) return false;
    if (!has(owner, `*/${path.slice(slash + 1)}`)) return false;
  }
  return true;
}

function nonResourceURLCovers(owner: string, requested: string): boolean {
  if (owner === requested) return true;
  if (!owner.endsWith('*')) return false;
  return requested.startsWith(owner.replace(/\*+$/, ''));
}

function nonResourceURLsCoverAll(owner: readonly string[] | undefined, requested: readonly string[] | undefined): boolean {
  for (const r of requested ?? []) {
    if (!(owner ?? []).some((o) => nonResourceURLCovers(o, r))) return false;
  }
  return true;
}

/** ruleCovers: does one owner rule cover one (atomic) requested rule? */
export function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = has(owner.verbs, '*') || hasAll(owner.verbs, sub.verbs);
  const groups = has(owner.apiGroups, '*') || hasAll(owner.apiGroups, sub.apiGroups);
  const resources = resourceCoversAll(owner.resources, sub.resources);
  const urls = nonResourceURLsCoverAll(owner.nonResourceURLs, sub.nonResourceURLs);
  const ownerNames = owner.resourceNames ?? [];
  const subNames = sub.resourceNames ?? [];
  const names = subNames.length === 0 ? ownerNames.length === 0 : ownerNames.length === 0 || hasAll(ownerNames, subNames);
  return verbs && groups && resources && names && urls;
}

/** BreakdownRule: one rule per group × resource × verb (× name), and per URL × verb. */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        const names = rule.resourceNames ?? [];
        if (names.length > 0) for (const name of names) out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [name] });
        else out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) for (const verb of rule.verbs) out.push({ nonResourceURLs: [url], verbs: [verb] });
  return out;
}

/** Whether `owner` covers all of `requested`, and the atomic rules it does not cover. */
export function covers(owner: readonly PolicyRule[], requested: readonly PolicyRule[]): { covered: boolean; uncovered: PolicyRule[] } {
  const uncovered: PolicyRule[] = [];
  for (const rule of requested) {
    for (const atom of breakdownRule(rule)) {
      if (!owner.some((o) => ruleCovers(o, atom))) uncovered.push(atom);
    }
  }
  return { covered: uncovered.length === 0, uncovered };
}

/** The original's CompactString of a rule: `{APIGroups:["apps"], Resources:["deployments"], Verbs:["get"]}`. */
export function compactRuleString(rule: PolicyRule): string {
  const q = (xs: readonly string[]): string => `[${xs.map((x) => JSON.stringify(x)).join(' ')}]`;
  const parts: string[] = [];
  if ((rule.apiGroups ?? []).length > 0) parts.push(`APIGroups:${q(rule.apiGroups!)}`);
  if ((rule.resources ?? []).length > 0) parts.push(`Resources:${q(rule.resources!)}`);
  if ((rule.nonResourceURLs ?? []).length > 0) parts.push(`NonResourceURLs:${q(rule.nonResourceURLs!)}`);
  if ((rule.resourceNames ?? []).length > 0) parts.push(`ResourceNames:${q(rule.resourceNames!)}`);
  parts.push(`Verbs:${q(rule.verbs)}`);
  return `{${parts.join(', ')}}`;
}
