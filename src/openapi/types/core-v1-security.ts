/**
 * Security contexts of pods and containers.
 * Field names, types, markers and proto numbers follow the original API; descriptions are ours.
 */
import { f, S, I64, B, list, type StructDecl } from '../schema-dsl.ts';
import { core } from './namespaces.ts';

export const securityTypes: readonly StructDecl[] = [
  core.struct('SecurityContext', 'Security settings of a container; they override the pod\'s.', {
    capabilities: f(core.ref('Capabilities'), 'Capabilities to add and drop.', { proto: 1 }),
    privileged: f(B, 'Run privileged, like root on the host.', { proto: 2 }),
    seLinuxOptions: f(core.ref('SELinuxOptions'), 'SELinux context.', { proto: 3 }),
    windowsOptions: f(core.ref('WindowsSecurityContextOptions'), 'Windows-specific settings.', { proto: 10 }),
    runAsUser: f(I64, 'UID of the container\'s process.', { proto: 4 }),
    runAsGroup: f(I64, 'GID of the container\'s process.', { proto: 8 }),
    runAsNonRoot: f(B, 'Refuse to start if the process would run as UID 0.', { proto: 5 }),
    readOnlyRootFilesystem: f(B, 'Mount the root filesystem read-only.', { proto: 6 }),
    allowPrivilegeEscalation: f(B, 'Allow a process to gain more privileges than its parent.', { proto: 7 }),
    procMount: f(S, 'Kind of /proc mount.', { enum: ['Default', 'Unmasked'], proto: 9 }),
    seccompProfile: f(core.ref('SeccompProfile'), 'Seccomp profile.', { proto: 11 }),
    appArmorProfile: f(core.ref('AppArmorProfile'), 'AppArmor profile.', { proto: 12 }),
  }),
  core.struct('Capabilities', 'POSIX capabilities to change.', {
    add: f(list(S), 'Capabilities to add.', { listType: 'atomic', proto: 1 }),
    drop: f(list(S), 'Capabilities to drop.', { listType: 'atomic', proto: 2 }),
  }),
  core.struct('SELinuxOptions', 'An SELinux label.', {
    user: f(S, 'SELinux user.', { proto: 1 }),
    role: f(S, 'SELinux role.', { proto: 2 }),
    type: f(S, 'SELinux type.', { proto: 3 }),
    level: f(S, 'SELinux level.', { proto: 4 }),
  }),
  core.struct('WindowsSecurityContextOptions', 'Windows settings of a pod or container.', {
    gmsaCredentialSpecName: f(S, 'Name of the GMSA credential spec to use.', { proto: 1 }),
    gmsaCredentialSpec: f(S, 'Contents of the GMSA credential spec.', { proto: 2 }),
    runAsUserName: f(S, 'User name the entrypoint runs as.', { proto: 3 }),
    hostProcess: f(B, 'Run as a host process container.', { proto: 4 }),
  }),
  core.struct('SeccompProfile', 'A seccomp profile.', {
    type: f(S, 'RuntimeDefault, Unconfined or Localhost.', { required: true, enum: ['Unconfined', 'RuntimeDefault', 'Localhost'], proto: 1 }),
    localhostProfile: f(S, 'Profile file on the node, for Localhost.', { proto: 2 }),
  }),
  core.struct('AppArmorProfile', 'An AppArmor profile.', {
    type: f(S, 'RuntimeDefault, Unconfined or Localhost.', { required: true, enum: ['Unconfined', 'RuntimeDefault', 'Localhost'], proto: 1 }),
    localhostProfile: f(S, 'Profile loaded on the node, for Localhost.', { proto: 2 }),
  }),
  core.struct('PodSecurityContext', 'Security settings for all containers of a pod.', {
    seLinuxOptions: f(core.ref('SELinuxOptions'), 'SELinux context for all containers.', { proto: 1 }),
    windowsOptions: f(core.ref('WindowsSecurityContextOptions'), 'Windows settings for all containers.', { proto: 8 }),
    runAsUser: f(I64, 'UID of the containers\' processes.', { proto: 2 }),
    runAsGroup: f(I64, 'GID of the containers\' processes.', { proto: 6 }),
    runAsNonRoot: f(B, 'Refuse to start containers that would run as UID 0.', { proto: 3 }),
    supplementalGroups: f(list(I64), 'Extra GIDs for the first process of each container.', { listType: 'atomic', proto: 4 }),
    supplementalGroupsPolicy: f(S, 'How supplemental groups are computed.', { enum: ['Merge', 'Strict'], proto: 12 }),
    fsGroup: f(I64, 'GID that owns volumes and is added to every container.', { proto: 5 }),
    sysctls: f(list(core.ref('Sysctl')), 'Namespaced sysctls to set.', { listType: 'atomic', proto: 7 }),
    fsGroupChangePolicy: f(S, 'When volume ownership is changed to fsGroup.', { enum: ['OnRootMismatch', 'Always'], proto: 9 }),
    seccompProfile: f(core.ref('SeccompProfile'), 'Seccomp profile for all containers.', { proto: 10 }),
    appArmorProfile: f(core.ref('AppArmorProfile'), 'AppArmor profile for all containers.', { proto: 11 }),
    seLinuxChangePolicy: f(S, 'How the SELinux label is applied to volumes.', { proto: 13 }),
  }),
  core.struct('Sysctl', 'A kernel parameter.', {
    name: f(S, 'Parameter name.', { required: true, proto: 1 }),
    value: f(S, 'Parameter value.', { required: true, proto: 2 }),
  }),
];
