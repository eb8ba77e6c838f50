/**
 * PersistentVolumeClaimResize: a claim's storage request may grow only when
 * the claim is bound and its StorageClass (the same before and after)
 * allows volume expansion, as the original's plugin
 * (plugin/pkg/admission/storage/persistentvolume/resize) with its messages.
 * Shrinking or keeping the size is left to validation.
 */
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';
import type { AdmissionPluginFactory } from '../plugin-table.ts';
import type { KObject } from '../../registry/object.ts';
import { names, apiGroup } from '../../naming/index.ts';
import { parseQuantity } from '../../registry/validation/quantity.ts';
import { admissionForbidden, record, str } from './admission-errors.ts';

export interface StorageClassGetter {
  get(name: string): Promise<KObject | null>;
}

/** helper.GetPersistentVolumeClaimClass: the beta annotation first, then spec.storageClassName. */
export function claimClass(pvc: KObject): string {
  const ann = pvc.metadata.annotations ?? {};
  for (const k of names.annotations.betaStorageClass) if (k in ann) return ann[k] ?? '';
  return str(record(pvc['spec'])['storageClassName']) ?? '';
}

/** The storage request in nano-units; 0 when absent, as a missing Quantity reads in Go. */
function storageRequest(pvc: KObject): bigint {
  const requests = record(record(record(pvc['spec'])['resources'])['requests']);
  return parseQuantity(requests['storage']) ?? 0n;
}

export function persistentVolumeClaimResize(classes: StorageClassGetter): AdmissionPlugin {
  const allowResize = async (pvc: KObject, old: KObject): Promise<boolean> => {
    const cls = claimClass(pvc);
    const oldCls = claimClass(old);
    if (cls === '' || oldCls === '' || cls !== oldCls) return false;
    const sc = await classes.get(cls);
    return sc !== null && sc['allowVolumeExpansion'] === true;
  };
  return {
    name: 'PersistentVolumeClaimResize',
    handles: (rt, sub, op) => rt.group === '' && rt.resource === 'persistentvolumeclaims' && sub === '' && op === 'UPDATE',
    async validate(attrs: AdmissionAttributes): Promise<void> {
      const pvc = attrs.object;
      const old = attrs.oldObject;
      if (pvc === null || old === null) return;
      if (storageRequest(pvc) <= storageRequest(old)) return;
      if (record(old['status'])['phase'] !== 'Bound') {
        throw admissionForbidden(attrs, 'Only bound persistent volume claims can be expanded');
      }
      if (!(await allowResize(pvc, old))) {
        throw admissionForbidden(attrs, 'only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize');
      }
    },
  };
}

export const persistentVolumeClaimResizeFactory: AdmissionPluginFactory = {
  name: 'PersistentVolumeClaimResize',
  create(deps) {
    const rt = deps.lookup.type(apiGroup('storage'), 'v1', 'storageclasses');
    return persistentVolumeClaimResize({ get: async (name) => (rt === undefined ? null : deps.lookup.get(rt, '', name)) });
  },
};
