/**
 * PersistentVolumes and PersistentVolumeClaims.
 * Field names, types, markers and proto numbers follow the original API; descriptions are ours.
 */
import { f, S, B, QTY, TIME, OPAQUE, list, map, type StructDecl } from '../schema-dsl.ts';
import { core, meta } from './namespaces.ts';

export const coreStorageTypes: readonly StructDecl[] = [
  core.kind('PersistentVolume', 'A piece of storage in the cluster, provisioned by an administrator or a provisioner.', {
    spec: f(core.ref('PersistentVolumeSpec'), 'Desired characteristics of the volume.', { proto: 2 }),
    status: f(core.ref('PersistentVolumeStatus'), 'Observed state of the volume.', { proto: 3 }),
  }),
  core.struct('PersistentVolumeSpec', 'Characteristics of a persistent volume.', {
    capacity: f(map(QTY), 'Size and other resources of the volume.', { proto: 1 }),
    accessModes: f(list(S), 'Ways the volume can be mounted.', { listType: 'atomic', proto: 3 }),
    claimRef: f(core.ref('ObjectReference'), 'The claim bound to this volume.', { proto: 4 }),
    persistentVolumeReclaimPolicy: f(S, 'What happens when the claim is released: Retain, Delete or Recycle.', { enum: ['Recycle', 'Delete', 'Retain'], proto: 5 }),
    storageClassName: f(S, 'StorageClass of the volume.', { proto: 6 }),
    mountOptions: f(list(S), 'Mount options, not validated.', { listType: 'atomic', proto: 7 }),
    volumeMode: f(S, 'Filesystem or Block.', { enum: ['Block', 'Filesystem'], proto: 8 }),
    nodeAffinity: f(core.ref('VolumeNodeAffinity'), 'Nodes the volume can be reached from.', { proto: 9 }),
    volumeAttributesClassName: f(S, 'VolumeAttributesClass of the volume.', { proto: 10 }),
  }, { embeds: [{ name: core.name('PersistentVolumeSource'), proto: 2 }] }),
  core.struct('PersistentVolumeSource', 'Where a persistent volume\'s data lives; exactly one member is set.', {
    gcePersistentDisk: f(OPAQUE, 'Deprecated in-tree GCE persistent disk.', { proto: 1 }),
    awsElasticBlockStore: f(OPAQUE, 'Deprecated in-tree AWS EBS disk.', { proto: 2 }),
    hostPath: f(core.ref('HostPathVolumeSource'), 'A directory on a node; for testing only.', { proto: 3 }),
    glusterfs: f(OPAQUE, 'Removed in-tree Glusterfs volume.', { proto: 4 }),
    nfs: f(core.ref('NFSVolumeSource'), 'An NFS export.', { proto: 5 }),
    rbd: f(OPAQUE, 'Deprecated in-tree Rados block device.', { proto: 6 }),
    iscsi: f(OPAQUE, 'An iSCSI disk.', { proto: 7 }),
    cinder: f(OPAQUE, 'Deprecated in-tree Cinder volume.', { proto: 8 }),
    cephfs: f(OPAQUE, 'Deprecated in-tree CephFS mount.', { proto: 9 }),
    fc: f(OPAQUE, 'A Fibre Channel disk.', { proto: 10 }),
    flocker: f(OPAQUE, 'Deprecated Flocker volume.', { proto: 11 }),
    flexVolume: f(OPAQUE, 'Deprecated FlexVolume driver volume.', { proto: 12 }),
    azureFile: f(OPAQUE, 'Deprecated in-tree Azure File share.', { proto: 13 }),
    vsphereVolume: f(OPAQUE, 'Deprecated in-tree vSphere disk.', { proto: 14 }),
    quobyte: f(OPAQUE, 'Deprecated Quobyte mount.', { proto: 15 }),
    azureDisk: f(OPAQUE, 'Deprecated in-tree Azure disk.', { proto: 16 }),
    photonPersistentDisk: f(OPAQUE, 'Deprecated Photon disk.', { proto: 17 }),
    portworxVolume: f(OPAQUE, 'Deprecated in-tree Portworx volume.', { proto: 18 }),
    scaleIO: f(OPAQUE, 'Deprecated ScaleIO volume.', { proto: 19 }),
    local: f(core.ref('LocalVolumeSource'), 'A local disk, partition or directory on one node.', { proto: 20 }),
    storageos: f(OPAQUE, 'Deprecated StorageOS volume.', { proto: 21 }),
    csi: f(core.ref('CSIPersistentVolumeSource'), 'A volume managed by a CSI driver.', { proto: 22 }),
  }),
  core.struct('PersistentVolumeStatus', 'Observed state of a persistent volume.', {
    phase: f(S, 'Pending, Available, Bound, Released or Failed.', { enum: ['Pending', 'Available', 'Bound', 'Released', 'Failed'], proto: 1 }),
    message: f(S, 'Human-readable details on the state.', { proto: 2 }),
    reason: f(S, 'Short CamelCase reason for a failure.', { proto: 3 }),
    lastPhaseTransitionTime: f(TIME, 'When the phase last changed.', { proto: 4 }),
  }),
  core.struct('VolumeNodeAffinity', 'Nodes a volume can be reached from.', {
    required: f(core.ref('NodeSelector'), 'Node selector that nodes must match.', { proto: 1 }),
  }),
  core.struct('LocalVolumeSource', 'Local storage on a node.', {
    path: f(S, 'Full path of the storage on the node.', { required: true, proto: 1 }),
    fsType: f(S, 'Filesystem type, for block devices.', { proto: 2 }),
  }),
  core.struct('NFSVolumeSource', 'An NFS mount.', {
    server: f(S, 'Host name or IP of the NFS server.', { required: true, proto: 1 }),
    path: f(S, 'Exported path.', { required: true, proto: 2 }),
    readOnly: f(B, 'Mount read-only.', { proto: 3 }),
  }),
  core.struct('CSIPersistentVolumeSource', 'A volume of a CSI driver.', {
    driver: f(S, 'Name of the driver.', { required: true, proto: 1 }),
    volumeHandle: f(S, 'Volume ID as the driver knows it.', { required: true, proto: 2 }),
    readOnly: f(B, 'Publish read-only.', { proto: 3 }),
    fsType: f(S, 'Filesystem type to mount.', { proto: 4 }),
    volumeAttributes: f(map(S), 'Driver-specific attributes.', { proto: 5 }),
    controllerPublishSecretRef: f(core.ref('SecretReference'), 'Secret for ControllerPublish and ControllerUnpublish calls.', { proto: 6 }),
    nodeStageSecretRef: f(core.ref('SecretReference'), 'Secret for NodeStage and NodeUnstage calls.', { proto: 7 }),
    nodePublishSecretRef: f(core.ref('SecretReference'), 'Secret for NodePublish and NodeUnpublish calls.', { proto: 8 }),
    controllerExpandSecretRef: f(core.ref('SecretReference'), 'Secret for ControllerExpand calls.', { proto: 9 }),
    nodeExpandSecretRef: f(core.ref('SecretReference'), 'Secret for NodeExpand calls.', { proto: 10 }),
  }),
  core.struct('SecretReference', 'Names a Secret in any namespace.', {
    name: f(S, 'Secret name.', { proto: 1 }),
    namespace: f(S, 'Secret namespace.', { proto: 2 }),
  }, { structType: 'atomic' }),
  core.kind('PersistentVolumeClaim', 'A request for storage by a user.', {
    spec: f(core.ref('PersistentVolumeClaimSpec'), 'Storage the claim asks for.', { proto: 2 }),
    status: f(core.ref('PersistentVolumeClaimStatus'), 'Observed state of the claim.', { proto: 3 }),
  }),
  core.struct('PersistentVolumeClaimSpec', 'Storage a claim asks for.', {
    accessModes: f(list(S), 'Access modes needed.', { listType: 'atomic', proto: 1 }),
    selector: f(meta.ref('LabelSelector'), 'Labels of volumes that may be bound.', { proto: 4 }),
    resources: f(core.ref('VolumeResourceRequirements'), 'Least (and most) resources the volume must have.', { proto: 2 }),
    volumeName: f(S, 'Volume to bind to.', { proto: 3 }),
    storageClassName: f(S, 'StorageClass to provision from.', { proto: 5 }),
    volumeMode: f(S, 'Filesystem or Block.', { enum: ['Block', 'Filesystem'], proto: 6 }),
    dataSource: f(core.ref('TypedLocalObjectReference'), 'Object to fill the new volume from, such as a snapshot.', { proto: 7 }),
    dataSourceRef: f(core.ref('TypedObjectReference'), 'Object, maybe in another namespace, to fill the new volume from.', { proto: 8 }),
    volumeAttributesClassName: f(S, 'VolumeAttributesClass to use.', { proto: 9 }),
  }),
  core.struct('PersistentVolumeClaimStatus', 'Observed state of a claim.', {
    phase: f(S, 'Pending, Bound or Lost.', { enum: ['Pending', 'Bound', 'Lost'], proto: 1 }),
    accessModes: f(list(S), 'Access modes of the bound volume.', { listType: 'atomic', proto: 2 }),
    capacity: f(map(QTY), 'Resources of the bound volume.', { proto: 3 }),
    conditions: f(list(core.ref('PersistentVolumeClaimCondition')), 'Current conditions, such as Resizing.', { listType: 'map', listMapKeys: ['type'], patchMergeKey: 'type', patchStrategy: 'merge', proto: 4 }),
    allocatedResources: f(map(QTY), 'Resources allocated to the claim, which may exceed the request.', { proto: 5 }),
    allocatedResourceStatuses: f(map(S), 'State of resize operations per resource.', { mapType: 'granular', proto: 7 }),
    currentVolumeAttributesClassName: f(S, 'VolumeAttributesClass currently applied.', { proto: 8 }),
    modifyVolumeStatus: f(core.ref('ModifyVolumeStatus'), 'State of a volume attribute change, if any.', { proto: 9 }),
  }),
  core.struct('PersistentVolumeClaimCondition', 'One condition of a claim.', {
    type: f(S, 'Condition type.', { required: true, proto: 1 }),
    status: f(S, 'True, False or Unknown.', { required: true, proto: 2 }),
    lastProbeTime: f(TIME, 'When the condition was last checked.', { proto: 3 }),
    lastTransitionTime: f(TIME, 'When the condition last changed from one status to another.', { proto: 4 }),
    reason: f(S, 'Machine-readable, CamelCase reason for the last transition.', { proto: 5 }),
    message: f(S, 'Human-readable details about the last transition.', { proto: 6 }),
  }),
  core.struct('VolumeResourceRequirements', 'Storage resources of a claim.', {
    limits: f(map(QTY), 'Most of each resource allowed.', { proto: 1 }),
    requests: f(map(QTY), 'Least of each resource needed.', { proto: 2 }),
  }),
  core.struct('TypedLocalObjectReference', 'A typed reference in the same namespace.', {
    apiGroup: f(S, 'Group of the referenced kind; empty for the core group.', { proto: 1 }),
    kind: f(S, 'Kind of the object.', { required: true, proto: 2 }),
    name: f(S, 'Name of the object.', { required: true, proto: 3 }),
  }, { structType: 'atomic' }),
  core.struct('TypedObjectReference', 'A typed reference, maybe to another namespace.', {
    apiGroup: f(S, 'Group of the referenced kind; empty for the core group.', { proto: 1 }),
    kind: f(S, 'Kind of the object.', { required: true, proto: 2 }),
    name: f(S, 'Name of the object.', { required: true, proto: 3 }),
    namespace: f(S, 'Namespace of the object.', { proto: 4 }),
  }),
  core.struct('ModifyVolumeStatus', 'State of a volume attribute change.', {
    targetVolumeAttributesClassName: f(S, 'Class being applied.', { proto: 1 }),
    status: f(S, 'Pending, InProgress or Infeasible.', { required: true, enum: ['Pending', 'InProgress', 'Infeasible'], proto: 2 }),
  }),
];
