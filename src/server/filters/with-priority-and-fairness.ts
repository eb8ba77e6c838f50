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
import { stepFinally, type Filter, type Next, type RequestContext, type Step } from '../context.ts';
import { errors } from '../../api/status.ts';
import { writeStatus } from './write-status.ts';
import { trackedResponse } from './tracked-response.ts';
import { TOO_MANY_REQUESTS_MESSAGE, type InflightCounts } from './with-max-inflight.ts';
import { flowDistinguisher, flowHash } from '../../flowcontrol/classifier.ts';
import type { FlowcontrolController, Route } from '../../flowcontrol/controller.ts';
import type { QueueSet, Ticket } from '../../flowcontrol/queueset.ts';

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

  /** The request holds its seat: it runs, and gives the seat back when it ends (a watch: once initialized). */
  const execute = (ctx: RequestContext, next: Next, route: Route, mutating: boolean, queues: QueueSet | null, ticket: Ticket | undefined): Step => {
    const series = route.series;
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
      if (ticket !== undefined) queues?.finish(ticket);
    };
    if (ctx.info?.verb === 'watch') {
      ctx.onWatchInitialized = release;
      initTimer = setTimeout(release, WATCH_INIT_MAX_MS);
      initTimer.unref();
    }
    return stepFinally(ctx, next, () => {
      ctx.onWatchInitialized = undefined;
      release();
    });
  };

  /** A request queued behind its level's busy seats: it waits for one, or is refused at its wait limit. */
  const waitThenExecute = async (ctx: RequestContext, next: Next, route: Route, mutating: boolean, queues: QueueSet, ticket: Ticket): Promise<void> => {
    const series = route.series;
    series.inQueue++;
    series.queueLengthAfterEnqueue.observe(ticket.queue?.waiting.length ?? 0);
    const left = ctx.deadline === undefined ? requestWaitLimitMs : Math.min(requestWaitLimitMs, ctx.deadline - Date.now());
    const executing = await queues.wait(ticket, left, ctx.req.signal);
    series.inQueue--;
    if (!executing) {
      const reason = ticket.reason ?? 'time-out';
      series.rejected[reason]++;
      series.waitRejected.observe(ticket.waitSeconds);
      if (reason !== 'cancelled') writeStatus(ctx.res, tooMany);
      return;
    }
    series.waitExecuted.observe(ticket.waitSeconds);
    await execute(ctx, next, route, mutating, queues, ticket);
  };

  return (ctx, next) => {
    const info = ctx.info;
    const user = ctx.user;
    if (info === undefined || user === undefined) return next(ctx);
    const isWatch = info.verb === 'watch';
    if (ctx.longRunning && !isWatch) return next(ctx);

    const route = controller.classify(info, user);
    setHeaders(ctx, route);
    const series = route.series;
    const queues = route.level.queues;
    const mutating = !READ_ONLY_VERBS.has(info.verb);
    if (queues === null) {
      series.waitExecuted.observe(0);
      return execute(ctx, next, route, mutating, null, undefined);
    }
    const ticket = queues.start(flowHash(route.schema.name, flowDistinguisher(route.schema.distinguisher, info, user)));
    if (typeof ticket === 'string') {
      series.rejected[ticket]++;
      series.waitRejected.observe(0);
      writeStatus(ctx.res, tooMany);
      return undefined;
    }
    if (ticket.state === 'waiting') return waitThenExecute(ctx, next, route, mutating, queues, ticket);
    series.waitExecuted.observe(ticket.waitSeconds);
    return execute(ctx, next, route, mutating, queues, ticket);
  };
}

/** The route's UID headers on whatever answer goes out (its own object, or merged with another filter's). */
function setHeaders(ctx: RequestContext, route: Route): void {
  trackedResponse(ctx).addHeaders(route.headers);
}
