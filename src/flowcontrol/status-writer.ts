/**
 * Writes a FlowSchema's status through the generic store, as the server's
 * own identity and the original's field manager (dangling.ts says what).
 */
import type { GenericStore } from '../registry/generic-store.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { KObject } from '../registry/object.ts';
import type { Logger } from '../server/logging.ts';
import type { UserInfo } from '../server/context.ts';
import { GROUP_AUTHENTICATED, GROUP_MASTERS } from '../authn/types.ts';
import { StatusError } from '../api/status.ts';
import { apiGroup } from '../naming/index.ts';
import { CONFIG_CONSUMER_FIELD_MANAGER } from './dangling.ts';

const USER: UserInfo = { name: 'system:apiserver', groups: [GROUP_MASTERS, GROUP_AUTHENTICATED] };

/** A writer for FlowcontrolController's writeStatus, or undefined when FlowSchemas are not served. */
export function flowSchemaStatusWriter(store: GenericStore, registry: ResourceRegistry, logger: Logger): ((fs: KObject) => Promise<void>) | undefined {
  const rt = registry.lookup(apiGroup('flowcontrol.apiserver'), 'v1beta2', 'flowschemas');
  if (rt === undefined) return undefined;
  return async (fs) => {
    try {
      // A copy: the watch mirror's objects are frozen, and the store fills in what it writes.
      await store.update(rt, '', fs.metadata.name ?? '', structuredClone(fs), { user: USER, dryRun: false, fieldManager: CONFIG_CONSUMER_FIELD_MANAGER }, 'status');
    } catch (err) {
      // A schema changed or deleted meanwhile is looked at again from its watch event; anything else is worth a line.
      if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) {
        logger.warn({ err: err instanceof Error ? err.message : String(err), flowSchema: fs.metadata.name }, 'could not write the FlowSchema status');
      }
      throw err;
    }
  };
}
