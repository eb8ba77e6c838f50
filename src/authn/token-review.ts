/**
 * What a TokenReview asks (spec 2.9): is this bearer token valid, for whom,
 * and for which of the wanted audiences? Answered by the same token
 * authenticators the request path uses (not client certificates, not the
 * authenticating proxy, never anonymous), as the original's TokenReview
 * storage does with a request carrying nothing but the token.
 *
 * Audiences, as the original:
 * - the wanted audiences are `spec.audiences`, or the API audiences when it
 *   is empty; when both are empty nothing is checked and none are reported;
 * - an audience-aware authenticator (service-account tokens, OIDC) is given
 *   the wanted audiences and reports those the token is valid for;
 * - an audience-agnostic one (token file, bootstrap tokens) counts as valid
 *   exactly for the API audiences: it is skipped when none of them is
 *   wanted, and otherwise reports the overlap (WrapAudienceAgnosticToken);
 * - a recognised user whose audiences do not meet the wanted ones is a
 *   server fault (500 "error validating audiences"), not a quiet yes.
 */
import type { UserInfo } from '../server/context.ts';
import type { AuthResult } from './types.ts';
import type { TokenAuthenticator } from './token.ts';
import { aggregateMessages } from './aggregate.ts';
import { INVALID_BEARER_TOKEN } from './bearer.ts';
import { addAuthenticatedGroup } from './group-adder.ts';

export interface TokenReviewAnswer {
  readonly authenticated: boolean;
  readonly user?: UserInfo | undefined;
  /** Present when audiences were wanted and the token was recognised. */
  readonly audiences?: readonly string[] | undefined;
  /** Why the token was not recognised; never contains the token. */
  readonly error?: string | undefined;
}

export class AudienceValidationError extends Error {
  constructor() {
    super('error validating audiences');
    this.name = 'AudienceValidationError';
  }
}

function intersect(a: readonly string[], b: readonly string[]): string[] {
  const bs = new Set(b);
  return [...new Set(a.filter((x) => bs.has(x)))];
}

const MIN_REDACTED_LENGTH = 8;

export class TokenReviewer {
  readonly #tokens: readonly TokenAuthenticator[];
  readonly #apiAudiences: readonly string[];

  constructor(tokens: readonly TokenAuthenticator[], apiAudiences: readonly string[] = []) {
    this.#tokens = tokens;
    this.#apiAudiences = apiAudiences;
  }

  async review(token: string, wanted: readonly string[], signal?: AbortSignal): Promise<TokenReviewAnswer> {
    const auds = wanted.length > 0 ? wanted : this.#apiAudiences;
    const result = addAuthenticatedGroup(await this.#authenticate(token, auds, signal));
    if (result.kind !== 'user') {
      return { authenticated: false, error: result.kind === 'invalid' ? result.message : INVALID_BEARER_TOKEN };
    }
    if (auds.length > 0 && intersect(auds, result.audiences ?? []).length === 0) throw new AudienceValidationError();
    return { authenticated: true, user: result.user, ...(result.audiences !== undefined ? { audiences: result.audiences } : {}) };
  }

  async #authenticate(token: string, auds: readonly string[], signal: AbortSignal | undefined): Promise<AuthResult> {
    // A token with whitespace could never be sent as one bearer token (bearer.ts rejects it too).
    if (token === '' || /\s/.test(token)) return { kind: 'invalid', message: INVALID_BEARER_TOKEN };
    const failures: string[] = [];
    for (const ta of this.#tokens) {
      let result: AuthResult;
      try {
        if (ta.audienceAware === true) {
          result = await ta.authenticateToken(token, signal, auds.length > 0 ? auds : undefined);
        } else if (auds.length > 0) {
          const valid = intersect(this.#apiAudiences, auds);
          if (valid.length === 0) continue;
          result = await ta.authenticateToken(token, signal);
          if (result.kind === 'user') result = { ...result, audiences: valid };
        } else {
          result = await ta.authenticateToken(token, signal);
        }
      } catch (err) {
        failures.push(`${ta.name}: ${err instanceof Error ? err.message : String(err)}`);
        continue;
      }
      if (result.kind === 'user') return result;
      if (result.kind === 'invalid') failures.push(result.message);
    }
    if (failures.length === 0) return { kind: 'invalid', message: INVALID_BEARER_TOKEN };
    // The answer goes back to the client: a last guard that no message repeats the token.
    const message = aggregateMessages(failures);
    return { kind: 'invalid', message: token.length >= MIN_REDACTED_LENGTH ? message.split(token).join('[redacted]') : message };
  }
}
