/**
 * StorageObjectInUseProtection: every PersistentVolume and
 * PersistentVolumeClaim is created with its protection finalizer, which the
 * protection controllers remove once nothing uses the object, as the
 * original's plugin (plugin/pkg/admission/storage/storageobjectinuseprotection).
 */
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';
import type { AdmissionPluginFactory } from '../plugin-table.ts';
import { names } from '../../naming/index.ts';

export function storageObjectInUseProtection(): AdmissionPlugin {
  return {
    name: 'StorageObjectInUseProtection',
    handles: (rt, sub, op) =>
      rt.group === '' && (rt.resource === 'persistentvolumes' || rt.resource === 'persistentvolumeclaims') && sub === '' && op === 'CREATE',
    admit(attrs: AdmissionAttributes): void {
      const obj = attrs.object;
      if (obj === null) return;
      const finalizer =
        attrs.resourceType.resource === 'persistentvolumes' ? names.admissionNames.pvProtectionFinalizer : names.admissionNames.pvcProtectionFinalizer;
      const current = Array.isArray(obj.metadata.finalizers) ? obj.metadata.finalizers : [];
      if (current.includes(finalizer)) return;
      attrs.object = { ...obj, metadata: { ...obj.metadata, finalizers: [...current, finalizer] } };
    },
  };
}

export const storageObjectInUseProtectionFactory: AdmissionPluginFactory = {
  name: 'StorageObjectInUseProtection',
  create: () => storageObjectInUseProtection(),
};
