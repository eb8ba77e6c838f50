/**
 * Authenticator contract. An authenticator looks at a request and either
 * recognises a user, rejects the credentials it owns (an invalid bearer
 * token: 401, never anonymous), or has no opinion (no credential of its kind).
 */
import type { ApiRequest } from '../server/http.ts';
import type { UserInfo } from '../server/context.ts';

export type AuthResult =
  | {
      kind: 'user';
      user: UserInfo;
      /** Which method recognised the user, for logs and metrics. */
      method: string;
      /** Audiences the credential is valid for, when the method checks them (token-review.ts). */
      audiences?: readonly string[] | undefined;
    }
  | { kind: 'invalid'; message: string }
  | { kind: 'none' };

export interface Authenticator {
  readonly name: string;
  authenticate(req: ApiRequest): Promise<AuthResult> | AuthResult;
}

export const GROUP_AUTHENTICATED = 'system:authenticated';
export const GROUP_UNAUTHENTICATED = 'system:unauthenticated';
export const USER_ANONYMOUS = 'system:anonymous';
export const GROUP_MASTERS = 'system:masters';
