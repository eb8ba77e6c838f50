/**
 * A filter chain with fake authentication, authorization and an API handler
 * whose behaviour each request picks with the `x-test` header, for the chain
 * tests. Log lines are captured in memory.
 */
import { buildHandlerChain, DEFAULT_CHAIN_OPTIONS, type HandlerChainOptions } from '../../src/server/chain.ts';
import type { Filter, RequestContext } from '../../src/server/context.ts';
import type { RequestHandler } from '../../src/server/http.ts';
import type { Authenticator, AuthResult } from '../../src/authn/types.ts';
import { GROUP_AUTHENTICATED, GROUP_MASTERS } from '../../src/authn/types.ts';
import type { Authorizer, AuthorizationResult } from '../../src/authz/types.ts';
import { errors } from '../../src/api/status.ts';
import { createLogger } from '../../src/server/logging.ts';
import { createMetrics, type ApiserverMetrics } from '../../src/server/metrics.ts';
import { HealthChecks, healthHandler, isHealthPath } from '../../src/server/health/index.ts';
import { exchange, type FakeRequestInit, type FakeResponse } from './fake-http.ts';

export const TOKENS: Readonly<Record<string, { name: string; groups: string[] }>> = {
  'alice-token': { name: 'alice', groups: [GROUP_AUTHENTICATED] },
  'bob-token': { name: 'bob', groups: [GROUP_AUTHENTICATED] },
  'carol-token': { name: 'carol', groups: [GROUP_AUTHENTICATED] },
  'admin-token': { name: 'admin', groups: [GROUP_MASTERS, GROUP_AUTHENTICATED] },
};

const authenticator: Authenticator = {
  name: 'fake-bearer',
  authenticate(req): AuthResult {
    const h = req.header('authorization');
    if (h === undefined) return { kind: 'none' };
    const token = h.replace(/^Bearer /, '');
    if (token === 'explode') throw new Error('authenticator backend unreachable at 10.0.0.7:443');
    const user = TOKENS[token];
    if (user === undefined) return { kind: 'invalid', message: 'invalid bearer token' };
    return { kind: 'user', user, method: 'token' };
  },
};

/** alice and admin may do anything; bob has no permissions; carol is denied with a reason. */
const authorizer: Authorizer = {
  name: 'fake',
  authorize(attrs): AuthorizationResult {
    if (attrs.user.name === 'alice' || attrs.user.name === 'admin') return { decision: 'allow', reason: '' };
    if (attrs.user.name === 'carol') return { decision: 'deny', reason: 'no RBAC policy matched' };
    return { decision: 'noOpinion', reason: '' };
  },
};

export interface Harness {
  readonly handle: RequestHandler;
  readonly metrics: ApiserverMetrics;
  readonly health: HealthChecks;
  readonly logs: Record<string, unknown>[];
  readonly rawLogs: string[];
  /** Contexts the API handler saw, in order. */
  readonly seen: RequestContext[];
  /** Lets every request held by `x-test: slow` finish. */
  release(): void;
  /** Sends a request and waits until the chain returned. */
  send(method: string, url: string, init?: FakeRequestInit & { token?: string; test?: string }): Promise<FakeResponse>;
  /** Starts a request without waiting; `done` settles when the chain returns. */
  start(method: string, url: string, init?: FakeRequestInit & { token?: string; test?: string }): { res: FakeResponse; done: Promise<void>; disconnect: () => void };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export function createHarness(options: Partial<HandlerChainOptions> = {}, extra: { audit?: Filter; auditFailedAuthentication?: Filter } = {}): Harness {
  const rawLogs: string[] = [];
  const logs: Record<string, unknown>[] = [];
  const logger = createLogger({
    level: 'debug',
    destination: {
      write(line: string) {
        rawLogs.push(line);
        logs.push(JSON.parse(line) as Record<string, unknown>);
      },
    },
  });
  const metrics = createMetrics();
  const health = new HealthChecks();
  const serveHealth = healthHandler(health, logger);
  const seen: RequestContext[] = [];
  let releaseHeld: () => void = () => {};
  let held = new Promise<void>((r) => (releaseHeld = r));

  const handler = async (ctx: RequestContext): Promise<void> => {
    seen.push(ctx);
    if (isHealthPath(ctx.req.path)) return serveHealth(ctx);
    if (ctx.req.path === '/metrics') return metrics.metricsHandler(ctx);
    const test = ctx.req.header('x-test');
    switch (test) {
      case 'panic':
        throw new Error('secret internals: storage at /var/lib/orch/db failed');
      case 'status-error':
        throw errors.notFound('', 'pods', 'missing');
      case 'no-answer':
        return;
      case 'slow':
        await Promise.race([held, new Promise<void>((r) => ctx.signal.addEventListener('abort', () => r(), { once: true }))]);
        break;
      case 'throw-on-abort':
        // What a storage call does when its signal fires.
        await new Promise<void>((r) => ctx.signal.addEventListener('abort', () => r(), { once: true }));
        throw ctx.signal.reason;
      case 'stall-mid-body':
        // A streamed answer (a large LIST in pieces) whose next piece does not come before the deadline.
        ctx.res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
        ctx.res.write(new TextEncoder().encode('{"kind":"PodList","items":['));
        await new Promise<void>((r) => ctx.signal.addEventListener('abort', () => r(), { once: true }));
        return;
      case 'late-write':
        // Ignores its deadline, then tries to answer anyway.
        await sleep(120);
        ctx.res.writeHead(200, { 'content-type': 'application/json' });
        ctx.res.end('{"late":true}');
        return;
    }
    if (ctx.info?.verb === 'watch') {
      ctx.res.writeHead(200, { 'content-type': 'application/json' });
      ctx.res.write(new TextEncoder().encode('{"type":"ADDED"}\n'));
      await new Promise<void>((r) => ctx.signal.addEventListener('abort', () => r(), { once: true }));
      ctx.res.end();
      return;
    }
    if (ctx.res.closed) return;
    ctx.res.writeHead(200, { 'content-type': 'application/json' });
    ctx.res.end(JSON.stringify({ path: ctx.req.path, verb: ctx.info?.verb }));
  };

  const handle = buildHandlerChain({
    audit: extra.audit,
    auditFailedAuthentication: extra.auditFailedAuthentication,
    authenticator,
    authorizer,
    handler,
    logger,
    metrics,
    options: { ...DEFAULT_CHAIN_OPTIONS, ...options },
  });

  const start: Harness['start'] = (method, url, init = {}) => {
    const headers: Record<string, string | readonly string[]> = { 'user-agent': 'kubectl/v1.30 (test)', ...(init.headers ?? {}) };
    if (init.token !== undefined) headers['authorization'] = `Bearer ${init.token}`;
    if (init.test !== undefined) headers['x-test'] = init.test;
    const ex = exchange(method, url, { ...init, headers });
    return { res: ex.res, done: Promise.resolve(handle(ex.req, ex.res)), disconnect: ex.disconnect };
  };

  return {
    handle,
    metrics,
    health,
    logs,
    rawLogs,
    seen,
    release() {
      releaseHeld();
      held = new Promise<void>((r) => (releaseHeld = r));
    },
    async send(method, url, init) {
      const { res, done } = start(method, url, init);
      await done;
      return res;
    },
    start,
  };
}
