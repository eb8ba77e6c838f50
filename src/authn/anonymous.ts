/**
 * Anonymous access (--anonymous-auth): a request that carried no credential
 * any other method recognised or rejected becomes system:anonymous in group
 * system:unauthenticated. union.ts consults it last and only when the other
 * methods all had no opinion.
 */
import type { AuthResult, Authenticator } from './types.ts';
import { GROUP_UNAUTHENTICATED, USER_ANONYMOUS } from './types.ts';

export const ANONYMOUS_METHOD = 'anonymous';

const ANONYMOUS_RESULT: AuthResult = Object.freeze({
  kind: 'user',
  user: Object.freeze({ name: USER_ANONYMOUS, groups: Object.freeze([GROUP_UNAUTHENTICATED]) }),
  method: ANONYMOUS_METHOD,
});

export class AnonymousAuthenticator implements Authenticator {
  readonly name = ANONYMOUS_METHOD;

  authenticate(): AuthResult {
    return ANONYMOUS_RESULT;
  }
}

/**
 * Whether anonymous access is really on. As the original does, the
 * AlwaysAllow authorizer turns it off (anyone reaching the server would
 * otherwise be allowed everything); the warning says so for the log.
 */
export function effectiveAnonymousAuth(
  requested: boolean,
  authorizationModes: readonly string[],
): { readonly enabled: boolean; readonly warning?: string } {
  if (requested && authorizationModes.includes('AlwaysAllow')) {
    return {
      enabled: false,
      warning:
        'AnonymousAuth is not allowed with the AlwaysAllow authorizer. Resetting AnonymousAuth to false. You should use a different authorizer',
    };
  }
  return { enabled: requested };
}
