/**
 * Nodes: machines that run pods.
 * Field names, types, markers and proto numbers follow the original API; descriptions are ours.
 */
import { f, S, I32, I64, B, QTY, TIME, OPAQUE, list, map, type StructDecl } from '../schema-dsl.ts';
import { core } from './namespaces.ts';

export const nodeTypes: readonly StructDecl[] = [
  core.kind('Node', 'A machine, real or virtual, that runs pods.', {
    spec: f(core.ref('NodeSpec'), 'Desired behaviour of the node.', { proto: 2 }),
    status: f(core.ref('NodeStatus'), 'Most recently observed state of the node.', { proto: 3 }),
  }),
  core.struct('NodeSpec', 'Desired behaviour of a node.', {
    podCIDR: f(S, 'Primary pod address range of the node.', { proto: 1 }),
    podCIDRs: f(list(S), 'Pod address ranges, at most one per family.', { listType: 'set', patchStrategy: 'merge', proto: 7 }),
    providerID: f(S, 'Cloud provider\'s ID of the node.', { proto: 3 }),
    unschedulable: f(B, 'Keep new pods off the node.', { proto: 4 }),
    taints: f(list(core.ref('Taint')), 'Taints of the node.', { listType: 'atomic', proto: 5 }),
    configSource: f(OPAQUE, 'Deprecated; no longer used.', { proto: 6 }),
    externalID: f(S, 'Deprecated; no longer used.', { proto: 2 }),
  }),
  core.struct('Taint', 'Repels pods that do not tolerate it.', {
    key: f(S, 'Taint key.', { required: true, proto: 1 }),
    value: f(S, 'Taint value.', { proto: 2 }),
    effect: f(S, 'NoSchedule, PreferNoSchedule or NoExecute.', { required: true, enum: ['NoSchedule', 'PreferNoSchedule', 'NoExecute'], proto: 3 }),
    timeAdded: f(TIME, 'When a NoExecute taint was added.', { proto: 4 }),
  }),
  core.struct('NodeStatus', 'Observed state of a node.', {
    capacity: f(map(QTY), 'Total resources of the node.', { proto: 1 }),
    allocatable: f(map(QTY), 'Resources available to pods.', { proto: 2 }),
    phase: f(S, 'Deprecated lifecycle phase.', { enum: ['Pending', 'Running', 'Terminated'], proto: 3 }),
    conditions: f(list(core.ref('NodeCondition')), 'Current conditions, such as Ready.', { listType: 'map', listMapKeys: ['type'], patchMergeKey: 'type', patchStrategy: 'merge', proto: 4 }),
    addresses: f(list(core.ref('NodeAddress')), 'Addresses of the node.', { listType: 'map', listMapKeys: ['type'], patchMergeKey: 'type', patchStrategy: 'merge', proto: 5 }),
    daemonEndpoints: f(core.ref('NodeDaemonEndpoints'), 'Endpoints of daemons on the node.', { proto: 6 }),
    nodeInfo: f(core.ref('NodeSystemInfo'), 'Versions and IDs reported by the node.', { proto: 7 }),
    images: f(list(core.ref('ContainerImage')), 'Images present on the node.', { listType: 'atomic', proto: 8 }),
    volumesInUse: f(list(S), 'Volumes attached and mounted.', { listType: 'atomic', proto: 9 }),
    volumesAttached: f(list(core.ref('AttachedVolume')), 'Volumes attached to the node.', { listType: 'atomic', proto: 10 }),
    config: f(OPAQUE, 'Deprecated dynamic config status.', { proto: 11 }),
    runtimeHandlers: f(list(OPAQUE), 'Runtime handlers available on the node.', { listType: 'atomic', proto: 12 }),
    features: f(OPAQUE, 'Features the node supports.', { proto: 13 }),
  }),
  core.struct('NodeAddress', 'An address of a node.', {
    type: f(S, 'Hostname, ExternalIP, InternalIP, ExternalDNS or InternalDNS.', { required: true, proto: 1 }),
    address: f(S, 'The address.', { required: true, proto: 2 }),
  }),
  core.struct('NodeCondition', 'One condition of a node.', {
    type: f(S, 'Condition type, such as Ready or MemoryPressure.', { required: true, proto: 1 }),
    status: f(S, 'True, False or Unknown.', { required: true, proto: 2 }),
    lastHeartbeatTime: f(TIME, 'When the condition was last reported.', { proto: 3 }),
    lastTransitionTime: f(TIME, 'When the condition last changed from one status to another.', { proto: 4 }),
    reason: f(S, 'Machine-readable, CamelCase reason for the last transition.', { proto: 5 }),
    message: f(S, 'Human-readable details about the last transition.', { proto: 6 }),
  }),
  core.struct('NodeSystemInfo', 'Versions and IDs of a node.', {
    machineID: f(S, 'Machine ID.', { required: true, proto: 1 }),
    systemUUID: f(S, 'System UUID.', { required: true, proto: 2 }),
    bootID: f(S, 'Boot ID.', { required: true, proto: 3 }),
    kernelVersion: f(S, 'Kernel version.', { required: true, proto: 4 }),
    osImage: f(S, 'OS image.', { required: true, proto: 5 }),
    containerRuntimeVersion: f(S, 'Container runtime and version.', { required: true, proto: 6 }),
    kubeletVersion: f(S, 'Version of the node agent.', { required: true, proto: 7 }),
    kubeProxyVersion: f(S, 'Deprecated; not reliable.', { required: true, proto: 8 }),
    operatingSystem: f(S, 'Operating system.', { required: true, proto: 9 }),
    architecture: f(S, 'CPU architecture.', { required: true, proto: 10 }),
  }),
  core.struct('NodeDaemonEndpoints', 'Ports of daemons on a node.', {
    kubeletEndpoint: f(core.ref('DaemonEndpoint'), 'Endpoint of the node agent.', { proto: 1 }),
  }),
  core.struct('DaemonEndpoint', 'A daemon\'s port.', {
    Port: f(I32, 'Port number.', { required: true, proto: 1 }),
  }),
  core.struct('ContainerImage', 'An image on a node.', {
    names: f(list(S), 'Names of the image.', { listType: 'atomic', proto: 1 }),
    sizeBytes: f(I64, 'Size in bytes.', { proto: 2 }),
  }),
  core.struct('AttachedVolume', 'A volume attached to a node.', {
    name: f(S, 'Volume name.', { required: true, proto: 1 }),
    devicePath: f(S, 'Device path of the volume.', { required: true, proto: 2 }),
  }),
];
