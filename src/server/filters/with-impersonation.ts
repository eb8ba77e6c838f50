/**
 * Impersonation (spec 5.7), placed where the original's WithImpersonation
 * sits: after authentication, before flow control and authorization.
 *
 * The headers ask to act as someone else:
 *   Impersonate-User          the user (system:serviceaccount:<ns>:<name> names a service account)
 *   Impersonate-Group         a group; repeatable
 *   Impersonate-Uid           the uid
 *   Impersonate-Extra-<key>   an extra value; the key lower-cased and percent-decoded; repeatable
 *
 * Each requested item is authorized for the caller with verb `impersonate`,
 * as the original builds the attributes:
 *   users            group ''                       name = the user
 *   serviceaccounts  group '', namespace + name     of system:serviceaccount:<ns>:<name>
 *   groups           group ''                       name = the group
 *   uids             group authentication.<suffix>  name = the uid
 *   userextras/<key> group authentication.<suffix>  name = the value
 * The first refusal ends the request with the original's 403. Groups, a uid
 * or extras without a user are a malformed request: 400 (the original
 * answers 500 for it; the fault is the client's).
 *
 * Then the request runs as the new identity: a service account without
 * explicit groups gets its fixed groups; system:authenticated is added to
 * any non-anonymous user whose groups name neither system:authenticated nor
 * system:unauthenticated, and system:unauthenticated to system:anonymous.
 * The caller stays on ctx.impersonator for the log line (and audit). The
 * Impersonate-* headers are removed from the request before the handler.
 */
import type { Filter, Next, RequestContext, UserInfo } from '../context.ts';
import type { ApiRequest } from '../http.ts';
import { errors } from '../../api/status.ts';
import { forbiddenError } from '../../authz/forbidden-message.ts';
import type { AuthorizationAttributes, Authorizer } from '../../authz/types.ts';
import { GROUP_AUTHENTICATED, GROUP_UNAUTHENTICATED, USER_ANONYMOUS } from '../../authn/types.ts';
import { isDNS1123Label, isDNS1123Subdomain } from '../../registry/validation/names.ts';
import { apiGroup } from '../../naming/index.ts';
import { withoutHeaders } from '../masked-request.ts';
import { writeStatus } from './write-status.ts';

export const IMPERSONATE_USER = 'impersonate-user';
export const IMPERSONATE_GROUP = 'impersonate-group';
export const IMPERSONATE_UID = 'impersonate-uid';
export const IMPERSONATE_EXTRA_PREFIX = 'impersonate-extra-';

export const SERVICE_ACCOUNT_USER_PREFIX = 'system:serviceaccount:';
export const SERVICE_ACCOUNTS_GROUP = 'system:serviceaccounts';

const AUTHENTICATION_GROUP = apiGroup('authentication');

/** One thing the caller asks to impersonate, with the resource it is authorized as. */
export interface ImpersonationItem {
  readonly resource: 'users' | 'serviceaccounts' | 'groups' | 'uids' | 'userextras';
  readonly apiGroup: string;
  readonly namespace: string;
  readonly name: string;
  /** The extra key, for userextras. */
  readonly subresource: string;
}

/** What a request impersonating no one asks: shared, and frozen so no caller can add to it. */
const NO_ITEMS = Object.freeze([]) as unknown as ImpersonationItem[];

function isImpersonationHeader(name: string): boolean {
  return name === IMPERSONATE_USER || name === IMPERSONATE_GROUP || name === IMPERSONATE_UID || name.startsWith(IMPERSONATE_EXTRA_PREFIX);
}

/** Go's url.PathUnescape, keeping the key as sent when it is malformed (as the original). */
function unescapeExtraKey(encoded: string): string {
  if (!encoded.includes('%') || !/^(?:[^%]|%[0-9A-Fa-f]{2})*$/.test(encoded)) return encoded;
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}

/** The namespace and name of a service-account user name, as the original's SplitUsername accepts them. */
export function splitServiceAccountUser(user: string): { namespace: string; name: string } | undefined {
  if (!user.startsWith(SERVICE_ACCOUNT_USER_PREFIX)) return undefined;
  const parts = user.slice(SERVICE_ACCOUNT_USER_PREFIX.length).split(':');
  if (parts.length !== 2) return undefined;
  const [namespace, name] = parts as [string, string];
  if (isDNS1123Label(namespace).length > 0 || isDNS1123Subdomain(name).length > 0) return undefined;
  return { namespace, name };
}

/**
 * What the headers ask to impersonate, in the original's order (user, groups,
 * extras, uid); [] when nothing; a string (the 400 message) when groups, a uid
 * or extras come without a user.
 */
export function impersonationItems(req: ApiRequest): ImpersonationItem[] | string {
  // Nearly every request impersonates no one: one pass over the names answers that (~1,000 instructions a
  // request under callgrind went to the lookups and closures below).
  if (!req.headerNames().some(isImpersonationHeader)) return NO_ITEMS;
  const items: ImpersonationItem[] = [];
  const item = (resource: ImpersonationItem['resource'], group: string, name: string, namespace = '', subresource = ''): ImpersonationItem => ({
    resource,
    apiGroup: group,
    namespace,
    name,
    subresource,
  });
  const user = req.headerValues(IMPERSONATE_USER)[0] ?? '';
  if (user !== '') {
    const sa = splitServiceAccountUser(user);
    items.push(sa !== undefined ? item('serviceaccounts', '', sa.name, sa.namespace) : item('users', '', user));
  }
  const groups = req.headerValues(IMPERSONATE_GROUP);
  for (const g of groups) items.push(item('groups', '', g));
  let hasExtra = false;
  for (const header of req.headerNames()) {
    if (!header.startsWith(IMPERSONATE_EXTRA_PREFIX)) continue;
    hasExtra = true;
    const key = unescapeExtraKey(header.slice(IMPERSONATE_EXTRA_PREFIX.length));
    for (const v of req.headerValues(header)) items.push(item('userextras', AUTHENTICATION_GROUP, v, '', key));
  }
  const uid = req.headerValues(IMPERSONATE_UID)[0] ?? '';
  if (uid !== '') items.push(item('uids', AUTHENTICATION_GROUP, uid));
  if ((groups.length > 0 || hasExtra || uid !== '') && user === '') {
    return 'requested impersonation of groups, a uid or extra fields without impersonating a user';
  }
  return items;
}

function attributesFor(caller: UserInfo, it: ImpersonationItem): AuthorizationAttributes {
  return {
    user: caller,
    verb: 'impersonate',
    isResourceRequest: true,
    path: '',
    namespace: it.namespace,
    apiGroup: it.apiGroup,
    apiVersion: 'v1',
    resource: it.resource,
    subresource: it.subresource,
    name: it.name,
  };
}

/** The identity the request acts as, built from authorized items (and whether groups were given). */
export function impersonatedUser(items: readonly ImpersonationItem[], groupsSpecified: boolean): UserInfo {
  let name = '';
  let uid = '';
  const groups: string[] = [];
  const extra = new Map<string, string[]>();
  for (const it of items) {
    switch (it.resource) {
      case 'serviceaccounts':
        name = `${SERVICE_ACCOUNT_USER_PREFIX}${it.namespace}:${it.name}`;
        if (!groupsSpecified) groups.push(SERVICE_ACCOUNTS_GROUP, `${SERVICE_ACCOUNTS_GROUP}:${it.namespace}`);
        break;
      case 'users':
        name = it.name;
        break;
      case 'groups':
        groups.push(it.name);
        break;
      case 'userextras': {
        const values = extra.get(it.subresource);
        if (values === undefined) extra.set(it.subresource, [it.name]);
        else values.push(it.name);
        break;
      }
      case 'uids':
        uid = it.name;
        break;
    }
  }
  if (name !== USER_ANONYMOUS) {
    if (!groups.some((g) => g === GROUP_AUTHENTICATED || g === GROUP_UNAUTHENTICATED)) groups.push(GROUP_AUTHENTICATED);
  } else if (!groups.includes(GROUP_UNAUTHENTICATED)) {
    groups.push(GROUP_UNAUTHENTICATED);
  }
  return {
    name,
    ...(uid !== '' ? { uid } : {}),
    groups,
    // fromEntries: a key such as `__proto__` becomes a plain own property.
    ...(extra.size > 0 ? { extra: Object.fromEntries(extra) } : {}),
  };
}

export function withImpersonation(authorizer: Authorizer): Filter {
  return (ctx, next) => {
    const items = impersonationItems(ctx.req);
    if (typeof items === 'string') {
      writeStatus(ctx.res, errors.badRequest(items));
      return undefined;
    }
    if (items.length === 0) return next(ctx);
    return impersonate(ctx, next, items);
  };

  /** A request that asks to act as someone else: each item authorized (in turn: the first refusal answers). */
  async function impersonate(ctx: RequestContext, next: Next, items: readonly ImpersonationItem[]): Promise<void> {
    const caller = ctx.user;
    if (caller === undefined) throw new Error('impersonation without an authenticated user: handler chain must be wrong');
    for (const it of items) {
      const attrs = attributesFor(caller, it);
      let decision: { decision: string; reason: string };
      try {
        decision = await authorizer.authorize(attrs);
      } catch (err) {
        // As the original: a failing authorizer is a refusal here, never an allow.
        decision = { decision: 'deny', reason: err instanceof Error ? err.message : String(err) };
      }
      if (decision.decision !== 'allow') {
        writeStatus(ctx.res, forbiddenError(attrs, decision.reason));
        return;
      }
    }
    ctx.impersonator = caller;
    ctx.user = impersonatedUser(items, ctx.req.headerValues(IMPERSONATE_GROUP).length > 0);
    ctx.req = withoutHeaders(ctx.req, isImpersonationHeader);
    await next(ctx);
  }
}
