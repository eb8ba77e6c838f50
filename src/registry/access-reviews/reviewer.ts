/**
 * The running authorizer chain as the access reviews see it. The review
 * types are registered before the chain exists (the chain's Node graph
 * watches need the registry and store), so the server binds it once built;
 * a review arriving before that is a 503, never a guess.
 */
import { errors } from '../../api/status.ts';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from '../../authz/types.ts';
import type { RuleResolver, RulesResult } from '../../authz/rule-resolver.ts';
import type { UserInfo } from '../../server/context.ts';
import { UnionAuthorizer } from '../../authz/union.ts';

export class AccessReviewer {
  #authorizer: Authorizer | undefined;
  #rules: RuleResolver | undefined;

  bind(authorizer: Authorizer, rules: RuleResolver | undefined): void {
    this.#authorizer = authorizer;
    this.#rules = rules;
  }

  async authorize(attrs: AuthorizationAttributes): Promise<AuthorizationResult> {
    if (this.#authorizer === undefined) throw errors.serviceUnavailable('the authorizer is not ready');
    // The chain's own answer: "nobody allowed" is not an explicit deny.
    if (this.#authorizer instanceof UnionAuthorizer) return this.#authorizer.decide(attrs);
    return this.#authorizer.authorize(attrs);
  }

  /** The caller's rules; without a resolver the answer is empty and incomplete. */
  async rulesFor(user: UserInfo, namespace: string): Promise<RulesResult> {
    if (this.#authorizer === undefined) throw errors.serviceUnavailable('the authorizer is not ready');
    if (this.#rules === undefined) return { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'no rule resolver' };
    return this.#rules.rulesFor(user, namespace);
  }
}
