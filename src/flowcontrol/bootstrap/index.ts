/**
 * The priority-and-fairness configuration the server keeps itself, started
 * once per process in the main thread (server.ts): the bootstrap objects
 * ensured at start and every minute (producer.ts, ensure.ts, objects.ts), and
 * the FlowSchemas' Dangling condition (dangling.ts). The request-time side
 * (classifier, queues, filter) is elsewhere in src/flowcontrol/ and may read
 * objects.ts for its built-in fallbacks.
 */
import type { GenericStore } from '../../registry/generic-store.ts';
import type { ResourceRegistry } from '../../registry/registry.ts';
import { flowcontrolTypes } from './ensure.ts';
import { ConfigProducer, type ProducerLogger, type ProducerTimings } from './producer.ts';
import { DanglingConditionController } from './dangling.ts';

export * from './objects.ts';
export { ensureBootstrapConfiguration, type EnsureReport } from './ensure.ts';
export { ConfigProducer } from './producer.ts';
export { DanglingConditionController } from './dangling.ts';

/** The readiness check of the first ensured pass (the original's post-start hook name). */
export const PRODUCER_HOOK_NAME = 'poststarthook/priority-and-fairness-config-producer';

export interface ApfBootstrap {
  readonly producer: ConfigProducer;
  readonly dangling: DanglingConditionController;
  stop(): void;
}

export interface ApfBootstrapOptions {
  store: GenericStore;
  registry: ResourceRegistry;
  log: ProducerLogger;
  /** Registers the readiness check that passes once a pass has gone through. */
  addBootCheck?: (name: string, check: () => void) => void;
  timings?: Partial<ProducerTimings>;
}

/**
 * Ensures the bootstrap configuration (first pass awaited, later ones in the
 * background) and starts the Dangling condition; null when the flowcontrol
 * group's stored version is off (--runtime-config).
 */
export async function startApfBootstrap(opts: ApfBootstrapOptions): Promise<ApfBootstrap | null> {
  const types = flowcontrolTypes(opts.registry);
  if (types === null) {
    opts.log.warn({}, 'flowcontrol API disabled; APF bootstrap configuration not ensured');
    return null;
  }
  const producer = new ConfigProducer(opts.store, types, opts.log, opts.timings);
  opts.addBootCheck?.(PRODUCER_HOOK_NAME, () => {
    if (!producer.succeeded) throw new Error('not finished');
  });
  const dangling = new DanglingConditionController(opts.store, types, opts.log);
  try {
    await producer.start();
    await dangling.start();
  } catch (err) {
    producer.stop();
    dangling.stop();
    throw err;
  }
  return {
    producer,
    dangling,
    stop: () => {
      producer.stop();
      dangling.stop();
    },
  };
}
