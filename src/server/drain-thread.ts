/**
 * One serving thread's part of a graceful shutdown, once the shutdown delay
 * is over (lifecycle.ts): the main thread runs it for itself and asks every
 * front-end worker to run it for its own listeners and requests, so all
 * threads sharing the ports stop the same way.
 *
 *  1. without --shutdown-send-retry-after the listeners close now (new
 *     connections are refused; HTTP/2 sessions get a GOAWAY);
 *  2. ordinary requests in flight finish (the wait is bounded by the
 *     request timeout: each of them is too);
 *  3. with --shutdown-send-retry-after the listeners close only now, once
 *     every serving thread is drained (ShutdownSignals.allThreadsDrained):
 *     until then new requests got 429 + Retry-After on every port;
 *  4. long-running requests end cleanly: a watch after its last whole
 *     frame, so its client sees the end of the stream, never a reset;
 *  5. the front ends close, giving those last bytes time to leave.
 */
import type { Frontend } from '../frontends/frontend.ts';
import type { RequestDrain, ShutdownSignals } from './lifecycle.ts';
import type { Logger } from './logging.ts';

/** How long ended watches and last answers get to reach their clients before connections are cut. */
export const FINAL_WRITE_GRACE_MS = 5000;
/** Beyond the request timeout: a request that timed out still writes its 504. */
const DRAIN_SLACK_MS = 1000;

export interface DrainThreadOptions {
  readonly drain: RequestDrain;
  readonly fronts: readonly Frontend[];
  readonly sendRetryAfter: boolean;
  readonly requestTimeoutMs: number;
  readonly logger: Logger;
  /** The process's shared shutdown cells: this thread's drain is counted there, and the others' awaited. */
  readonly signals?: ShutdownSignals | undefined;
}

export async function drainThread(o: DrainThreadOptions): Promise<void> {
  if (!o.sendRetryAfter) for (const f of o.fronts) f.stopListening();
  const inflight = o.drain.inflight;
  const bound = o.requestTimeoutMs + DRAIN_SLACK_MS;
  const drained = await o.drain.drain(bound);
  if (!drained) o.logger.warn({ left: o.drain.inflight }, '[graceful-termination] requests still in flight after the request timeout');
  o.signals?.threadDrained();
  if (o.sendRetryAfter) {
    // Every other thread's requests are each as bounded as this thread's were.
    if (o.signals !== undefined && !(await o.signals.allThreadsDrained(bound))) o.logger.warn({}, '[graceful-termination] other serving threads still draining after the request timeout');
    for (const f of o.fronts) f.stopListening();
  }
  const watches = o.drain.endLongRunning();
  o.logger.info({ drainedRequests: inflight, endedWatches: watches }, '[graceful-termination] in-flight requests drained, long-running requests ended');
  await Promise.all(o.fronts.map((f) => f.close(FINAL_WRITE_GRACE_MS)));
}
