/**
 * Metrics of the process-wide watch output budget (src/frontends/watch-budget.ts),
 * read from the budget at scrape time.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { WatchBudget } from '../frontends/watch-budget.ts';

export function registerWatchBudgetMetrics(registry: Registry, budget: WatchBudget): void {
  new Gauge({
    name: 'apiserver_watch_buffered_bytes',
    help: 'Bytes held for watch clients slower than their events, across all front ends: each shared event buffer once, plus copies in the HTTP stacks. Bounded by --watch-max-total-buffered-bytes.',
    registers: [registry],
    collect() {
      this.set(budget.heldBytes);
    },
  });
  new Gauge({
    name: 'apiserver_watch_queued_bytes',
    help: 'Sum of the bytes each slow watch client has queued (an event buffer shared by N watchers counts N times).',
    registers: [registry],
    collect() {
      this.set(budget.queuedBytes);
    },
  });
  new Gauge({
    name: 'apiserver_watch_backed_up_watchers',
    help: 'Watch (streamed) responses holding output their client has not taken yet.',
    registers: [registry],
    collect() {
      this.set(budget.holdingStreams);
    },
  });
  new Counter({
    name: 'apiserver_watch_budget_dropped_watchers_total',
    help: 'Watchers closed because the watch output of all clients passed --watch-max-total-buffered-bytes (the one holding the most first).',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(budget.drops);
    },
  });
}
