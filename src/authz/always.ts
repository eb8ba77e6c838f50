/**
 * The two trivial authorization modes.
 *
 * AlwaysDeny answers "no opinion" with a reason, exactly as the original's
 * alwaysDenyAuthorizer does: alone it denies everything (a union with no
 * opinion denies, and the 403 carries "Everything is forbidden."), while a
 * later mode in the list may still allow. It is a testing mode in both.
 */
import type { AuthorizationResult, Authorizer } from './types.ts';
import type { RulesResult } from './rule-resolver.ts';

const ALLOW: AuthorizationResult = Object.freeze({ decision: 'allow', reason: '' });
const DENY: AuthorizationResult = Object.freeze({ decision: 'noOpinion', reason: 'Everything is forbidden.' });
const ALL_RULES: RulesResult = Object.freeze({
  resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], resourceNames: [] }],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
  incomplete: false,
});
const NO_RULES: RulesResult = Object.freeze({ resourceRules: [], nonResourceRules: [], incomplete: false });

export class AlwaysAllowAuthorizer implements Authorizer {
  readonly name = 'AlwaysAllow';

  authorize(): AuthorizationResult {
    return ALLOW;
  }

  /** Everything, as the original's alwaysAllowAuthorizer lists it. */
  rulesFor(): RulesResult {
    return ALL_RULES;
  }
}

export class AlwaysDenyAuthorizer implements Authorizer {
  readonly name = 'AlwaysDeny';

  authorize(): AuthorizationResult {
    return DENY;
  }

  rulesFor(): RulesResult {
    return NO_RULES;
  }
}
