/**
 * Observed pod state: phase, conditions and container statuses.
 * Field names, types, markers and proto numbers follow the original API; descriptions are ours.
 */
import { f, S, I32, B, QTY, TIME, OPAQUE, list, map, type StructDecl } from '../schema-dsl.ts';
import { core } from './namespaces.ts';

export const podStatusTypes: readonly StructDecl[] = [
  core.struct('PodStatus', 'Observed state of a pod.', {
    phase: f(S, 'Coarse lifecycle phase: Pending, Running, Succeeded, Failed or Unknown.', { enum: ['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown'], proto: 1 }),
    conditions: f(list(core.ref('PodCondition')), 'Current conditions of the pod.', { listType: 'map', listMapKeys: ['type'], patchMergeKey: 'type', patchStrategy: 'merge', proto: 2 }),
    message: f(S, 'Human-readable details on why the pod is in this state.', { proto: 3 }),
    reason: f(S, 'Short CamelCase reason for the pod\'s state.', { proto: 4 }),
    nominatedNodeName: f(S, 'Node where the pod may run once preemption finishes.', { proto: 11 }),
    hostIP: f(S, 'Primary IP of the node the pod runs on.', { proto: 5 }),
    hostIPs: f(list(core.ref('HostIP')), 'IPs of the node the pod runs on.', { listType: 'atomic', patchMergeKey: 'ip', patchStrategy: 'merge', proto: 16 }),
    podIP: f(S, 'Primary IP of the pod.', { proto: 6 }),
    podIPs: f(list(core.ref('PodIP')), 'IPs of the pod, at most one per address family.', { listType: 'map', listMapKeys: ['ip'], patchMergeKey: 'ip', patchStrategy: 'merge', proto: 12 }),
    startTime: f(TIME, 'When the node acknowledged the pod.', { proto: 7 }),
    initContainerStatuses: f(list(core.ref('ContainerStatus')), 'Status of each init container.', { listType: 'atomic', proto: 10 }),
    containerStatuses: f(list(core.ref('ContainerStatus')), 'Status of each app container.', { listType: 'atomic', proto: 8 }),
    qosClass: f(S, 'Quality-of-service class derived from resource requests and limits.', { enum: ['Guaranteed', 'Burstable', 'BestEffort'], proto: 9 }),
    ephemeralContainerStatuses: f(list(core.ref('ContainerStatus')), 'Status of each ephemeral container.', { listType: 'atomic', proto: 13 }),
    resize: f(S, 'Progress of an in-place resource resize.', { proto: 14 }),
    resourceClaimStatuses: f(list(core.ref('PodResourceClaimStatus')), 'Names of the ResourceClaims generated for the pod.', { listType: 'map', listMapKeys: ['name'], patchMergeKey: 'name', patchStrategy: 'merge,retainKeys', proto: 15 }),
  }),
  core.struct('PodCondition', 'One condition of a pod.', {
    type: f(S, 'Condition type, such as Ready or PodScheduled.', { required: true, proto: 1 }),
    status: f(S, 'True, False or Unknown.', { required: true, proto: 2 }),
    lastProbeTime: f(TIME, 'When the condition was last checked.', { proto: 3 }),
    lastTransitionTime: f(TIME, 'When the condition last changed from one status to another.', { proto: 4 }),
    reason: f(S, 'Machine-readable, CamelCase reason for the last transition.', { proto: 5 }),
    message: f(S, 'Human-readable details about the last transition.', { proto: 6 }),
  }),
  core.struct('ContainerStatus', 'State of one container of a pod.', {
    name: f(S, 'Container name.', { required: true, proto: 1 }),
    state: f(core.ref('ContainerState'), 'Current state.', { proto: 2 }),
    lastState: f(core.ref('ContainerState'), 'State of the previous run, if the container restarted.', { proto: 3 }),
    ready: f(B, 'Container passes its readiness probe.', { required: true, proto: 4 }),
    restartCount: f(I32, 'Number of restarts.', { required: true, proto: 5 }),
    image: f(S, 'Image the container runs.', { required: true, proto: 6 }),
    imageID: f(S, 'Resolved image ID.', { required: true, proto: 7 }),
    containerID: f(S, 'Runtime ID, as `<type>://<id>`.', { proto: 8 }),
    started: f(B, 'Container passed its startup probe.', { proto: 9 }),
    allocatedResources: f(map(QTY), 'Resources the node allocated to the container.', { proto: 10 }),
    resources: f(core.ref('ResourceRequirements'), 'Resources the runtime applied to the running container.', { proto: 11 }),
    volumeMounts: f(list(core.ref('VolumeMountStatus')), 'Mounts in effect for the container.', { listType: 'map', listMapKeys: ['mountPath'], patchMergeKey: 'mountPath', patchStrategy: 'merge', proto: 12 }),
    user: f(OPAQUE, 'Identity the container\'s first process runs as.', { proto: 13 }),
    allocatedResourcesStatus: f(list(OPAQUE), 'Health of resources allocated to the container.', { listType: 'map', listMapKeys: ['name'], patchMergeKey: 'name', patchStrategy: 'merge', proto: 14 }),
  }),
  core.struct('ContainerState', 'State of a container; exactly one member is set.', {
    waiting: f(core.ref('ContainerStateWaiting'), 'The container is not yet running.', { proto: 1 }),
    running: f(core.ref('ContainerStateRunning'), 'The container is running.', { proto: 2 }),
    terminated: f(core.ref('ContainerStateTerminated'), 'The container has exited.', { proto: 3 }),
  }),
  core.struct('ContainerStateWaiting', 'A waiting container.', {
    reason: f(S, 'Why the container is not yet running.', { proto: 1 }),
    message: f(S, 'Details on why it is not yet running.', { proto: 2 }),
  }),
  core.struct('ContainerStateRunning', 'A running container.', {
    startedAt: f(TIME, 'When the container last started.', { proto: 1 }),
  }),
  core.struct('ContainerStateTerminated', 'An exited container.', {
    exitCode: f(I32, 'Exit status of the last run.', { required: true, proto: 1 }),
    signal: f(I32, 'Signal that ended the container.', { proto: 2 }),
    reason: f(S, 'Short reason for the exit.', { proto: 3 }),
    message: f(S, 'Details on the exit.', { proto: 4 }),
    startedAt: f(TIME, 'When the run started.', { proto: 5 }),
    finishedAt: f(TIME, 'When the run ended.', { proto: 6 }),
    containerID: f(S, 'Runtime ID of the container.', { proto: 7 }),
  }),
  core.struct('PodIP', 'An IP address of a pod.', {
    ip: f(S, 'The address.', { required: true, proto: 1 }),
  }),
  core.struct('HostIP', 'An IP address of the pod\'s node.', {
    ip: f(S, 'The address.', { required: true, proto: 1 }),
  }),
  core.struct('VolumeMountStatus', 'A volume mount in effect for a container.', {
    name: f(S, 'Volume name.', { required: true, proto: 1 }),
    mountPath: f(S, 'Path inside the container.', { required: true, proto: 2 }),
    readOnly: f(B, 'Mounted read-only.', { proto: 3 }),
    recursiveReadOnly: f(S, 'Recursive read-only state of the mount.', { proto: 4 }),
  }),
  core.struct('PodResourceClaimStatus', 'The ResourceClaim generated for one of the pod\'s claims.', {
    name: f(S, 'Claim name in the pod spec.', { required: true, proto: 1 }),
    resourceClaimName: f(S, 'Generated ResourceClaim; empty if none was needed.', { proto: 2 }),
  }),
];
