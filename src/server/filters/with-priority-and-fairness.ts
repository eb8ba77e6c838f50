/**
 * API Priority and Fairness, after the original's WithPriorityAndFairness
 * (filters/priority-and-fairness.go, v1.25), in the slot of max in-flight:
 * each request is classified by FlowSchema (src/flowcontrol/), then runs at
 * once on an Exempt level, or takes a seat of its Limited level — waiting
 * in a fair queue when the level is busy. A request its level rejects (seats
 * full on a Reject level, its queue full, or it waited past its wait limit)
 * gets 429 TooManyRequests with `Retry-After: 1`.
 *
 * Watches are classified and take a seat too, but only until their initial
 * events are out (ctx.watchInitialized); other long-running requests are
 * not limited. Every classified request answers with the schema's and the
 * level's UID headers. The executing counts also feed the in-flight gauge,
 * as the original's filter does.
 */
import type { Filter, RequestContext } from '../context.ts';
import { errors } from '../../api/status.ts';
import { writeStatus } from './write-status.ts';
import { trackedResponse } from './tracked-response.ts';
import { TOO_MANY_REQUESTS_MESSAGE, type InflightCounts } from './with-max-inflight.ts';
import { flowDistinguisher, flowHash } from '../../flowcontrol/classifier.ts';
import type { FlowcontrolController, Route } from '../../flowcontrol/controller.ts';
import type { Ticket } from '../../flowcontrol/queueset.ts';

const READ_ONLY_VERBS = new Set(['get', 'list', 'watch']);

/**
 * A watch whose initial state is empty sends no frame; its seat goes back
 * after this long at the latest.
 */
const WATCH_INIT_MAX_MS = 1000;

export interface PriorityAndFairnessOptions {
  readonly controller: FlowcontrolController;
  /** How long a request may wait in a queue: the original's request timeout / 4. */
  readonly requestWaitLimitMs: number;
  /** Executing counts for the in-flight gauge (shared by threads when they share it). */
  readonly inflight: InflightCounts;
}

export function withPriorityAndFairness(opts: PriorityAndFairnessOptions): Filter {
  const { controller, requestWaitLimitMs, inflight } = opts;
  const tooMany = errors.tooManyRequests(TOO_MANY_REQUESTS_MESSAGE, 1);

  return async (ctx, next) => {
    const info = ctx.info;
    const user = ctx.user;
    if (info === undefined || user === undefined) return next();
    const isWatch = info.verb === 'watch';
    if (ctx.longRunning && !isWatch) return next();

    const route = controller.classify(info, user);
    setHeaders(ctx, route);
    const series = route.series;
    const queues = route.level.queues;
    const mutating = !READ_ONLY_VERBS.has(info.verb);

    let ticket: Ticket | undefined;
    if (queues !== null) {
      const r = queues.start(flowHash(route.schema.name, flowDistinguisher(route.schema.distinguisher, info, user)));
      if (typeof r === 'string') {
        series.rejected[r]++;
        series.waitRejected.observe(0);
        writeStatus(ctx.res, tooMany);
        return;
      }
      ticket = r;
      if (r.state === 'waiting') {
        series.inQueue++;
        series.queueLengthAfterEnqueue.observe(r.queue?.waiting.length ?? 0);
        const left = ctx.deadline === undefined ? requestWaitLimitMs : Math.min(requestWaitLimitMs, ctx.deadline - Date.now());
        const executing = await queues.wait(r, left, ctx.req.signal);
        series.inQueue--;
        if (!executing) {
          const reason = r.reason ?? 'time-out';
          series.rejected[reason]++;
          series.waitRejected.observe(r.waitSeconds);
          if (reason !== 'cancelled') writeStatus(ctx.res, tooMany);
          return;
        }
      }
      series.waitExecuted.observe(r.waitSeconds);
    } else {
      series.waitExecuted.observe(0);
    }

    series.dispatched++;
    series.executing++;
    inflight.add(mutating, 1);
    const startedAt = performance.now();
    let released = false;
    let initTimer: NodeJS.Timeout | undefined;
    const release = (): void => {
      if (released) return;
      released = true;
      clearTimeout(initTimer);
      series.executing--;
      series.execution.observe((performance.now() - startedAt) / 1000);
      inflight.add(mutating, -1);
      if (ticket !== undefined) queues!.finish(ticket);
    };
    if (isWatch) {
      ctx.onWatchInitialized = release;
      initTimer = setTimeout(release, WATCH_INIT_MAX_MS);
      initTimer.unref();
    }
    try {
      await next();
    } finally {
      ctx.onWatchInitialized = undefined;
      release();
    }
  };
}

/** The route's UID headers on whatever answer goes out (its own object, or merged with another filter's). */
function setHeaders(ctx: RequestContext, route: Route): void {
  trackedResponse(ctx).addHeaders(route.headers);
}
