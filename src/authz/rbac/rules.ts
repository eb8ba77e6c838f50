/**
 * One PolicyRule compiled for matching, after the original's
 * rbac/v1 helpers (VerbMatches, APIGroupMatches, ResourceMatches,
 * ResourceNameMatches, NonResourceURLMatches): lists become sets, `*` a flag,
 * `*\/sub` rules a set of subresources, `prefix*` URLs a prefix list. A
 * match is then a handful of Set lookups.
 */
import type { AuthorizationAttributes } from '../types.ts';
import type { PolicyRule } from './types.ts';

const ALL = '*';

export interface CompiledRule {
  readonly allVerbs: boolean;
  readonly verbs: ReadonlySet<string>;
  readonly allGroups: boolean;
  readonly groups: ReadonlySet<string>;
  readonly allResources: boolean;
  /** Exact `resource` and `resource/sub` entries. */
  readonly resources: ReadonlySet<string>;
  /** Subresources of `*\/sub` entries. */
  readonly anySubresources: ReadonlySet<string>;
  /** null: every name. */
  readonly names: ReadonlySet<string> | null;
  readonly allUrls: boolean;
  readonly urls: ReadonlySet<string>;
  readonly urlPrefixes: readonly string[];
  /** Has non-resource URLs (then it never matches resource requests, and vice versa). */
  readonly nonResource: boolean;
  readonly resourceRule: boolean;
}

export function compileRule(rule: PolicyRule): CompiledRule {
  const verbs = rule.verbs;
  const groups = rule.apiGroups ?? [];
  const resources = rule.resources ?? [];
  const names = rule.resourceNames ?? [];
  const urls = rule.nonResourceURLs ?? [];
  const exactResources = new Set<string>();
  const anySub = new Set<string>();
  for (const r of resources) {
    if (r.startsWith('*/') && r.length > 2) anySub.add(r.slice(2));
    else exactResources.add(r);
  }
  const exactUrls = new Set<string>();
  const prefixes: string[] = [];
  for (const u of urls) {
    if (u !== ALL && u.endsWith('*')) prefixes.push(u.replace(/\*+$/, ''));
    else exactUrls.add(u);
  }
  return {
    allVerbs: verbs.includes(ALL),
    verbs: new Set(verbs),
    allGroups: groups.includes(ALL),
    groups: new Set(groups),
    allResources: resources.includes(ALL),
    resources: exactResources,
    anySubresources: anySub,
    names: names.length === 0 ? null : new Set(names),
    allUrls: urls.includes(ALL),
    urls: exactUrls,
    urlPrefixes: prefixes,
    nonResource: urls.length > 0,
    resourceRule: resources.length > 0,
  };
}

/** RuleAllows: does this rule grant the request? */
export function ruleAllows(rule: CompiledRule, attrs: AuthorizationAttributes): boolean {
  if (!rule.allVerbs && !rule.verbs.has(attrs.verb)) return false;
  if (attrs.isResourceRequest) {
    if (!rule.resourceRule) return false;
    if (!rule.allGroups && !rule.groups.has(attrs.apiGroup)) return false;
    if (!rule.allResources) {
      const sub = attrs.subresource;
      const combined = sub === '' ? attrs.resource : `${attrs.resource}/${sub}`;
      if (!rule.resources.has(combined) && !(sub !== '' && rule.anySubresources.has(sub))) return false;
    }
    return rule.names === null || rule.names.has(attrs.name);
  }
  if (!rule.nonResource) return false;
  if (rule.allUrls || rule.urls.has(attrs.path)) return true;
  for (const p of rule.urlPrefixes) if (attrs.path.startsWith(p)) return true;
  return false;
}
