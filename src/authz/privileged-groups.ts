/**
 * PrivilegedGroupsAuthorizer, after the original's authorizerfactory
 * NewPrivilegedGroups: members of the named groups are allowed everything,
 * everyone else gets no opinion. The original puts it first in the union for
 * every --authorization-mode (even AlwaysDeny), so the superuser group
 * (system:masters) can always reach a server whose policy locks out the rest.
 */
import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from './types.ts';

const ALLOW: AuthorizationResult = Object.freeze({ decision: 'allow', reason: '' });
const NO_OPINION: AuthorizationResult = Object.freeze({ decision: 'noOpinion', reason: '' });

export class PrivilegedGroupsAuthorizer implements Authorizer {
  readonly name = 'PrivilegedGroups';
  readonly #groups: ReadonlySet<string>;

  constructor(groups: readonly string[]) {
    this.#groups = new Set(groups);
  }

  authorize(attrs: AuthorizationAttributes): AuthorizationResult {
    for (const g of attrs.user.groups) if (this.#groups.has(g)) return ALLOW;
    return NO_OPINION;
  }
}
