/**
 * NamespaceExists: a write of namespaced content (create, update, delete)
 * in a namespace that does not exist is refused with the namespace's 404,
 * as the original's plugin/pkg/admission/namespace/exists.
 */
import { errors } from '../../api/status.ts';
import type { AdmissionPlugin } from '../types.ts';
import type { AdmissionPluginFactory } from '../plugin-table.ts';

export interface NamespaceSource {
  exists(name: string): Promise<boolean>;
}

export function namespaceExists(namespaces: NamespaceSource): AdmissionPlugin {
  return {
    name: 'NamespaceExists',
    handles: (rt, _sub, op) => rt.namespaced && op !== 'CONNECT',
    async validate(attrs) {
      if (attrs.namespace === '') return;
      if (!(await namespaces.exists(attrs.namespace))) throw errors.notFound('', 'namespaces', attrs.namespace);
    },
  };
}

export const namespaceExistsFactory: AdmissionPluginFactory = {
  name: 'NamespaceExists',
  create(deps) {
    const rt = deps.lookup.type('', 'v1', 'namespaces')!;
    return namespaceExists({ exists: async (name) => (await deps.lookup.get(rt, '', name)) !== null });
  },
};
