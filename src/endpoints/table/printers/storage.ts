/**
 * Storage: persistent volumes and claims, storage classes, CSI drivers and
 * nodes, volume attachments (printPersistentVolume, printStorageClass, ...).
 */
import { AGE, NAME, column, text, wide } from '../columns.ts';
import { quantity } from '../format.ts';
import { arr, metadataOf, obj, objs, optBool, optStr, str, strMap } from '../json.ts';
import type { Printer, Registration } from '../printer.ts';
import type { JsonObject } from '../types.ts';
import { apiGroup, names } from '../../../naming/index.ts';

/** The beta annotation that still overrides storageClassName, as the original's helper reads it. */
const BETA_CLASS_ANNOTATIONS = names.annotations.betaStorageClass;

/** Default-class annotations: ours and the original's, current and beta. */
const DEFAULT_CLASS_ANNOTATIONS = names.annotations.defaultStorageClass;

/** GetAccessModesAsString: RWO, ROX, RWX, RWOP in that order, each once. */
function accessModes(modes: unknown): string {
  const set = new Set(arr(modes));
  const out: string[] = [];
  if (set.has('ReadWriteOnce')) out.push('RWO');
  if (set.has('ReadOnlyMany')) out.push('ROX');
  if (set.has('ReadWriteMany')) out.push('RWX');
  if (set.has('ReadWriteOncePod')) out.push('RWOP');
  return out.join(',');
}

function storageClassOf(meta: JsonObject, spec: JsonObject): string {
  const annotations = strMap(meta['annotations']);
  for (const a of BETA_CLASS_ANNOTATIONS) if (Object.hasOwn(annotations, a)) return annotations[a]!;
  return str(spec['storageClassName']);
}

function deleting(meta: JsonObject): boolean {
  return optStr(meta['deletionTimestamp']) !== undefined;
}

export const persistentVolumePrinter: Printer = {
  columns: [
    NAME,
    column('Capacity', 'string', 'PersistentVolumeSpec.capacity'),
    column('Access Modes', 'string', 'PersistentVolumeSpec.accessModes'),
    column('Reclaim Policy', 'string', 'PersistentVolumeSpec.persistentVolumeReclaimPolicy'),
    column('Status', 'string', 'PersistentVolumeStatus.phase'),
    column('Claim', 'string', 'PersistentVolumeSpec.claimRef'),
    column('StorageClass', 'string', text('StorageClass of the pv')),
    column('VolumeAttributesClass', 'string', text('VolumeAttributesClass of the pv')),
    column('Reason', 'string', 'PersistentVolumeStatus.reason'),
    AGE,
    wide('VolumeMode', 'string', 'PersistentVolumeSpec.volumeMode'),
  ],
  cells(o, clock) {
    const meta = metadataOf(o);
    const spec = obj(o['spec']);
    const status = obj(o['status']);
    const claimRef = spec['claimRef'];
    const claim = typeof claimRef === 'object' && claimRef !== null ? `${str(obj(claimRef)['namespace'])}/${str(obj(claimRef)['name'])}` : '';
    return [
      str(meta['name']),
      quantity(obj(spec['capacity'])['storage']),
      accessModes(spec['accessModes']),
      str(spec['persistentVolumeReclaimPolicy']),
      deleting(meta) ? 'Terminating' : str(status['phase']),
      claim,
      storageClassOf(meta, spec),
      optStr(spec['volumeAttributesClassName']) ?? '<unset>',
      str(status['reason']),
      clock.since(meta['creationTimestamp']),
      optStr(spec['volumeMode']) ?? '<unset>',
    ];
  },
};

export const persistentVolumeClaimPrinter: Printer = {
  columns: [
    NAME,
    column('Status', 'string', 'PersistentVolumeClaimStatus.phase'),
    column('Volume', 'string', 'PersistentVolumeClaimSpec.volumeName'),
    column('Capacity', 'string', 'PersistentVolumeClaimStatus.capacity'),
    column('Access Modes', 'string', 'PersistentVolumeClaimStatus.accessModes'),
    column('StorageClass', 'string', text('StorageClass of the pvc')),
    column('VolumeAttributesClass', 'string', text('VolumeAttributesClass of the pvc')),
    AGE,
    wide('VolumeMode', 'string', 'PersistentVolumeClaimSpec.volumeMode'),
  ],
  cells(o, clock) {
    const meta = metadataOf(o);
    const spec = obj(o['spec']);
    const status = obj(o['status']);
    const volumeName = str(spec['volumeName']);
    // Capacity and modes are only shown once the claim is bound to a volume.
    const bound = volumeName !== '';
    return [
      str(meta['name']),
      deleting(meta) ? 'Terminating' : str(status['phase']),
      volumeName,
      bound ? quantity(obj(status['capacity'])['storage']) : '',
      bound ? accessModes(status['accessModes']) : '',
      storageClassOf(meta, spec),
      optStr(spec['volumeAttributesClassName']) ?? '<unset>',
      clock.since(meta['creationTimestamp']),
      optStr(spec['volumeMode']) ?? '<unset>',
    ];
  },
};

export const storageClassPrinter: Printer = {
  columns: [
    NAME,
    column('Provisioner', 'string', 'StorageClass.provisioner'),
    column('ReclaimPolicy', 'string', 'StorageClass.reclaimPolicy'),
    column('VolumeBindingMode', 'string', 'StorageClass.volumeBindingMode'),
    column('AllowVolumeExpansion', 'string', 'StorageClass.allowVolumeExpansion'),
    AGE,
  ],
  cells(o, clock) {
    const meta = metadataOf(o);
    const annotations = strMap(meta['annotations']);
    const isDefault = DEFAULT_CLASS_ANNOTATIONS.some((a) => annotations[a] === 'true');
    return [
      str(meta['name']) + (isDefault ? ' (default)' : ''),
      str(o['provisioner']),
      optStr(o['reclaimPolicy']) ?? 'Delete',
      optStr(o['volumeBindingMode']) ?? 'Immediate',
      optBool(o['allowVolumeExpansion']) ?? false,
      clock.since(meta['creationTimestamp']),
    ];
  },
};

export const csiDriverPrinter: Printer = {
  columns: [
    NAME,
    column('AttachRequired', 'boolean', 'CSIDriverSpec.attachRequired'),
    column('PodInfoOnMount', 'boolean', 'CSIDriverSpec.podInfoOnMount'),
    column('StorageCapacity', 'boolean', 'CSIDriverSpec.storageCapacity'),
    column('TokenRequests', 'string', 'CSIDriverSpec.tokenRequests'),
    column('RequiresRepublish', 'boolean', 'CSIDriverSpec.requiresRepublish'),
    column('Modes', 'string', 'CSIDriverSpec.volumeLifecycleModes'),
    AGE,
  ],
  cells(o, clock) {
    const meta = metadataOf(o);
    const spec = obj(o['spec']);
    const tokenRequests = spec['tokenRequests'];
    const modes = arr(spec['volumeLifecycleModes']).map(String).join(',');
    return [
      str(meta['name']),
      optBool(spec['attachRequired']) ?? true,
      optBool(spec['podInfoOnMount']) ?? false,
      optBool(spec['storageCapacity']) ?? false,
      Array.isArray(tokenRequests) ? objs(tokenRequests).map((t) => str(t['audience'])).join(',') : '<unset>',
      optBool(spec['requiresRepublish']) ?? false,
      modes === '' ? '<none>' : modes,
      clock.since(meta['creationTimestamp']),
    ];
  },
};

export const csiNodePrinter: Printer = {
  columns: [NAME, column('Drivers', 'integer', text('Drivers indicates the number of CSI drivers registered on the node')), AGE],
  cells(o, clock) {
    const meta = metadataOf(o);
    return [str(meta['name']), arr(obj(o['spec'])['drivers']).length, clock.since(meta['creationTimestamp'])];
  },
};

export const volumeAttachmentPrinter: Printer = {
  columns: [
    NAME,
    column('Attacher', 'string', 'VolumeAttachmentSpec.attacher', { format: 'name' }),
    column('PV', 'string', 'VolumeAttachmentSource.persistentVolumeName'),
    column('Node', 'string', 'VolumeAttachmentSpec.nodeName'),
    column('Attached', 'boolean', 'VolumeAttachmentStatus.attached'),
    AGE,
  ],
  cells(o, clock) {
    const meta = metadataOf(o);
    const spec = obj(o['spec']);
    return [
      str(meta['name']),
      str(spec['attacher']),
      str(obj(spec['source'])['persistentVolumeName']),
      str(spec['nodeName']),
      obj(o['status'])['attached'] === true,
      clock.since(meta['creationTimestamp']),
    ];
  },
};

export const registrations: readonly Registration[] = [
  { group: '', kind: 'PersistentVolume', printer: persistentVolumePrinter },
  { group: '', kind: 'PersistentVolumeClaim', printer: persistentVolumeClaimPrinter },
  { group: apiGroup('storage'), kind: 'StorageClass', printer: storageClassPrinter },
  { group: apiGroup('storage'), kind: 'CSIDriver', printer: csiDriverPrinter },
  { group: apiGroup('storage'), kind: 'CSINode', printer: csiNodePrinter },
  { group: apiGroup('storage'), kind: 'VolumeAttachment', printer: volumeAttachmentPrinter },
];
