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

  async authorize(attrs: AuthorizationAttributes): Promise<AuthorizationResult> {
    const r = await this.decide(attrs);
    return r.decision === 'noOpinion' ? { decision: 'deny', reason: r.reason } : r;
  }

  /**
   * As authorize, but "no module had an opinion" stays noOpinion: access
   * reviews answer `denied: true` only for an explicit deny, as the original.
   */
  async decide(attrs: AuthorizationAttributes): Promise<AuthorizationResult> {
    const reasons: string[] = [];
    const errors: Error[] = [];
    for (const a of this.authorizers) {
      let result: AuthorizationResult;
      try {
        result = await a.authorize(attrs);
      } catch (err) {
        errors.push(err instanceof Error ? err : new Error(String(err)));
        continue;
      }
      if (result.decision === 'allow' || result.decision === 'deny') return result;
      if (result.reason !== '') reasons.push(result.reason);
    }
    if (errors.length > 0) throw new AuthorizationError(errors);
    return { decision: 'noOpinion', reason: reasons.join('\n') };
  }
}
