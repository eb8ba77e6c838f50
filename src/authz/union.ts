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
import { firstDecision, thenMaybe, type Decider, type MaybePromise } from '../api/maybe-promise.ts';

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
    return firstDecision(MODULE_UNION, { all: this.authorizers, attrs, reasons: [], errors: [] });
  }
}

interface ModuleAsk {
  readonly all: readonly Authorizer[];
  readonly attrs: AuthorizationAttributes;
  readonly reasons: string[];
  readonly errors: Error[];
}

const MODULE_UNION: Decider<ModuleAsk, AuthorizationResult, AuthorizationResult> = {
  count: (c) => c.all.length,
  ask: (c, i) => c.all[i]!.authorize(c.attrs),
  take: (c, _i, result) => (isFinal(result, c.reasons) ? result : undefined),
  failed: (c, _i, err) => c.errors.push(err instanceof Error ? err : new Error(String(err))),
  otherwise: (c) => {
    if (c.errors.length > 0) throw new AuthorizationError(c.errors);
    return { decision: 'noOpinion', reason: c.reasons.join('\n') };
  },
};

/** An allow or a deny ends the chain; a reason given with no opinion is kept for the final answer. */
function isFinal(result: AuthorizationResult, reasons: string[]): boolean {
  if (result.decision === 'allow' || result.decision === 'deny') return true;
  if (result.reason !== '') reasons.push(result.reason);
  return false;
}

function denyWithoutOpinion(r: AuthorizationResult): AuthorizationResult {
  return r.decision === 'noOpinion' ? { decision: 'deny', reason: r.reason } : r;
}
