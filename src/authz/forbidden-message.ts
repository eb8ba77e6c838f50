/**
 * The 403 text the original sends (responsewriters.Forbidden and
 * apierrors.NewForbidden), byte for byte, since clients and scripts match on
 * it:
 *
 *   pods "web" is forbidden: User "bob" cannot get resource "pods" in API group "" in the namespace "default"
 *   forbidden: User "bob" cannot get path "/foo": <reason>
 *
 * The user-derived part is HTML-escaped (&, <, >) as the original does, so a
 * crafted user or path name cannot inject markup into a browser showing the
 * error; the authorizer's reason is appended as is.
 */
import { StatusError, qualifiedResource, type StatusDetails } from '../api/status.ts';
import { goQuote } from '../selectors/go-format.ts';
import type { AuthorizationAttributes } from './types.ts';

const HTML_SPECIALS: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

function sanitize(s: string): string {
  return s.replace(/[&<>]/g, (c) => HTML_SPECIALS[c]!);
}

/** `User "bob" cannot list resource "pods" in API group "" in the namespace "default"` (no reason). */
export function forbiddenMessage(attrs: AuthorizationAttributes): string {
  const user = goQuote(attrs.user.name);
  if (!attrs.isResourceRequest) {
    return `User ${user} cannot ${attrs.verb} path ${goQuote(attrs.path)}`;
  }
  const resource = attrs.subresource !== '' ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  const scope = attrs.namespace !== '' ? `in the namespace ${goQuote(attrs.namespace)}` : 'at the cluster scope';
  return `User ${user} cannot ${attrs.verb} resource ${goQuote(resource)} in API group ${goQuote(attrs.apiGroup)} ${scope}`;
}

/** The sanitized message plus `: <reason>` when the authorizer gave one. */
export function forbiddenReasonMessage(attrs: AuthorizationAttributes, reason: string): string {
  const msg = sanitize(forbiddenMessage(attrs));
  return reason === '' ? msg : `${msg}: ${reason}`;
}

/** The whole 403 Status error, message and details as the original builds them. */
export function forbiddenError(attrs: AuthorizationAttributes, reason: string): StatusError {
  const text = forbiddenReasonMessage(attrs, reason);
  // The original names the resource (not the subresource) and the object;
  // a non-resource request has neither, and gets `forbidden: ...`.
  const group = attrs.isResourceRequest ? attrs.apiGroup : '';
  const resource = attrs.isResourceRequest ? attrs.resource : '';
  const name = attrs.isResourceRequest ? attrs.name : '';
  let message: string;
  if (group === '' && resource === '') message = `forbidden: ${text}`;
  else if (name === '') message = `${qualifiedResource(group, resource)} is forbidden: ${text}`;
  else message = `${qualifiedResource(group, resource)} ${goQuote(name)} is forbidden: ${text}`;
  // Empty fields are left out, as Go's omitempty leaves them out.
  const details: StatusDetails = {};
  if (name !== '') details.name = name;
  if (group !== '') details.group = group;
  if (resource !== '') details.kind = resource;
  return new StatusError(403, 'Forbidden', message, details);
}
