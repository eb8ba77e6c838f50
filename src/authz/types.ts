/**
 * Authorizer contract: attributes of a request in, a decision out. Modules
 * form a union that stops at the first allow or deny; when none has an
 * opinion the request is denied (403).
 */
import type { UserInfo } from '../server/context.ts';
import type { RulesResult } from './rule-resolver.ts';

export interface AuthorizationAttributes {
  readonly user: UserInfo;
  readonly verb: string;
  readonly isResourceRequest: boolean;
  /** Non-resource requests: the request path. */
  readonly path: string;
  readonly namespace: string;
  readonly apiGroup: string;
  readonly apiVersion: string;
  readonly resource: string;
  readonly subresource: string;
  readonly name: string;
}

export type Decision = 'allow' | 'deny' | 'noOpinion';

export interface AuthorizationResult {
  readonly decision: Decision;
  /** Why, for the 403 message and audit. */
  readonly reason: string;
}

export interface Authorizer {
  readonly name: string;
  authorize(attrs: AuthorizationAttributes): Promise<AuthorizationResult> | AuthorizationResult;
  /** The rules `user` has in `namespace`, for SelfSubjectRulesReview; absent: this mode cannot list (incomplete). */
  rulesFor?(user: UserInfo, namespace: string): Promise<RulesResult> | RulesResult;
}
