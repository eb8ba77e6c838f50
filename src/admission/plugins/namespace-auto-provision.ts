/**
 * NamespaceAutoProvision: creating namespaced content in a namespace that
 * does not exist creates the namespace first, as the original's
 * plugin/pkg/admission/namespace/autoprovision. Not on dry-run (it would be
 * a real write). A failed namespace create refuses the request (403).
 */
import { StatusError } from '../../api/status.ts';
import type { KObject } from '../../registry/object.ts';
import type { AdmissionPlugin } from '../types.ts';
import type { AdmissionPluginFactory } from '../plugin-table.ts';
import { admissionForbidden } from './pod-util.ts';

export interface NamespaceProvisioner {
  exists(name: string): Promise<boolean>;
  /** Creates the namespace; throws a StatusError (409 when it already exists). */
  create(ns: KObject): Promise<void>;
}

export function namespaceAutoProvision(namespaces: NamespaceProvisioner): AdmissionPlugin {
  return {
    name: 'NamespaceAutoProvision',
    handles: (rt, _sub, op) => rt.namespaced && op === 'CREATE',
    async admit(attrs) {
      if (attrs.dryRun || attrs.namespace === '') return;
      if (await namespaces.exists(attrs.namespace)) return;
      try {
        await namespaces.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: attrs.namespace } });
      } catch (err) {
        if (err instanceof StatusError && err.code === 409) return;
        throw admissionForbidden(attrs, err instanceof Error ? err.message : String(err));
      }
      // NamespaceLifecycle, later in the chain, reads the watch cache: give it the new namespace (bounded wait).
      for (let i = 0; i < 40 && !(await namespaces.exists(attrs.namespace)); i++) await new Promise((r) => setTimeout(r, 25));
    },
  };
}

export const namespaceAutoProvisionFactory: AdmissionPluginFactory = {
  name: 'NamespaceAutoProvision',
  create(deps) {
    const rt = deps.lookup.type('', 'v1', 'namespaces')!;
    return namespaceAutoProvision({
      exists: async (name) => (await deps.lookup.get(rt, '', name)) !== null,
      create: async (ns) => {
        // Written by the server for the request's user (the original's loopback client is privileged too).
        await deps.store().create(rt, '', ns, { user: undefined, dryRun: false });
      },
    });
  },
};
