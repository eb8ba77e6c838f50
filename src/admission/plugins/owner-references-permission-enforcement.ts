/**
 * OwnerReferencesPermissionEnforcement: who may point an object at its
 * owners, as the original's plugin (plugin/pkg/admission/gc):
 *
 * - changing an object's ownerReferences on update needs `delete` on the
 *   object (a create may set any: its creator could as well not create it);
 * - setting blockOwnerDeletion to true on a reference (new, or changed from
 *   unset/false) needs `update` on the owner's `finalizers` subresource,
 *   unless the user may update every finalizers subresource.
 *
 * pods/status is exempt (the pod status strategy keeps ownerReferences).
 * An owner's kind maps to its resources through the served types.
 */
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';
import type { AdmissionPluginFactory } from '../plugin-table.ts';
import type { Authorizer, AuthorizationAttributes } from '../../authz/types.ts';
import type { ResourceType } from '../../registry/resource-type.ts';
import type { KObject } from '../../registry/object.ts';
import { jsonEqual } from '../../registry/object.ts';
import type { UserInfo } from '../../server/context.ts';
import { admissionForbidden, list, record, str, userOf } from './admission-errors.ts';

/** Owner kinds to their resources: RESTMappings(GroupKind, version). */
export interface KindMapper {
  mappings(group: string, version: string, kind: string): Array<{ resource: string; namespaced: boolean }>;
}

export function kindMapperOf(types: readonly ResourceType[]): KindMapper {
  const byKind = new Map<string, Map<string, { resource: string; namespaced: boolean }>>();
  for (const t of types) {
    const key = `${t.group}/${t.version}/${t.kind}`;
    let m = byKind.get(key);
    if (m === undefined) byKind.set(key, (m = new Map()));
    m.set(t.resource, { resource: t.resource, namespaced: t.namespaced });
  }
  return { mappings: (group, version, kind) => [...(byKind.get(`${group}/${version}/${kind}`)?.values() ?? [])] };
}

function refs(obj: KObject | null): Record<string, unknown>[] {
  return obj === null ? [] : list(obj.metadata.ownerReferences).map(record);
}

/** isChangingOwnerReference: on create, any reference; on update, any difference. */
function changingOwnerReferences(obj: KObject | null, old: KObject | null): boolean {
  const next = refs(obj);
  if (old === null) return next.length > 0;
  const prev = refs(old);
  return next.length !== prev.length || next.some((r, i) => !jsonEqual(r, prev[i]));
}

/** References that block owner deletion and did not before (matched by uid). */
function newBlockingRefs(obj: KObject | null, old: KObject | null): Record<string, unknown>[] {
  const blocking = refs(obj).filter((r) => r['blockOwnerDeletion'] === true);
  if (blocking.length === 0 || old === null) return blocking;
  const before = new Map(refs(old).map((r) => [str(r['uid']) ?? '', r]));
  return blocking.filter((r) => {
    const was = before.get(str(r['uid']) ?? '');
    return was === undefined || was['blockOwnerDeletion'] !== true;
  });
}

function parseGroupVersion(apiVersion: string): { group: string; version: string } | undefined {
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: parts[0]! };
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]! };
  return undefined;
}

function authzAttributes(user: UserInfo, verb: string, rest: Partial<AuthorizationAttributes>): AuthorizationAttributes {
  return { user, verb, isResourceRequest: true, path: '', namespace: '', apiGroup: '', apiVersion: '', resource: '', subresource: '', name: '', ...rest };
}

async function decide(authz: Authorizer, attrs: AuthorizationAttributes): Promise<{ allowed: boolean; why: string }> {
  try {
    const r = await authz.authorize(attrs);
    return { allowed: r.decision === 'allow', why: `${r.reason}, <nil>` };
  } catch (e) {
    return { allowed: false, why: `, ${e instanceof Error ? e.message : String(e)}` };
  }
}

export function ownerReferencesPermissionEnforcement(authorizer: () => Authorizer, kinds: KindMapper): AdmissionPlugin {
  async function checkOwners(a: AdmissionAttributes): Promise<void> {
    const authz = authorizer();
    const user = userOf(a);
    const rt = a.resourceType;
    if (a.operation !== 'CREATE') {
      const d = await decide(
        authz,
        authzAttributes(user, 'delete', { namespace: a.namespace, apiGroup: rt.group, apiVersion: rt.version, resource: rt.resource, subresource: a.subresource, name: a.name }),
      );
      if (!d.allowed) throw admissionForbidden(a, `cannot set an ownerRef on a resource you can't delete: ${d.why}`);
    }
    const blocking = newBlockingRefs(a.object, a.oldObject);
    if (blocking.length === 0) return;
    // One check that the user may finalize anything spares a check per owner.
    const anything = authzAttributes(user, 'update', { namespace: '*', apiGroup: '*', apiVersion: '*', resource: '*', subresource: 'finalizers', name: '*' });
    if ((await decide(authz, anything)).allowed) return;
    for (const ref of blocking) {
      const apiVersion = str(ref['apiVersion']) ?? '';
      const kind = str(ref['kind']) ?? '';
      const gv = parseGroupVersion(apiVersion);
      const mappings = gv === undefined ? [] : kinds.mappings(gv.group, gv.version, kind);
      if (gv === undefined || mappings.length === 0) {
        const why = gv === undefined ? `unexpected GroupVersion string: ${apiVersion}` : `no matches for kind ${JSON.stringify(kind)} in version ${JSON.stringify(apiVersion)}`;
        throw admissionForbidden(a, `cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion ${apiVersion} Kind ${kind}: ${why}`);
      }
      for (const m of mappings) {
        const d = await decide(
          authz,
          authzAttributes(user, 'update', {
            // An owner in a namespace is in the dependent's.
            namespace: m.namespaced ? a.namespace : '',
            apiGroup: gv.group,
            apiVersion: gv.version,
            resource: m.resource,
            subresource: 'finalizers',
            name: str(ref['name']) ?? '',
          }),
        );
        if (!d.allowed) throw admissionForbidden(a, `cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: ${d.why}`);
      }
    }
  }

  return {
    name: 'OwnerReferencesPermissionEnforcement',
    handles: (rt, sub, op) => (op === 'CREATE' || op === 'UPDATE') && !(rt.group === '' && rt.resource === 'pods' && sub === 'status'),
    // Synchronous when the owners do not change (most writes): no promise, no authorizer call.
    validate(a: AdmissionAttributes): Promise<void> | void {
      if (!changingOwnerReferences(a.object, a.oldObject)) return;
      return checkOwners(a);
    },
  };
}

export const ownerReferencesPermissionEnforcementFactory: AdmissionPluginFactory = {
  name: 'OwnerReferencesPermissionEnforcement',
  create: (deps) => ownerReferencesPermissionEnforcement(deps.authorizer, kindMapperOf(deps.registry.types)),
};
