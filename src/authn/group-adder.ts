/**
 * Adds system:authenticated to every user a credential identified, so
 * policies can grant "any logged-in user" without listing methods. As the
 * original's AuthenticatedGroupAdder: not for system:anonymous, and not when
 * the user already carries system:authenticated or system:unauthenticated
 * (an authenticator that chose either has said what the user is).
 */
import type { AuthResult, Authenticator } from './types.ts';
import type { UserInfo } from '../server/context.ts';
import { GROUP_AUTHENTICATED, GROUP_UNAUTHENTICATED, USER_ANONYMOUS } from './types.ts';
import type { ApiRequest } from '../server/http.ts';
import { thenMaybe, type MaybePromise } from '../api/maybe-promise.ts';

/**
 * The user with the group added, per user object: authenticators' caches hand
 * out the same object for the same credential, so each request gets the same
 * answer too (one copy per user, not per request; and what keys its caches by
 * the user object, such as the audit event's encoded user, hits).
 */
const withGroup = new WeakMap<UserInfo, UserInfo>();
/** Shared (frozen) results with the group added, per result: such a result is answered with one object, not a copy per request. */
const sharedResults = new WeakMap<AuthResult, AuthResult>();

export function addAuthenticatedGroup(result: AuthResult): AuthResult {
  if (result.kind !== 'user') return result;
  const { user } = result;
  if (user.name === USER_ANONYMOUS) return result;
  const shared = Object.isFrozen(result);
  if (shared) {
    const known = sharedResults.get(result);
    if (known !== undefined) return known;
  }
  if (user.groups.some((g) => g === GROUP_AUTHENTICATED || g === GROUP_UNAUTHENTICATED)) return result;
  let added = withGroup.get(user);
  if (added === undefined) {
    // A new object: results may be shared through authenticator caches.
    added = { ...user, groups: [...user.groups, GROUP_AUTHENTICATED] };
    withGroup.set(user, added);
  }
  if (!shared) return { ...result, user: added };
  const answer: AuthResult = Object.freeze({ ...result, user: added });
  sharedResults.set(result, answer);
  return answer;
}

export class AuthenticatedGroupAdder implements Authenticator {
  readonly name: string;

  constructor(private readonly inner: Authenticator) {
    this.name = inner.name;
  }

  authenticate(req: ApiRequest): MaybePromise<AuthResult> {
    return thenMaybe(this.inner.authenticate(req), addAuthenticatedGroup);
  }
}
