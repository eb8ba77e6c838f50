/** The RBAC authorization mode: decisions from the thread's watch-fed policy. */
import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from '../types.ts';
import type { RbacPolicy } from './policy.ts';

export class RbacAuthorizer implements Authorizer {
  readonly name = 'RBAC';
  readonly #policy: RbacPolicy;

  constructor(policy: RbacPolicy) {
    this.#policy = policy;
  }

  authorize(attrs: AuthorizationAttributes): AuthorizationResult {
    return this.#policy.authorize(attrs);
  }
}
