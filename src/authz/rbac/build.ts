/**
 * RBAC for one serving thread: its watch-fed index, the RBAC authorizer
 * factory for mode.ts, and the escalation checks on the thread's generic
 * store. Built from the thread's own GenericStore (and so its shard router),
 * like src/authn/build.ts: nothing is shared across threads by reference.
 */
import type { GenericStore } from '../../registry/generic-store.ts';
import type { ResourceRegistry } from '../../registry/registry.ts';
import type { Authorizer } from '../types.ts';
import { RbacAuthorizer } from './authorizer.ts';
import { installEscalationChecks } from './escalation.ts';
import { RbacIndex } from './index.ts';

/** How long a start waits for the RBAC state before failing (the shards answer in milliseconds). */
const READY_TIMEOUT_MS = 60_000;

export interface BuiltRbac {
  readonly index: RbacIndex;
  /** The `RBAC` entry of mode.ts's factories. */
  readonly factory: () => Authorizer;
  /** Makes role and binding writes on `store` check escalation against `authorizer` (the whole chain). */
  installEscalationChecks(authorizer: Authorizer): void;
  close(): void;
}

export async function buildRbac(store: GenericStore, registry: ResourceRegistry): Promise<BuiltRbac> {
  const index = new RbacIndex(store.router, registry).start();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      index.ready,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('RBAC watches did not deliver their initial state in time')), READY_TIMEOUT_MS);
        timer.unref();
      }),
    ]);
  } catch (err) {
    index.close();
    throw err;
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
  const authorizer = new RbacAuthorizer(index.policy);
  return {
    index,
    factory: () => authorizer,
    installEscalationChecks: (chain) => installEscalationChecks(store, registry, index.policy, chain),
    close: () => index.close(),
  };
}
