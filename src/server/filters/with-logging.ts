/**
 * Request logging, after the original's httplog: one JSON line per request
 * at info once the response has ended, with verb, URI, user, status,
 * latency, user agent, source address, front end and protocol.
 *
 * What never goes in: headers other than User-Agent (so no Authorization,
 * cookies or impersonation headers), bodies, and query parameters whose name
 * looks like a credential (`token`, `access_token`, `password`, ...); their
 * values are dropped from the logged URI entirely.
 */
import { stepFinally, type Filter, type RequestContext } from '../context.ts';
import type { Logger } from '../logging.ts';
import { trackedResponse } from './tracked-response.ts';

const SECRET_PARAM = /token|passw|secret|credential|signature|^key$|api[-_]?key|^code$/i;

/** The request URI for logs: path plus query, minus credential-like parameters. */
export function loggableUri(path: string, query: URLSearchParams): string {
  let safe = query;
  for (const key of query.keys()) {
    if (SECRET_PARAM.test(key)) {
      safe = new URLSearchParams([...query].filter(([k]) => !SECRET_PARAM.test(k)));
      break;
    }
  }
  const raw = safe.toString();
  return raw === '' ? path : `${path}?${raw}`;
}

function logLine(ctx: RequestContext, srcIP: string): Record<string, unknown> {
  const req = ctx.req;
  return {
    verb: ctx.info?.verb ?? req.method.toLowerCase(),
    method: req.method,
    uri: loggableUri(req.path, req.query),
    // As the original's audit: `user` is who authenticated; who they acted as goes beside it.
    user: (ctx.impersonator ?? ctx.user)?.name ?? '',
    ...(ctx.impersonator !== undefined ? { impersonatedUser: ctx.user?.name ?? '' } : {}),
    status: ctx.status,
    latencyMs: Math.round((performance.now() - ctx.startedAt) * 1000) / 1000,
    userAgent: req.header('user-agent') ?? '',
    srcIP,
    frontend: req.frontend,
    protocol: req.protocol,
  };
}

export function withLogging(logger: Logger): Filter {
  return (ctx, next) => {
    // Below info (as under --log-level=warn) no line is built at all: the
    // URI, query and headers it reads cost microseconds on every request.
    if (!logger.isLevelEnabled('info')) return next(ctx);
    // Read now: a front end may no longer know it once the response ended.
    const srcIP = ctx.req.remoteAddress;
    const res = trackedResponse(ctx);
    return stepFinally(ctx, next, () => res.onFinished(() => logger.info(logLine(ctx, srcIP), 'HTTP')));
  };
}
