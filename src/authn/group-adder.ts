/**
 * Adds system:authenticated to every user a credential identified, so
 * policies can grant "any logged-in user" without listing methods. As the
 * original's AuthenticatedGroupAdder: not for system:anonymous, and not when
 * the user already carries system:authenticated or system:unauthenticated
 * (an authenticator that chose either has said what the user is).
 */
import type { AuthResult, Authenticator } from './types.ts';
import { GROUP_AUTHENTICATED, GROUP_UNAUTHENTICATED, USER_ANONYMOUS } from './types.ts';
import type { ApiRequest } from '../server/http.ts';

export function addAuthenticatedGroup(result: AuthResult): AuthResult {
  if (result.kind !== 'user') return result;
  const { user } = result;
  if (user.name === USER_ANONYMOUS) return result;
  if (user.groups.some((g) => g === GROUP_AUTHENTICATED || g === GROUP_UNAUTHENTICATED)) return result;
  // A new object: results may be shared through authenticator caches.
  return { ...result, user: { ...user, groups: [...user.groups, GROUP_AUTHENTICATED] } };
}

export class AuthenticatedGroupAdder implements Authenticator {
  readonly name: string;

  constructor(private readonly inner: Authenticator) {
    this.name = inner.name;
  }

  async authenticate(req: ApiRequest): Promise<AuthResult> {
    return addAuthenticatedGroup(await this.inner.authenticate(req));
  }
}
