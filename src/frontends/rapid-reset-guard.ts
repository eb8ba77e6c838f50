/**
 * HTTP/2 "rapid reset" (CVE-2023-44487) defence: a client that opens streams
 * and resets them at once makes us start a handler per stream while it pays
 * almost nothing, and the concurrent-stream limit never bites because each
 * stream is gone before the next arrives. nghttp2 (inside node) has a
 * limiter of its own, but it answers with GOAWAY INTERNAL_ERROR, which
 * clients take for a server fault.
 *
 * Here every stream the client abandons before its response was complete
 * (node's 'aborted', whatever the RST_STREAM code) takes a token from a
 * per-session bucket. An empty bucket gets GOAWAY ENHANCE_YOUR_CALM, as Go's
 * HTTP/2 server answers such clients, and the connection is closed a moment
 * later (Go waits 1 s too): closing at once, with the client's frames still
 * unread, makes the kernel send RST, and the client may never see the GOAWAY.
 */
import type { ServerHttp2Session, ServerHttp2Stream } from 'node:http2';
import { constants } from 'node:http2';

export interface ResetBudget {
  /** Abandoned streams a session may have in a burst. */
  burst: number;
  /** Tokens regained per second. */
  perSecond: number;
}

/** How long the GOAWAY has to reach the client before the connection is closed. */
const GOAWAY_GRACE_MS = 1000;

/**
 * The bucket for a server announcing `maxStreams`: a client may cancel every
 * stream it is allowed, twice over, at once; the refill is nghttp2's 33 a second.
 */
export function resetBudgetFor(maxStreams: number): ResetBudget {
  return { burst: 2 * maxStreams, perSecond: 33 };
}

export function guardAgainstRapidReset(session: ServerHttp2Session, budget: ResetBudget): void {
  let tokens = budget.burst;
  let last = performance.now();
  let lastStreamId = 0;
  let tripped = false;
  session.on('stream', (stream: ServerHttp2Stream) => {
    lastStreamId = Math.max(lastStreamId, stream.id ?? 0);
    stream.once('aborted', () => {
      if (tripped) return; // ending the session aborts its streams too
      const now = performance.now();
      tokens = Math.min(budget.burst, tokens + ((now - last) / 1000) * budget.perSecond);
      last = now;
      tokens -= 1;
      if (tokens >= 0 || session.destroyed) return;
      tripped = true;
      // Streams past lastStreamId are refused by nghttp2 from now on, at no cost to us.
      session.goaway(constants.NGHTTP2_ENHANCE_YOUR_CALM, lastStreamId);
      const timer = setTimeout(() => {
        if (!session.destroyed) session.destroy();
      }, GOAWAY_GRACE_MS);
      timer.unref();
    });
  });
}
