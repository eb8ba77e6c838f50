/** The RBAC authorization mode: decisions from the thread's watch-fed policy. */
import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from '../types.ts';
import type { RbacPolicy } from './policy.ts';
import type { NonResourceRuleInfo, ResourceRuleInfo, RulesResult } from '../rule-resolver.ts';
import type { UserInfo } from '../../server/context.ts';

export class RbacAuthorizer implements Authorizer {
  readonly name = 'RBAC';
  readonly #policy: RbacPolicy;

  constructor(policy: RbacPolicy) {
    this.#policy = policy;
  }

  authorize(attrs: AuthorizationAttributes): AuthorizationResult {
    return this.#policy.authorize(attrs);
  }

  /** What SelfSubjectRulesReview lists: every rule reaching the user in the namespace (RBAC lists completely). */
  rulesFor(user: UserInfo, namespace: string): RulesResult {
    const { rules, errors } = this.#policy.rulesFor(user, namespace);
    const resourceRules: ResourceRuleInfo[] = [];
    const nonResourceRules: NonResourceRuleInfo[] = [];
    for (const r of rules) {
      if ((r.resources ?? []).length > 0) {
        resourceRules.push({ verbs: [...r.verbs], apiGroups: [...(r.apiGroups ?? [])], resources: [...(r.resources ?? [])], resourceNames: [...(r.resourceNames ?? [])] });
      }
      if ((r.nonResourceURLs ?? []).length > 0) nonResourceRules.push({ verbs: [...r.verbs], nonResourceURLs: [...r.nonResourceURLs!] });
    }
    // Resolution errors (a binding to a missing role) make the lists a lower bound, as the original says.
    return errors.length > 0 ? { resourceRules, nonResourceRules, incomplete: true, evaluationError: errors.join(', ') } : { resourceRules, nonResourceRules, incomplete: false };
  }
}
