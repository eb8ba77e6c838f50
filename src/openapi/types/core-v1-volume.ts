/**
 * Pod volumes and their common sources.
 * Field names, types, markers and proto numbers follow the original API; descriptions are ours.
 */
import { f, S, I32, I64, B, QTY, OPAQUE, list, type StructDecl } from '../schema-dsl.ts';
import { core } from './namespaces.ts';

export const volumeTypes: readonly StructDecl[] = [
  core.struct('Volume', 'A named volume that containers of the pod can mount.', {
    name: f(S, 'Volume name; a DNS label, unique within the pod.', { required: true, proto: 1 }),
  }, { embeds: [{ name: core.name('VolumeSource'), proto: 2 }] }),
  core.struct('VolumeSource', 'Where a volume\'s data comes from; exactly one member is set.', {
    hostPath: f(core.ref('HostPathVolumeSource'), 'A file or directory on the node.', { proto: 1 }),
    emptyDir: f(core.ref('EmptyDirVolumeSource'), 'An empty directory that lives as long as the pod.', { proto: 2 }),
    gcePersistentDisk: f(OPAQUE, 'Deprecated in-tree GCE persistent disk.', { proto: 3 }),
    awsElasticBlockStore: f(OPAQUE, 'Deprecated in-tree AWS EBS disk.', { proto: 4 }),
    gitRepo: f(OPAQUE, 'Deprecated: a git repository cloned into the volume.', { proto: 5 }),
    secret: f(core.ref('SecretVolumeSource'), 'A Secret\'s keys as files.', { proto: 6 }),
    nfs: f(core.ref('NFSVolumeSource'), 'An NFS export.', { proto: 7 }),
    iscsi: f(OPAQUE, 'An iSCSI disk.', { proto: 8 }),
    glusterfs: f(OPAQUE, 'Removed in-tree Glusterfs volume.', { proto: 9 }),
    persistentVolumeClaim: f(core.ref('PersistentVolumeClaimVolumeSource'), 'A PersistentVolumeClaim in the pod\'s namespace.', { proto: 10 }),
    rbd: f(OPAQUE, 'Deprecated in-tree Rados block device.', { proto: 11 }),
    flexVolume: f(OPAQUE, 'Deprecated FlexVolume driver volume.', { proto: 12 }),
    cinder: f(OPAQUE, 'Deprecated in-tree Cinder volume.', { proto: 13 }),
    cephfs: f(OPAQUE, 'Deprecated in-tree CephFS mount.', { proto: 14 }),
    flocker: f(OPAQUE, 'Deprecated Flocker volume.', { proto: 15 }),
    downwardAPI: f(core.ref('DownwardAPIVolumeSource'), 'Pod fields as files.', { proto: 16 }),
    fc: f(OPAQUE, 'A Fibre Channel disk.', { proto: 17 }),
    azureFile: f(OPAQUE, 'Deprecated in-tree Azure File share.', { proto: 18 }),
    configMap: f(core.ref('ConfigMapVolumeSource'), 'A ConfigMap\'s keys as files.', { proto: 19 }),
    vsphereVolume: f(OPAQUE, 'Deprecated in-tree vSphere disk.', { proto: 20 }),
    quobyte: f(OPAQUE, 'Deprecated Quobyte mount.', { proto: 21 }),
    azureDisk: f(OPAQUE, 'Deprecated in-tree Azure disk.', { proto: 22 }),
    photonPersistentDisk: f(OPAQUE, 'Deprecated Photon disk.', { proto: 23 }),
    projected: f(core.ref('ProjectedVolumeSource'), 'Several sources projected into one directory.', { proto: 26 }),
    portworxVolume: f(OPAQUE, 'Deprecated in-tree Portworx volume.', { proto: 24 }),
    scaleIO: f(OPAQUE, 'Deprecated ScaleIO volume.', { proto: 25 }),
    storageos: f(OPAQUE, 'Deprecated StorageOS volume.', { proto: 27 }),
    csi: f(OPAQUE, 'An inline volume from a CSI driver.', { proto: 28 }),
    ephemeral: f(OPAQUE, 'A volume from a PVC template, created and deleted with the pod.', { proto: 29 }),
    image: f(OPAQUE, 'An OCI image or artifact mounted read-only.', { proto: 30 }),
  }),
  core.struct('ConfigMapVolumeSource', 'Projects a ConfigMap\'s keys into a volume.', {
    items: f(list(core.ref('KeyToPath')), 'Keys to project and their paths; default all keys.', { listType: 'atomic', proto: 2 }),
    defaultMode: f(I32, 'Permission bits of the files; default 0644.', { proto: 3 }),
    optional: f(B, 'Allow the ConfigMap or its keys to be missing.', { proto: 4 }),
  }, { embeds: [{ name: core.name('LocalObjectReference'), proto: 1 }] }),
  core.struct('KeyToPath', 'Maps a key to a file path.', {
    key: f(S, 'Key to project.', { required: true, proto: 1 }),
    path: f(S, 'Relative file path; must not contain \'..\'.', { required: true, proto: 2 }),
    mode: f(I32, 'Permission bits of this file.', { proto: 3 }),
  }),
  core.struct('SecretVolumeSource', 'Projects a Secret\'s keys into a volume.', {
    secretName: f(S, 'Secret in the pod\'s namespace.', { proto: 1 }),
    items: f(list(core.ref('KeyToPath')), 'Keys to project and their paths; default all keys.', { listType: 'atomic', proto: 2 }),
    defaultMode: f(I32, 'Permission bits of the files; default 0644.', { proto: 3 }),
    optional: f(B, 'Allow the Secret or its keys to be missing.', { proto: 4 }),
  }),
  core.struct('EmptyDirVolumeSource', 'An empty directory for the pod\'s lifetime.', {
    medium: f(S, 'Storage medium: empty for the node\'s default, Memory for tmpfs.', { proto: 1 }),
    sizeLimit: f(QTY, 'Most local storage the volume may use.', { proto: 2 }),
  }),
  core.struct('HostPathVolumeSource', 'A path on the node.', {
    path: f(S, 'Path on the node; symlinks are followed.', { required: true, proto: 1 }),
    type: f(S, 'What must exist at the path.', { enum: ['', 'DirectoryOrCreate', 'Directory', 'FileOrCreate', 'File', 'Socket', 'CharDevice', 'BlockDevice'], proto: 2 }),
  }),
  core.struct('PersistentVolumeClaimVolumeSource', 'Uses a PersistentVolumeClaim of the pod\'s namespace.', {
    claimName: f(S, 'Name of the claim.', { required: true, proto: 1 }),
    readOnly: f(B, 'Mount read-only.', { proto: 2 }),
  }),
  core.struct('ProjectedVolumeSource', 'Several sources in one directory.', {
    sources: f(list(core.ref('VolumeProjection')), 'The sources.', { listType: 'atomic', proto: 1 }),
    defaultMode: f(I32, 'Permission bits of the files.', { proto: 2 }),
  }),
  core.struct('VolumeProjection', 'One source of a projected volume; exactly one member is set.', {
    secret: f(core.ref('SecretProjection'), 'Keys of a Secret.', { proto: 1 }),
    downwardAPI: f(core.ref('DownwardAPIProjection'), 'Fields of the pod.', { proto: 2 }),
    configMap: f(core.ref('ConfigMapProjection'), 'Keys of a ConfigMap.', { proto: 3 }),
    serviceAccountToken: f(core.ref('ServiceAccountTokenProjection'), 'A service account token.', { proto: 4 }),
    clusterTrustBundle: f(OPAQUE, 'Certificates of ClusterTrustBundles.', { proto: 5 }),
  }),
  core.struct('ConfigMapProjection', 'Projects a ConfigMap\'s keys.', {
    items: f(list(core.ref('KeyToPath')), 'Keys to project and their paths.', { listType: 'atomic', proto: 2 }),
    optional: f(B, 'Allow the ConfigMap or its keys to be missing.', { proto: 4 }),
  }, { embeds: [{ name: core.name('LocalObjectReference'), proto: 1 }] }),
  core.struct('SecretProjection', 'Projects a Secret\'s keys.', {
    items: f(list(core.ref('KeyToPath')), 'Keys to project and their paths.', { listType: 'atomic', proto: 2 }),
    optional: f(B, 'Allow the Secret or its keys to be missing.', { proto: 4 }),
  }, { embeds: [{ name: core.name('LocalObjectReference'), proto: 1 }] }),
  core.struct('DownwardAPIProjection', 'Projects pod fields.', {
    items: f(list(core.ref('DownwardAPIVolumeFile')), 'Fields and their files.', { listType: 'atomic', proto: 1 }),
  }),
  core.struct('ServiceAccountTokenProjection', 'Projects a service account token.', {
    audience: f(S, 'Audience the token is for; default the API server.', { proto: 1 }),
    expirationSeconds: f(I64, 'Requested lifetime; default one hour, at least ten minutes.', { proto: 2 }),
    path: f(S, 'File path of the token.', { required: true, proto: 3 }),
  }),
  core.struct('DownwardAPIVolumeSource', 'Pod fields as files.', {
    items: f(list(core.ref('DownwardAPIVolumeFile')), 'Fields and their files.', { listType: 'atomic', proto: 1 }),
    defaultMode: f(I32, 'Permission bits of the files.', { proto: 2 }),
  }),
  core.struct('DownwardAPIVolumeFile', 'A file holding a pod field.', {
    path: f(S, 'Relative file path.', { required: true, proto: 1 }),
    fieldRef: f(core.ref('ObjectFieldSelector'), 'Pod field to write.', { proto: 2 }),
    resourceFieldRef: f(core.ref('ResourceFieldSelector'), 'Container resource to write.', { proto: 3 }),
    mode: f(I32, 'Permission bits of this file.', { proto: 4 }),
  }),
];
