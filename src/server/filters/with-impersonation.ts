/**
 * Impersonation, placed where the original's WithImpersonation sits (after
 * authentication, before flow control and authorization). This server does
 * not implement impersonation yet, so a request that asks for it is refused
 * instead of silently running as the caller: acting as the caller when the
 * client believes it acts as someone else would apply the wrong policy and
 * write the wrong identity into managed fields and audit.
 *
 * The answer is the 403 the original sends to a caller that may not
 * impersonate (on this server no one may), e.g.
 *
 *   users "jane" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope: impersonation is not supported by this server
 *
 * 403 rather than 501 because it is what clients already understand for
 * `--as` (kubectl prints it as Forbidden and does not retry), and it is true:
 * no identity is allowed to impersonate here. Groups, a uid or extras
 * without Impersonate-User are a malformed request: 400 BadRequest (the
 * original answers 500 with a similar text; the fault is the client's).
 */
import type { Filter, UserInfo } from '../context.ts';
import type { ApiRequest } from '../http.ts';
import { errors } from '../../api/status.ts';
import { forbiddenError } from '../../authz/forbidden-message.ts';
import type { AuthorizationAttributes } from '../../authz/types.ts';
import { writeStatus } from './write-status.ts';

export const IMPERSONATE_USER = 'impersonate-user';
export const IMPERSONATE_GROUP = 'impersonate-group';
export const IMPERSONATE_UID = 'impersonate-uid';
export const IMPERSONATE_EXTRA_PREFIX = 'impersonate-extra-';

export const IMPERSONATION_UNSUPPORTED = 'impersonation is not supported by this server';

const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

/**
 * True when the request asks for impersonation, read as the original reads
 * the headers: a user or uid counts when non-empty, a group or extra header
 * whenever present.
 */
export function asksForImpersonation(req: ApiRequest): boolean {
  if ((req.header(IMPERSONATE_USER) ?? '') !== '' || (req.header(IMPERSONATE_UID) ?? '') !== '') return true;
  for (const name of req.headerNames()) {
    if (name === IMPERSONATE_GROUP || name.startsWith(IMPERSONATE_EXTRA_PREFIX)) return true;
  }
  return false;
}

/** The original's attributes for "may the caller impersonate this user?" (users, or serviceaccounts for SA names). */
function impersonateUserAttributes(caller: UserInfo, target: string): AuthorizationAttributes {
  const base = { user: caller, verb: 'impersonate', isResourceRequest: true, path: '', apiGroup: '', apiVersion: 'v1', subresource: '' };
  if (target.startsWith(SERVICE_ACCOUNT_PREFIX)) {
    const [namespace = '', name = ''] = target.slice(SERVICE_ACCOUNT_PREFIX.length).split(':');
    if (namespace !== '' && name !== '') return { ...base, resource: 'serviceaccounts', namespace, name };
  }
  return { ...base, resource: 'users', namespace: '', name: target };
}

export function withImpersonation(): Filter {
  return async (ctx, next) => {
    if (!asksForImpersonation(ctx.req)) {
      await next();
      return;
    }
    const target = ctx.req.header(IMPERSONATE_USER) ?? '';
    if (target === '') {
      writeStatus(ctx.res, errors.badRequest('requested impersonation of groups, a uid or extra fields without impersonating a user'));
      return;
    }
    writeStatus(ctx.res, forbiddenError(impersonateUserAttributes(ctx.user!, target), IMPERSONATION_UNSUPPORTED));
  };
}
