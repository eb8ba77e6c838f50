/**
 * Request metrics: apiserver_request_total and
 * apiserver_request_duration_seconds once the response has ended (a watch
 * counts when its stream closes), and apiserver_longrunning_requests while a
 * long-running request's stream is open.
 *
 * Recording waits for both the chain to return and the response to finish:
 * the status is only final then, and a handler may stream past its return.
 */
import { stepFinally, type Filter } from '../context.ts';
import type { ApiserverMetrics } from '../metrics.ts';
import { requestLabels } from './request-labels.ts';
import { trackedResponse } from './tracked-response.ts';

export function withMetrics(metrics: ApiserverMetrics): Filter {
  return (ctx, next) => {
    const res = trackedResponse(ctx);
    let longRunningDone: (() => void) | undefined;
    if (ctx.longRunning) {
      // Counted from when the stream opens successfully: by then the caller
      // is authenticated and authorized, so its labels are trustworthy.
      res.onHeadWritten((status) => {
        if (status < 300 && !res.finished) longRunningDone = metrics.longRunningStarted(requestLabels(ctx));
      });
    }
    return stepFinally(ctx, next, () =>
      res.onFinished(() => {
        longRunningDone?.();
        // status 0: the client left before any answer was written.
        metrics.observeRequest(requestLabels(ctx), ctx.status, (performance.now() - ctx.startedAt) / 1000);
      }),
    );
  };
}
