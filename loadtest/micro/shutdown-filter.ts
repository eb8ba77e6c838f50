/**
 * Micro-benchmark: what the graceful-shutdown filter (and --goaway-chance)
 * adds to every request while the server serves: one Atomics.load, the
 * drain's count in and out, and one more step of the filter chain. Measured
 * as the difference between a chain of eight no-op filters with and without
 * it, the best of many batches after warm-up.
 *
 *   node --import tsx loadtest/micro/shutdown-filter.ts
 */
import { RequestContext, composeFilters, type Filter, type Next } from '../../src/server/context.ts';
import { TrackedResponse } from '../../src/server/filters/tracked-response.ts';
import { withShutdown } from '../../src/server/filters/with-shutdown.ts';
import { withGoaway } from '../../src/server/filters/with-goaway.ts';
import { RequestDrain, ShutdownSignals } from '../../src/server/lifecycle.ts';
import type { ApiRequest, ApiResponse } from '../../src/server/http.ts';

const noop: Filter = (ctx, next) => next(ctx);
const req = { method: 'GET', path: '/api/v1/namespaces/default/pods/p', protocol: 'h2', header: () => undefined } as unknown as ApiRequest;
const res = { closed: false, onClose: () => {} } as unknown as ApiResponse;

async function bestUs(run: Next): Promise<number> {
  const once = (): Promise<void> | undefined => run(new RequestContext(req, new TrackedResponse(res)));
  for (let i = 0; i < 50_000; i++) await once();
  let best = Infinity;
  for (let round = 0; round < 30; round++) {
    const n = 20_000;
    const t = process.hrtime.bigint();
    for (let i = 0; i < n; i++) await once();
    best = Math.min(best, Number(process.hrtime.bigint() - t) / n / 1e3);
  }
  return best;
}

const handler = async (): Promise<void> => {};
const base = Array.from({ length: 8 }, () => noop);
const shutdown = withShutdown({ signals: new ShutdownSignals(), drain: new RequestDrain(), sendRetryAfter: true });
const goaway = withGoaway(0.001)!;
const without = await bestUs(composeFilters(base, handler));
const withIt = await bestUs(composeFilters([...base, shutdown], handler));
const withBoth = await bestUs(composeFilters([...base, shutdown, goaway], handler));
console.log(`chain of 8 no-op filters:            ${without.toFixed(3)} µs/request`);
console.log(`+ shutdown filter:                   ${withIt.toFixed(3)} µs/request (+${(withIt - without).toFixed(3)})`);
console.log(`+ shutdown and goaway (0.001):       ${withBoth.toFixed(3)} µs/request (+${(withBoth - without).toFixed(3)})`);
