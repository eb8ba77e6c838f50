/**
 * NamespaceLifecycle: no new content in a namespace that does not exist or is
 * being terminated, and the system namespaces cannot be deleted, as the
 * original plugin does.
 */
import { errors, StatusError } from '../../api/status.ts';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';
import type { AdmissionPluginFactory } from '../plugin-table.ts';
import { names } from '../../naming/index.ts';

export const IMMORTAL_NAMESPACES = ['default', names.systemNamespace, names.publicNamespace] as const;

export interface NamespaceLookup {
  /** The namespace's phase, or undefined when it does not exist. */
  phase(name: string): Promise<'Active' | 'Terminating' | undefined>;
}

export function namespaceLifecycle(namespaces: NamespaceLookup): AdmissionPlugin {
  return {
    name: 'NamespaceLifecycle',
    // Namespaced content is checked on create; namespaces themselves on delete.
    handles: (rt, _sub, op) => (rt.group === '' && rt.resource === 'namespaces' ? op === 'DELETE' : rt.namespaced && op === 'CREATE'),
    async validate(attrs: AdmissionAttributes): Promise<void> {
      const rt = attrs.resourceType;
      if (rt.group === '' && rt.resource === 'namespaces') {
        if (attrs.operation === 'DELETE' && (IMMORTAL_NAMESPACES as readonly string[]).includes(attrs.name)) {
          throw new StatusError(403, 'Forbidden', `namespaces "${attrs.name}" is forbidden: this namespace may not be deleted`, {
            name: attrs.name,
            kind: 'namespaces',
          });
        }
        return;
      }
      if (!rt.namespaced || attrs.namespace === '') return;
      if (attrs.operation !== 'CREATE') return; // updates and deletes of existing content proceed
      const phase = await namespaces.phase(attrs.namespace);
      if (phase === undefined) throw errors.notFound('', 'namespaces', attrs.namespace);
      if (phase === 'Terminating') {
        throw new StatusError(
          403,
          'Forbidden',
          `${rt.group === '' ? rt.resource : `${rt.resource}.${rt.group}`} "${attrs.name}" is forbidden: unable to create new content in namespace ${attrs.namespace} because it is being terminated`,
          { name: attrs.name, group: rt.group, kind: rt.resource, causes: [{ reason: 'NamespaceTerminating', message: `namespace ${attrs.namespace} is being terminated`, field: 'metadata.namespace' }] },
        );
      }
    },
  };
}

export const namespaceLifecycleFactory: AdmissionPluginFactory = {
  name: 'NamespaceLifecycle',
  create(deps) {
    const namespaces = deps.lookup.type('', 'v1', 'namespaces')!;
    return namespaceLifecycle({
      async phase(name) {
        // Live: a namespace marked for deletion a moment ago must already refuse new content.
        const ns = await deps.lookup.get(namespaces, '', name, { live: true });
        if (ns === null) return undefined;
        return ns.metadata.deletionTimestamp ? 'Terminating' : 'Active';
      },
    });
  },
};
