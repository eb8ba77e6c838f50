/**
 * What a caller may do, listed rather than decided: the original's
 * authorizer.RuleResolver. SelfSubjectRulesReview asks every mode of the
 * chain that can list its rules (`rulesFor`); a mode that cannot (Node,
 * Webhook) answers `incomplete`, and so does a mode without `rulesFor`.
 * RBAC implements it on its authorizer; so do AlwaysAllow, AlwaysDeny, ABAC.
 */
import type { UserInfo } from '../server/context.ts';
import { pushAll } from '../api/push-all.ts';

export interface ResourceRuleInfo {
  readonly verbs: readonly string[];
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly resourceNames: readonly string[];
}

export interface NonResourceRuleInfo {
  readonly verbs: readonly string[];
  readonly nonResourceURLs: readonly string[];
}

export interface RulesResult {
  readonly resourceRules: readonly ResourceRuleInfo[];
  readonly nonResourceRules: readonly NonResourceRuleInfo[];
  /** Some rules could not be listed: the lists are a lower bound. */
  readonly incomplete: boolean;
  /** Why the lists may be incomplete (no secret in it). */
  readonly evaluationError?: string | undefined;
}

export interface RuleResolver {
  rulesFor(user: UserInfo, namespace: string): Promise<RulesResult> | RulesResult;
}

/**
 * The union of the modes' rules, as the original's ruleResolvers union:
 * everything every resolver lists, incomplete if any is, errors joined.
 */
export class UnionRuleResolver implements RuleResolver {
  constructor(private readonly resolvers: readonly (RuleResolver | undefined)[]) {}

  async rulesFor(user: UserInfo, namespace: string): Promise<RulesResult> {
    const resourceRules: ResourceRuleInfo[] = [];
    const nonResourceRules: NonResourceRuleInfo[] = [];
    const errors: string[] = [];
    let incomplete = false;
    for (const r of this.resolvers) {
      if (r === undefined) {
        incomplete = true;
        continue;
      }
      let res: RulesResult;
      try {
        res = await r.rulesFor(user, namespace);
      } catch (err) {
        incomplete = true;
        errors.push(err instanceof Error ? err.message : String(err));
        continue;
      }
      pushAll(resourceRules, res.resourceRules);
      pushAll(nonResourceRules, res.nonResourceRules);
      if (res.incomplete) incomplete = true;
      if (res.evaluationError !== undefined && res.evaluationError !== '') errors.push(res.evaluationError);
    }
    const evaluationError = errors.length === 0 ? undefined : errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`;
    return { resourceRules, nonResourceRules, incomplete, evaluationError };
  }
}
