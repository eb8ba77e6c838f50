/**
 * Serves /healthz, /livez, /readyz and /<endpoint>/<check> in the original's
 * plain-text format (pkg/server/healthz/healthz.go):
 *
 *   GET /readyz?verbose&exclude=etcd     200
 *   [+]ping ok
 *   [+]etcd excluded: ok
 *   [+]shutdown ok
 *   readyz check passed
 *
 * A failing check prints `[-]<name> failed: reason withheld` (these paths are
 * public; the reason goes to our log) and the whole answer becomes 500 with
 * the full list, verbose or not. Without `verbose` success is just `ok`.
 * /<endpoint>/<check> runs one check: `ok`, or 500 with its error, for
 * humans. An unknown check name is 404. Machines must rely on the code.
 */
import type { RequestContext } from '../context.ts';
import type { Logger } from '../logging.ts';
import { errors } from '../../api/status.ts';
import type { HealthChecks, HealthEndpoint, NamedHealthCheck } from './checks.ts';

const ENDPOINTS: ReadonlySet<string> = new Set<HealthEndpoint>(['healthz', 'livez', 'readyz']);
const TEXT_HEADERS = { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' };

export interface HealthPath {
  readonly endpoint: HealthEndpoint;
  /** The single check asked for (`/livez/<check>`; may contain `/`, e.g. poststarthook/x). */
  readonly check: string | undefined;
}

/** Which health endpoint a path names, if any. */
export function parseHealthPath(path: string): HealthPath | undefined {
  const slash = path.indexOf('/', 1);
  const first = slash === -1 ? path.slice(1) : path.slice(1, slash);
  if (!ENDPOINTS.has(first)) return undefined;
  return { endpoint: first as HealthEndpoint, check: slash === -1 ? undefined : path.slice(slash + 1) };
}

export function isHealthPath(path: string): boolean {
  return parseHealthPath(path) !== undefined;
}

function reasonOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

async function run(check: NamedHealthCheck): Promise<string | undefined> {
  try {
    await check.check();
    return undefined;
  } catch (err) {
    return reasonOf(err);
  }
}

function send(ctx: RequestContext, status: number, body: string): void {
  if (ctx.res.closed) return;
  ctx.res.writeHead(status, TEXT_HEADERS);
  ctx.res.end(body);
}

function formatQuoted(names: readonly string[]): string {
  return names.map((n) => JSON.stringify(n)).join(',');
}

async function serveRoot(ctx: RequestContext, endpoint: HealthEndpoint, checks: readonly NamedHealthCheck[], logger: Logger | undefined): Promise<void> {
  const excluded = new Set(ctx.req.query.getAll('exclude'));
  const unknownExcluded = new Set(excluded);
  // Checks run concurrently (one slow check does not add up with the others); output keeps registration order.
  const results = await Promise.all(
    checks.map((c) => {
      if (excluded.has(c.name)) {
        unknownExcluded.delete(c.name);
        return 'excluded' as const;
      }
      return run(c);
    }),
  );

  let out = '';
  const failed: string[] = [];
  const failedDetail: string[] = [];
  checks.forEach((c, i) => {
    const r = results[i];
    if (r === 'excluded') out += `[+]${c.name} excluded: ok\n`;
    else if (r === undefined) out += `[+]${c.name} ok\n`;
    else {
      out += `[-]${c.name} failed: reason withheld\n`;
      failed.push(c.name);
      failedDetail.push(`[-]${c.name} failed: ${r}`);
    }
  });
  if (unknownExcluded.size > 0) {
    out += `warn: some health checks cannot be excluded: no matches for ${formatQuoted([...unknownExcluded].sort())}\n`;
  }

  if (failed.length > 0) {
    logger?.info({ endpoint, failed, detail: failedDetail.join('\n') }, `${endpoint} check failed`);
    send(ctx, 500, `${out}${endpoint} check failed\n`);
    return;
  }
  if (!ctx.req.query.has('verbose')) {
    send(ctx, 200, 'ok');
    return;
  }
  send(ctx, 200, `${out}${endpoint} check passed\n`);
}

async function serveOne(ctx: RequestContext, check: NamedHealthCheck): Promise<void> {
  const failure = await run(check);
  if (failure === undefined) send(ctx, 200, 'ok');
  else send(ctx, 500, `internal server error: ${failure}\n`);
}

/**
 * The handler for every health path. Throws NotFound (a Status, written by
 * the chain) for an unknown check or a path that is not a health path.
 */
export function healthHandler(checks: HealthChecks, logger?: Logger): (ctx: RequestContext) => Promise<void> {
  return async (ctx) => {
    const target = parseHealthPath(ctx.req.path);
    if (target === undefined) throw errors.notFoundMessage();
    const list = checks.checksFor(target.endpoint);
    if (target.check === undefined) {
      await serveRoot(ctx, target.endpoint, list, logger);
      return;
    }
    const one = list.find((c) => c.name === target.check);
    if (one === undefined) throw errors.notFoundMessage();
    await serveOne(ctx, one);
  };
}
