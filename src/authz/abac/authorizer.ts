/**
 * The ABAC mode: the first policy matching the request allows it; none
 * matching is "no opinion" ("No policy matched."), as the original's
 * PolicyList. Matching, after pkg/auth/authorizer/abac/abac.go:
 *
 * - subject: `user` (exact or `*`) and `group` (one of the user's groups, or
 *   `*`); a policy naming neither matches nobody;
 * - verb: read-only requests (get, list, watch) match every policy, others
 *   only policies without `readonly`;
 * - resource requests: `namespace`, `resource`, `apiGroup` each exact or `*`;
 * - non-resource requests: `nonResourcePath` exact, `*`, or a prefix ending in `*`.
 */
import type { UserInfo } from '../../server/context.ts';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from '../types.ts';
import type { NonResourceRuleInfo, ResourceRuleInfo, RulesResult } from '../rule-resolver.ts';
import type { PolicySpec } from './policy.ts';

const ALLOW: AuthorizationResult = Object.freeze({ decision: 'allow', reason: '' });
const NO_MATCH: AuthorizationResult = Object.freeze({ decision: 'noOpinion', reason: 'No policy matched.' });
const READ_VERBS = ['get', 'list', 'watch'];

export function subjectMatches(p: PolicySpec, user: UserInfo): boolean {
  let matched = false;
  if (p.user !== '') {
    if (p.user === '*') matched = true;
    else if (p.user === user.name) matched = true;
    else return false;
  }
  if (p.group !== '') {
    if (p.group === '*') matched = true;
    else if (user.groups.includes(p.group)) matched = true;
    else return false;
  }
  return matched;
}

function verbMatches(p: PolicySpec, a: AuthorizationAttributes): boolean {
  return READ_VERBS.includes(a.verb) || !p.readonly;
}

function resourceMatches(p: PolicySpec, a: AuthorizationAttributes): boolean {
  if (!a.isResourceRequest) return false;
  return (
    (p.namespace === '*' || p.namespace === a.namespace) &&
    (p.resource === '*' || p.resource === a.resource) &&
    (p.apiGroup === '*' || p.apiGroup === a.apiGroup)
  );
}

function nonResourceMatches(p: PolicySpec, a: AuthorizationAttributes): boolean {
  if (a.isResourceRequest) return false;
  const want = p.nonResourcePath;
  if (want === '*' || want === a.path) return true;
  return want.endsWith('*') && a.path.startsWith(want.replace(/\*+$/, ''));
}

export function policyMatches(p: PolicySpec, a: AuthorizationAttributes): boolean {
  return subjectMatches(p, a.user) && verbMatches(p, a) && (resourceMatches(p, a) || nonResourceMatches(p, a));
}

export class AbacAuthorizer implements Authorizer {
  readonly name = 'ABAC';

  constructor(private readonly policies: readonly PolicySpec[]) {}

  authorize(attrs: AuthorizationAttributes): AuthorizationResult {
    for (const p of this.policies) if (policyMatches(p, attrs)) return ALLOW;
    return NO_MATCH;
  }

  /** Every policy of the user in the namespace, complete (the original's PolicyList.RulesFor). */
  rulesFor(user: UserInfo, namespace: string): RulesResult {
    const resourceRules: ResourceRuleInfo[] = [];
    const nonResourceRules: NonResourceRuleInfo[] = [];
    for (const p of this.policies) {
      if (!subjectMatches(p, user)) continue;
      if (p.namespace !== '*' && p.namespace !== namespace) continue;
      const verbs = p.readonly ? READ_VERBS : ['*'];
      if (p.resource !== '') resourceRules.push({ verbs, apiGroups: [p.apiGroup], resources: [p.resource], resourceNames: [] });
      if (p.nonResourcePath !== '') nonResourceRules.push({ verbs, nonResourceURLs: [p.nonResourcePath] });
    }
    return { resourceRules, nonResourceRules, incomplete: false };
  }
}
