/**
 * Authorization, after the original's WithAuthorization: the request's
 * attributes (from ctx.info and ctx.user) go to the authorizer; anything but
 * `allow` ends the request with 403 Forbidden and the original's message, e.g.
 *
 *   pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "default"
 *   forbidden: User "bob" cannot get path "/logs"
 *
 * with `: <reason>` appended when the authorizer gave one. An authorizer that
 * throws gives a 500 (panic recovery), never an allow.
 */
import { stepWith, type Filter, type RequestInfo, type UserInfo } from '../context.ts';
import type { AuthorizationAttributes, Authorizer } from '../../authz/types.ts';
import { StatusError, errors } from '../../api/status.ts';
import { writeStatus } from './write-status.ts';

export function authorizationAttributes(info: RequestInfo, user: UserInfo): AuthorizationAttributes {
  return {
    user,
    verb: info.verb,
    isResourceRequest: info.isResourceRequest,
    path: info.path,
    namespace: info.namespace,
    apiGroup: info.apiGroup,
    apiVersion: info.apiVersion,
    resource: info.resource,
    subresource: info.subresource,
    name: info.name,
  };
}

/** Go's %q for the strings we quote (names, paths): close enough to JSON string syntax. */
function q(s: string): string {
  return JSON.stringify(s);
}

/** Keeps error text from looking like HTML, as the original's sanitizer does (quotes stay). */
function sanitize(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function forbiddenMessage(a: AuthorizationAttributes): string {
  const user = a.user.name;
  if (!a.isResourceRequest) return `User ${q(user)} cannot ${a.verb} path ${q(a.path)}`;
  const resource = a.subresource === '' ? a.resource : `${a.resource}/${a.subresource}`;
  if (a.namespace !== '') {
    return `User ${q(user)} cannot ${a.verb} resource ${q(resource)} in API group ${q(a.apiGroup)} in the namespace ${q(a.namespace)}`;
  }
  return `User ${q(user)} cannot ${a.verb} resource ${q(resource)} in API group ${q(a.apiGroup)} at the cluster scope`;
}

/** The 403 the original sends for these attributes and the authorizer's reason. */
export function forbiddenError(a: AuthorizationAttributes, reason: string): StatusError {
  const msg = sanitize(forbiddenMessage(a));
  const text = reason === '' ? msg : `${msg}: ${reason}`;
  // An empty group/resource pair prints as plain "forbidden: ...".
  if (a.apiGroup === '' && a.resource === '') return errors.forbiddenMessage(`forbidden: ${text}`);
  return errors.forbidden(a.apiGroup, a.resource, a.name, text);
}

export function withAuthorization(authorizer: Authorizer): Filter {
  return (ctx, next) => {
    const { info, user } = ctx;
    if (info === undefined || user === undefined) {
      throw new Error('authorization without request info or user: handler chain must be wrong');
    }
    const attrs = authorizationAttributes(info, user);
    // A cached decision goes on in the same turn; only a webhook's round trip awaits.
    return stepWith(authorizer.authorize(attrs), (result) => {
      ctx.authorization = result;
      if (result.decision === 'allow') return next(ctx);
      writeStatus(ctx.res, forbiddenError(attrs, result.reason));
      return undefined;
    });
  };
}
