/**
 * DefaultStorageClass: a PersistentVolumeClaim created without a class gets
 * the default StorageClass, as the original's plugin
 * (plugin/pkg/admission/storage/storageclass/setdefault). A claim "has a
 * class" when spec.storageClassName is set (even to "") or the beta class
 * annotation is present. More than one default class rejects the create
 * (spec 7), with the original's message.
 */
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';
import type { AdmissionPluginFactory } from '../plugin-table.ts';
import type { KObject } from '../../registry/object.ts';
import { names, apiGroup } from '../../naming/index.ts';
import { admissionForbidden, internalErrorText, record } from './admission-errors.ts';

export interface StorageClassSource {
  /** Every StorageClass (the watch cache's). */
  list(): Promise<KObject[]>;
}

/** storageutil.IsDefaultAnnotation: a GA or beta default marker set to "true". */
export function isDefaultStorageClass(sc: KObject): boolean {
  const ann = sc.metadata.annotations ?? {};
  return names.annotations.defaultStorageClass.some((k) => ann[k] === 'true');
}

/** helper.PersistentVolumeClaimHasClass. */
export function claimHasClass(pvc: KObject): boolean {
  const ann = pvc.metadata.annotations ?? {};
  if (names.annotations.betaStorageClass.some((k) => k in ann)) return true;
  const spec = record(pvc['spec']);
  return spec['storageClassName'] !== undefined && spec['storageClassName'] !== null;
}

export function defaultStorageClass(classes: StorageClassSource): AdmissionPlugin {
  return {
    name: 'DefaultStorageClass',
    handles: (rt, sub, op) => rt.group === '' && rt.resource === 'persistentvolumeclaims' && sub === '' && op === 'CREATE',
    async admit(attrs: AdmissionAttributes): Promise<void> {
      const pvc = attrs.object;
      if (pvc === null || claimHasClass(pvc)) return;
      const defaults = (await classes.list()).filter(isDefaultStorageClass);
      if (defaults.length === 0) return;
      if (defaults.length > 1) throw admissionForbidden(attrs, internalErrorText(`${defaults.length} default StorageClasses were found`));
      attrs.object = { ...pvc, spec: { ...record(pvc['spec']), storageClassName: defaults[0]!.metadata.name } };
    },
  };
}

export const defaultStorageClassFactory: AdmissionPluginFactory = {
  name: 'DefaultStorageClass',
  create(deps) {
    const rt = deps.lookup.type(apiGroup('storage'), 'v1', 'storageclasses');
    return defaultStorageClass({ list: async () => (rt === undefined ? [] : deps.lookup.list(rt)) });
  },
};
