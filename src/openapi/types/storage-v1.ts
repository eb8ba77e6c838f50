/**
 * storage.<suffix>/v1: storage classes, CSI drivers and attachments (shallow).
 * Field names, types, markers and proto numbers follow the original API; descriptions are ours.
 */
import { f, S, B, QTY, OPAQUE, list, map, type StructDecl } from '../schema-dsl.ts';
import { meta, storage } from './namespaces.ts';

export const storageTypes: readonly StructDecl[] = [
  storage.kind('StorageClass', 'A class of storage that volumes are provisioned from.', {
    provisioner: f(S, 'Name of the volume provisioner.', { required: true, proto: 2 }),
    parameters: f(map(S), 'Parameters for the provisioner.', { proto: 3 }),
    reclaimPolicy: f(S, 'Delete or Retain for provisioned volumes; default Delete.', { enum: ['Recycle', 'Delete', 'Retain'], proto: 4 }),
    mountOptions: f(list(S), 'Mount options for provisioned volumes.', { listType: 'atomic', proto: 5 }),
    allowVolumeExpansion: f(B, 'Claims of this class may grow.', { proto: 6 }),
    volumeBindingMode: f(S, 'Immediate or WaitForFirstConsumer.', { enum: ['Immediate', 'WaitForFirstConsumer'], proto: 7 }),
    allowedTopologies: f(list(OPAQUE), 'Topologies volumes may be provisioned in.', { listType: 'atomic', proto: 8 }),
  }),
  storage.kind('VolumeAttachment', 'A request to attach a volume to a node, or detach it.', {
    spec: f(OPAQUE, 'Volume and node.', { required: true, proto: 2 }),
    status: f(OPAQUE, 'Attach and detach state.', { proto: 3 }),
  }),
  storage.kind('CSIDriver', 'A CSI volume driver deployed in the cluster.', {
    spec: f(OPAQUE, 'Capabilities of the driver.', { required: true, proto: 2 }),
  }),
  storage.kind('CSINode', 'The CSI drivers installed on a node.', {
    spec: f(OPAQUE, 'Drivers on the node.', { required: true, proto: 2 }),
  }),
  storage.kind('CSIStorageCapacity', 'Storage capacity available from a class in a topology segment.', {
    nodeTopology: f(meta.ref('LabelSelector'), 'Nodes that can reach the storage.', { proto: 2 }),
    storageClassName: f(S, 'StorageClass the capacity is for.', { required: true, proto: 3 }),
    capacity: f(QTY, 'Capacity reported by the driver.', { proto: 4 }),
    maximumVolumeSize: f(QTY, 'Largest volume that can be created.', { proto: 5 }),
  }),
];
