/**
 * Authorization modes in order (spec 5.8): the first module that allows or
 * denies decides; when none has an opinion the request is denied, with the
 * modules' reasons joined by newlines (as the original joins them).
 *
 * A module that fails (throws) does not end the evaluation: a later module
 * may still decide, as in the original. If none does, the failure is raised
 * (the filter answers 500), since "no opinion" would hide a broken module.
 */
import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from './types.ts';
import { isPromiseLike, thenMaybe, type MaybePromise } from '../api/maybe-promise.ts';

export class AuthorizationError extends Error {
  constructor(readonly causes: readonly Error[]) {
    super(causes.length === 1 ? causes[0]!.message : `[${[...new Set(causes.map((c) => c.message))].join(', ')}]`);
    this.name = 'AuthorizationError';
  }
}

export class UnionAuthorizer implements Authorizer {
  readonly name: string;

  constructor(private readonly authorizers: readonly Authorizer[]) {
    this.name = authorizers.map((a) => a.name).join(',');
  }

  authorize(attrs: AuthorizationAttributes): MaybePromise<AuthorizationResult> {
    return thenMaybe(this.decide(attrs), denyWithoutOpinion);
  }

  /**
   * As authorize, but "no module had an opinion" stays noOpinion: access
   * reviews answer `denied: true` only for an explicit deny, as the original.
   * In the same turn while every module answers at once (RBAC over watched
   * roles, Node, AlwaysAllow); from the first that must wait (a webhook) on,
   * asynchronously.
   */
  decide(attrs: AuthorizationAttributes): MaybePromise<AuthorizationResult> {
    return this.#decideFrom(attrs, 0, [], []);
  }

  #decideFrom(attrs: AuthorizationAttributes, from: number, reasons: string[], errors: Error[]): MaybePromise<AuthorizationResult> {
    const all = this.authorizers;
    for (let i = from; i < all.length; i++) {
      let answer: MaybePromise<AuthorizationResult>;
      try {
        answer = all[i]!.authorize(attrs);
      } catch (err) {
        errors.push(asError(err));
        continue;
      }
      if (isPromiseLike(answer)) {
        return Promise.resolve(answer).then(
          (result) => (isFinal(result, reasons) ? result : this.#decideFrom(attrs, i + 1, reasons, errors)),
          (err: unknown) => {
            errors.push(asError(err));
            return this.#decideFrom(attrs, i + 1, reasons, errors);
          },
        );
      }
      if (isFinal(answer, reasons)) return answer;
    }
    if (errors.length > 0) throw new AuthorizationError(errors);
    return { decision: 'noOpinion', reason: reasons.join('\n') };
  }
}

/** An allow or a deny ends the chain; a reason given with no opinion is kept for the final answer. */
function isFinal(result: AuthorizationResult, reasons: string[]): boolean {
  if (result.decision === 'allow' || result.decision === 'deny') return true;
  if (result.reason !== '') reasons.push(result.reason);
  return false;
}

function denyWithoutOpinion(r: AuthorizationResult): AuthorizationResult {
  return r.decision === 'noOpinion' ? { decision: 'deny', reason: r.reason } : r;
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
