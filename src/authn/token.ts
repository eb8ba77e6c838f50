/**
 * Token authenticators judge a bearer token already taken out of the request
 * (static token file now; service-account, bootstrap, OIDC and webhook
 * tokens later). They see only the token, so each can be cached and composed
 * the same way; bearer.ts turns a list of them into a request Authenticator.
 *
 * Kept beside types.ts rather than in it so the shared contract stays
 * untouched; it may move there once other owners implement it.
 */
import type { AuthResult } from './types.ts';

export interface TokenAuthenticator {
  readonly name: string;
  /**
   * `user` when the token is recognised, `invalid` when this authenticator
   * owns the token's format but rejects it (bad signature, expired), `none`
   * when the token is not one of its own. Messages must never contain the
   * token.
   */
  authenticateToken(token: string, signal?: AbortSignal, audiences?: readonly string[]): Promise<AuthResult> | AuthResult;
  /**
   * True when the authenticator checks `audiences` itself and reports the
   * ones the token is valid for in the result (service-account tokens, OIDC).
   * Others are audience-agnostic: as the original wraps them, they are taken
   * to be valid exactly for the API audiences (token-review.ts).
   */
  readonly audienceAware?: boolean;
  /**
   * True when it answers from memory, never waiting on I/O: it is then called
   * without the request's signal (making one costs microseconds a request).
   */
  readonly inMemory?: boolean;
}
