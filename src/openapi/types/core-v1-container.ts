/**
 * Containers: image, command, ports, environment, resources and mounts.
 * Field names, types, markers and proto numbers follow the original API; descriptions are ours.
 */
import { f, S, I32, B, QTY, list, map, type FieldDecl, type StructDecl } from '../schema-dsl.ts';
import { core } from './namespaces.ts';

/**
 * The fields of a container. EphemeralContainerCommon repeats them in the
 * original (same names, markers and proto numbers), so both share one list.
 */
const containerFields: Record<string, FieldDecl> = {
  name: f(S, 'Container name; a DNS label, unique within the pod.', { required: true, proto: 1 }),
  image: f(S, 'Image to run.', { proto: 2 }),
  command: f(list(S), 'Entrypoint; replaces the image\'s ENTRYPOINT. Not run in a shell.', { listType: 'atomic', proto: 3 }),
  args: f(list(S), 'Arguments; replace the image\'s CMD.', { listType: 'atomic', proto: 4 }),
  workingDir: f(S, 'Working directory; defaults to the image\'s.', { proto: 5 }),
  ports: f(list(core.ref('ContainerPort')), 'Ports the container exposes; informational.', { listType: 'map', listMapKeys: ['containerPort', 'protocol'], patchMergeKey: 'containerPort', patchStrategy: 'merge', proto: 6 }),
  envFrom: f(list(core.ref('EnvFromSource')), 'Sources whose keys all become environment variables.', { listType: 'atomic', proto: 19 }),
  env: f(list(core.ref('EnvVar')), 'Environment variables to set.', { listType: 'map', listMapKeys: ['name'], patchMergeKey: 'name', patchStrategy: 'merge', proto: 7 }),
  resources: f(core.ref('ResourceRequirements'), 'Compute resources requested and limited.', { proto: 8 }),
  resizePolicy: f(list(core.ref('ContainerResizePolicy')), 'How each resource can be resized in place.', { listType: 'atomic', proto: 23 }),
  restartPolicy: f(S, 'Per-container restart policy; only `Always`, for sidecar init containers.', { proto: 24 }),
  volumeMounts: f(list(core.ref('VolumeMount')), 'Pod volumes mounted into the container.', { listType: 'map', listMapKeys: ['mountPath'], patchMergeKey: 'mountPath', patchStrategy: 'merge', proto: 9 }),
  volumeDevices: f(list(core.ref('VolumeDevice')), 'Block devices the container uses.', { listType: 'map', listMapKeys: ['devicePath'], patchMergeKey: 'devicePath', patchStrategy: 'merge', proto: 21 }),
  livenessProbe: f(core.ref('Probe'), 'Check that restarts the container when it fails.', { proto: 10 }),
  readinessProbe: f(core.ref('Probe'), 'Check that removes the pod from service endpoints when it fails.', { proto: 11 }),
  startupProbe: f(core.ref('Probe'), 'Check that must pass before the other probes start.', { proto: 22 }),
  lifecycle: f(core.ref('Lifecycle'), 'Actions run right after start and before stop.', { proto: 12 }),
  terminationMessagePath: f(S, 'File the termination message is read from.', { proto: 13 }),
  terminationMessagePolicy: f(S, 'Where the termination message comes from: File or FallbackToLogsOnError.', { enum: ['File', 'FallbackToLogsOnError'], proto: 20 }),
  imagePullPolicy: f(S, 'When the image is pulled: Always, Never or IfNotPresent.', { enum: ['Always', 'Never', 'IfNotPresent'], proto: 14 }),
  securityContext: f(core.ref('SecurityContext'), 'Security settings for the container.', { proto: 15 }),
  stdin: f(B, 'Keep a stdin buffer open for the container.', { proto: 16 }),
  stdinOnce: f(B, 'Close stdin after the first attach disconnects.', { proto: 17 }),
  tty: f(B, 'Allocate a TTY; needs stdin.', { proto: 18 }),
};

export const containerTypes: readonly StructDecl[] = [
  core.struct('Container', 'An application container run in a pod.', containerFields),
  core.struct('EphemeralContainerCommon', 'Fields of an ephemeral container that it shares with Container.', containerFields),
  core.struct('EphemeralContainer', 'A temporary container added to a running pod, for debugging.', {
    targetContainerName: f(S, 'Container whose namespaces this one joins.', { proto: 2 }),
  }, { embeds: [{ name: core.name('EphemeralContainerCommon'), proto: 1 }] }),
  core.struct('ContainerPort', 'A network port of a container.', {
    name: f(S, 'Port name; an IANA service name, unique within the pod.', { proto: 1 }),
    hostPort: f(I32, 'Port on the node to expose; most containers leave it unset.', { proto: 2 }),
    containerPort: f(I32, 'Port number inside the container.', { required: true, proto: 3 }),
    protocol: f(S, 'TCP, UDP or SCTP; default TCP.', { enum: ['TCP', 'UDP', 'SCTP'], proto: 4 }),
    hostIP: f(S, 'Node IP to bind hostPort to.', { proto: 5 }),
  }),
  core.struct('EnvVar', 'An environment variable.', {
    name: f(S, 'Variable name.', { required: true, proto: 1 }),
    value: f(S, 'Literal value; `$(VAR)` references other variables.', { proto: 2 }),
    valueFrom: f(core.ref('EnvVarSource'), 'Where the value comes from, when it is not literal.', { proto: 3 }),
  }),
  core.struct('EnvVarSource', 'Source of an environment variable\'s value.', {
    fieldRef: f(core.ref('ObjectFieldSelector'), 'A field of the pod.', { proto: 1 }),
    resourceFieldRef: f(core.ref('ResourceFieldSelector'), 'A resource limit or request of a container.', { proto: 2 }),
    configMapKeyRef: f(core.ref('ConfigMapKeySelector'), 'A key of a ConfigMap.', { proto: 3 }),
    secretKeyRef: f(core.ref('SecretKeySelector'), 'A key of a Secret.', { proto: 4 }),
  }),
  core.struct('ObjectFieldSelector', 'Selects a field of the pod.', {
    apiVersion: f(S, 'Schema version of fieldPath; default v1.', { proto: 1 }),
    fieldPath: f(S, 'Path of the field.', { required: true, proto: 2 }),
  }, { structType: 'atomic' }),
  core.struct('ResourceFieldSelector', 'Selects a resource of a container.', {
    containerName: f(S, 'Container name; required for volumes.', { proto: 1 }),
    resource: f(S, 'Resource to select, such as limits.cpu.', { required: true, proto: 2 }),
    divisor: f(QTY, 'Unit the value is divided by; default 1.', { proto: 3 }),
  }, { structType: 'atomic' }),
  core.struct('ConfigMapKeySelector', 'Selects a key of a ConfigMap.', {
    key: f(S, 'Key to select.', { required: true, proto: 2 }),
    optional: f(B, 'Allow the ConfigMap or key to be missing.', { proto: 3 }),
  }, { embeds: [{ name: core.name('LocalObjectReference'), proto: 1 }], structType: 'atomic' }),
  core.struct('SecretKeySelector', 'Selects a key of a Secret.', {
    key: f(S, 'Key to select.', { required: true, proto: 2 }),
    optional: f(B, 'Allow the Secret or key to be missing.', { proto: 3 }),
  }, { embeds: [{ name: core.name('LocalObjectReference'), proto: 1 }], structType: 'atomic' }),
  core.struct('EnvFromSource', 'A source of several environment variables.', {
    prefix: f(S, 'Prefix added to every key.', { proto: 1 }),
    configMapRef: f(core.ref('ConfigMapEnvSource'), 'ConfigMap to read.', { proto: 2 }),
    secretRef: f(core.ref('SecretEnvSource'), 'Secret to read.', { proto: 3 }),
  }),
  core.struct('ConfigMapEnvSource', 'A ConfigMap whose keys become environment variables.', {
    optional: f(B, 'Allow the ConfigMap to be missing.', { proto: 2 }),
  }, { embeds: [{ name: core.name('LocalObjectReference'), proto: 1 }] }),
  core.struct('SecretEnvSource', 'A Secret whose keys become environment variables.', {
    optional: f(B, 'Allow the Secret to be missing.', { proto: 2 }),
  }, { embeds: [{ name: core.name('LocalObjectReference'), proto: 1 }] }),
  core.struct('ResourceRequirements', 'Compute resources a container needs.', {
    limits: f(map(QTY), 'Most of each resource the container may use.', { proto: 1 }),
    requests: f(map(QTY), 'Least of each resource the container needs; used for scheduling.', { proto: 2 }),
    claims: f(list(core.ref('ResourceClaim')), 'Claims from the pod\'s resourceClaims this container uses.', { listType: 'map', listMapKeys: ['name'], proto: 3 }),
  }),
  core.struct('ResourceClaim', 'A claim of the pod used by a container.', {
    name: f(S, 'Name of an entry in the pod\'s resourceClaims.', { required: true, proto: 1 }),
    request: f(S, 'One request of the claim; empty for all.', { proto: 2 }),
  }),
  core.struct('ContainerResizePolicy', 'Resize policy for one resource.', {
    resourceName: f(S, 'Resource the policy is for.', { required: true, proto: 1 }),
    restartPolicy: f(S, 'Whether resizing restarts the container.', { required: true, proto: 2 }),
  }),
  core.struct('VolumeMount', 'Mounts a pod volume in a container.', {
    name: f(S, 'Name of the volume.', { required: true, proto: 1 }),
    readOnly: f(B, 'Mount read-only.', { proto: 2 }),
    recursiveReadOnly: f(S, 'Make sub-mounts read-only too.', { proto: 7 }),
    mountPath: f(S, 'Path in the container; must not contain \':\'.', { required: true, proto: 3 }),
    subPath: f(S, 'Sub-path of the volume to mount; default its root.', { proto: 4 }),
    mountPropagation: f(S, 'How mounts propagate between host and container.', { enum: ['None', 'HostToContainer', 'Bidirectional'], proto: 5 }),
    subPathExpr: f(S, 'Like subPath, with $(VAR) expanded from the environment.', { proto: 6 }),
  }),
  core.struct('VolumeDevice', 'Maps a raw block volume into a container.', {
    name: f(S, 'Name of a persistentVolumeClaim volume of the pod.', { required: true, proto: 1 }),
    devicePath: f(S, 'Path of the device in the container.', { required: true, proto: 2 }),
  }),
];
