/**
 * Authentication, after the original's WithAuthentication: ask the
 * authenticator (a union of methods, anonymous last when enabled) who is
 * calling. A recognised user goes on ctx.user; rejected credentials or no
 * user at all end the request with 401 Unauthorized, whose message is always
 * just "Unauthorized" so it tells a prober nothing about why.
 *
 * Unlike the original we do not strip the Authorization header: ApiRequest is
 * read-only, and nothing downstream logs or forwards headers.
 */
import { stepWith, type Filter, type Next, type RequestContext, type Step } from '../context.ts';
import type { AuthResult } from '../../authn/types.ts';
import type { Authenticator } from '../../authn/types.ts';
import type { Logger } from '../logging.ts';
import { errors } from '../../api/status.ts';
import { writeStatus } from './write-status.ts';
import { withoutHeaders } from '../masked-request.ts';

export interface AuthenticationFilterOptions {
  /**
   * Headers (lower-case names) that carry identity for an authenticator and
   * must not reach anything after authentication, whoever sent them: the
   * authenticating proxy's (request-header.ts). Removed from every request.
   */
  readonly stripHeaders?: ((lowerName: string) => boolean) | undefined;
}

export function withAuthentication(authenticator: Authenticator, logger: Logger, options: AuthenticationFilterOptions = {}): Filter {
  const { stripHeaders } = options;
  const authenticated = (ctx: RequestContext, next: Next, result: AuthResult): Step => {
    if (stripHeaders !== undefined) ctx.req = withoutHeaders(ctx.req, stripHeaders);
    if (result.kind !== 'user') {
      if (result.kind === 'invalid') {
        // The reason stays in our log (debug: bad clients can be noisy), never in the response.
        logger.debug({ path: ctx.req.path, reason: result.message }, 'Unable to authenticate the request');
      }
      writeStatus(ctx.res, errors.unauthorized());
      return undefined;
    }
    ctx.user = result.user;
    return next(ctx);
  };
  // A cached or local answer (a token file, a certificate) goes on in the same turn; only a real wait awaits.
  return (ctx, next) => stepWith(authenticator.authenticate(ctx.req), (result) => authenticated(ctx, next, result));
}
