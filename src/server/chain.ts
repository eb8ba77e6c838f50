/**
 * The request pipeline, in the mould of the original's
 * DefaultBuildHandlerChain. Outside in:
 *
 *   panic recovery -> request info -> logging -> metrics -> shutdown
 *   -> goaway -> timeout -> authentication -> audit -> impersonation
 *   -> priority and fairness (or max in-flight) -> authorization -> handler
 *
 * Every filter is built once here; a request only allocates its context and
 * the response tracker. Errors the handler throws are written inside logging
 * and metrics (handleErrors), so those see the final status.
 *
 * Health and version paths need no special case: with AlwaysAllow they are
 * open; under RBAC the original grants them to system:unauthenticated via the
 * default `system:public-info-viewer` role (the anonymous authenticator
 * supplies that user), which is the RBAC module's business, not the chain's.
 */
import type { RequestHandler } from './http.ts';
import { RequestContext, composeFilters, type Filter, type Next, type Step } from './context.ts';
import type { Authenticator } from '../authn/types.ts';
import type { Authorizer } from '../authz/types.ts';
import type { Logger } from './logging.ts';
import type { ApiserverMetrics } from './metrics.ts';
import { TrackedResponse, trackedResponse } from './filters/tracked-response.ts';
import { handleErrors, withPanicRecovery } from './filters/with-panic-recovery.ts';
import { withRequestInfo } from './filters/with-request-info.ts';
import { withLogging } from './filters/with-logging.ts';
import { withMetrics } from './filters/with-metrics.ts';
import { withTimeout } from './filters/with-timeout.ts';
import { withAuthentication } from './filters/with-authentication.ts';
import { withImpersonation } from './filters/with-impersonation.ts';
import { InflightCounter, withMaxInflight, type InflightCounts } from './filters/with-max-inflight.ts';
import { withAuthorization } from './filters/with-authorization.ts';
import { withPriorityAndFairness } from './filters/with-priority-and-fairness.ts';
import type { FlowcontrolController } from '../flowcontrol/controller.ts';
import { writeStatus } from './filters/write-status.ts';
import { withShutdown, type ShutdownFilterOptions } from './filters/with-shutdown.ts';
import { withGoaway } from './filters/with-goaway.ts';

export interface HandlerChainOptions {
  /** `--request-timeout`, ms (default 60 000). */
  readonly requestTimeoutMs: number;
  /** `--max-requests-inflight` (default 400; 0 disables). */
  readonly maxRequestsInflight: number;
  /** `--max-mutating-requests-inflight` (default 200; 0 disables). */
  readonly maxMutatingRequestsInflight: number;
  /** `--min-request-timeout`, seconds (default 1800): watches end between one and two times this. */
  readonly minRequestTimeoutSeconds: number;
}

export const DEFAULT_CHAIN_OPTIONS: HandlerChainOptions = {
  requestTimeoutMs: 60_000,
  maxRequestsInflight: 400,
  maxMutatingRequestsInflight: 200,
  minRequestTimeoutSeconds: 1800,
};

export interface HandlerChainDeps {
  readonly authenticator: Authenticator;
  /** Identity headers removed from every request after authentication (the authenticating proxy's). */
  readonly stripHeaders?: ((lowerName: string) => boolean) | undefined;
  readonly authorizer: Authorizer;
  /** The API: routing, resource handlers, health, metrics, ... */
  readonly handler: Next;
  readonly logger: Logger;
  readonly metrics: ApiserverMetrics;
  readonly options: HandlerChainOptions;
  /** The audit filter (src/audit), placed where the original's WithAudit is: just inside authentication. */
  readonly audit?: Filter | undefined;
  /** Audit of the requests authentication refuses (401), placed just outside it. */
  readonly auditFailedAuthentication?: Filter | undefined;
  /** In-flight counts shared by several serving threads; the chain's own when absent. */
  readonly inflight?: InflightCounts | undefined;
  /** Whether this chain feeds the in-flight gauge (false in all but one thread sharing `inflight`). */
  readonly reportsInflight?: boolean | undefined;
  /** Graceful shutdown: the phase shared by the serving threads and this thread's drain (filters/with-shutdown.ts). */
  readonly shutdown?: ShutdownFilterOptions | undefined;
  /** `--goaway-chance` (0: off). */
  readonly goawayChance?: number | undefined;
  /**
   * Priority and fairness (`--enable-priority-and-fairness`): this thread's
   * flow-control configuration; it replaces max in-flight, as in the original.
   */
  readonly flowcontrol?: FlowcontrolController | undefined;
}

export function buildHandlerChain(deps: HandlerChainDeps): RequestHandler {
  const { logger, metrics, options } = deps;
  const inflight = deps.inflight ?? new InflightCounter();
  if (deps.reportsInflight ?? true) metrics.setInflightSource(() => inflight.takeWatermark());

  const maxInflight =
    deps.flowcontrol !== undefined
      ? withPriorityAndFairness({ controller: deps.flowcontrol, requestWaitLimitMs: options.requestTimeoutMs / 4, inflight })
      : withMaxInflight(options, inflight);
  const goaway = withGoaway(deps.goawayChance ?? 0);
  const filters: Filter[] = [
    withPanicRecovery(logger, metrics),
    withRequestInfo(),
    withLogging(logger),
    withMetrics(metrics),
    ...(deps.shutdown ? [withShutdown(deps.shutdown)] : []),
    ...(goaway ? [goaway] : []),
    withTimeout({ requestTimeoutMs: options.requestTimeoutMs, minRequestTimeoutSeconds: options.minRequestTimeoutSeconds, logger }),
    ...(deps.auditFailedAuthentication ? [deps.auditFailedAuthentication] : []),
    withAuthentication(deps.authenticator, logger, { stripHeaders: deps.stripHeaders }),
    ...(deps.audit ? [deps.audit] : []),
    withImpersonation(deps.authorizer),
    ...(maxInflight ? [maxInflight] : []),
    withAuthorization(deps.authorizer),
  ];
  const run = composeFilters(filters, handleErrors(deps.handler, logger, metrics));

  /** Only reachable if writing the error itself failed; still never let a request reject into the front end. */
  const failedOutside = (ctx: RequestContext, err: unknown): void => {
    logger.error({ err, path: ctx.req.path }, 'request failed outside the filter chain');
    try {
      const tracked = trackedResponse(ctx);
      if (!tracked.finished && !tracked.headWritten) writeStatus(tracked, err);
    } catch {
      // the front end refused the write too; nothing more to do for this request
    }
  };

  return (req, res) => {
    const tracked = new TrackedResponse(res);
    const ctx = new RequestContext(req, tracked);
    tracked.auditID = ctx.auditID;
    tracked.onHeadWritten((status) => {
      ctx.status = status;
    });
    let step: Step;
    try {
      step = run(ctx);
    } catch (err) {
      failedOutside(ctx, err);
      return undefined;
    }
    return step?.then(undefined, (err: unknown) => failedOutside(ctx, err));
  };
}
