/**
 * Pod, PodSpec and pod templates.
 * Field names, types, markers and proto numbers follow the original API; descriptions are ours.
 */
import { f, S, I32, I64, B, QTY, list, map, type StructDecl } from '../schema-dsl.ts';
import { core, meta } from './namespaces.ts';

export const podTypes: readonly StructDecl[] = [
  core.kind('Pod', 'A group of containers scheduled together on one node, sharing network and storage.', {
    spec: f(core.ref('PodSpec'), 'Desired state of the pod.', { proto: 2 }),
    status: f(core.ref('PodStatus'), 'Observed state of the pod, written by the system; may lag behind.', { proto: 3 }),
  }),
  core.struct('PodSpec', 'Desired state of a pod: its containers, volumes and scheduling constraints.', {
    volumes: f(list(core.ref('Volume')), 'Volumes that containers of this pod can mount.', { listType: 'map', listMapKeys: ['name'], patchMergeKey: 'name', patchStrategy: 'merge,retainKeys', proto: 1 }),
    initContainers: f(list(core.ref('Container')), 'Containers run one after another, to completion, before the app containers start.', { listType: 'map', listMapKeys: ['name'], patchMergeKey: 'name', patchStrategy: 'merge', proto: 20 }),
    containers: f(list(core.ref('Container')), 'The app containers of the pod; at least one.', { required: true, listType: 'map', listMapKeys: ['name'], patchMergeKey: 'name', patchStrategy: 'merge', proto: 2 }),
    ephemeralContainers: f(list(core.ref('EphemeralContainer')), 'Debugging containers added to a running pod; never restarted.', { listType: 'map', listMapKeys: ['name'], patchMergeKey: 'name', patchStrategy: 'merge', proto: 34 }),
    restartPolicy: f(S, 'When containers are restarted after they exit.', { enum: ['Always', 'OnFailure', 'Never'], proto: 3 }),
    terminationGracePeriodSeconds: f(I64, 'Seconds a pod may take to stop after a graceful delete before it is killed.', { proto: 4 }),
    activeDeadlineSeconds: f(I64, 'Seconds the pod may run, counted from its start time, before it is failed.', { proto: 5 }),
    dnsPolicy: f(S, 'How DNS is set up for the pod.', { enum: ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'], proto: 6 }),
    nodeSelector: f(map(S), 'Node labels a node must have for the pod to be placed on it.', { mapType: 'atomic', proto: 7 }),
    serviceAccountName: f(S, 'Service account the pod runs as.', { proto: 8 }),
    serviceAccount: f(S, 'Deprecated alias of serviceAccountName.', { proto: 9 }),
    automountServiceAccountToken: f(B, 'Whether a service account token is mounted into the pod.', { proto: 21 }),
    nodeName: f(S, 'Node the pod is bound to; set by the scheduler unless given.', { proto: 10 }),
    hostNetwork: f(B, 'Use the node\'s network namespace.', { proto: 11 }),
    hostPID: f(B, 'Use the node\'s process ID namespace.', { proto: 12 }),
    hostIPC: f(B, 'Use the node\'s IPC namespace.', { proto: 13 }),
    shareProcessNamespace: f(B, 'All containers of the pod share one process namespace.', { proto: 27 }),
    securityContext: f(core.ref('PodSecurityContext'), 'Security settings for the whole pod.', { proto: 14 }),
    imagePullSecrets: f(list(core.ref('LocalObjectReference')), 'Secrets in the pod\'s namespace used to pull images.', { listType: 'map', listMapKeys: ['name'], patchMergeKey: 'name', patchStrategy: 'merge', proto: 15 }),
    hostname: f(S, 'Hostname of the pod; defaults to the pod name.', { proto: 16 }),
    subdomain: f(S, 'Subdomain that, with hostname, forms the pod\'s fully qualified name.', { proto: 17 }),
    affinity: f(core.ref('Affinity'), 'Scheduling constraints relative to nodes and other pods.', { proto: 18 }),
    schedulerName: f(S, 'Scheduler that places this pod.', { proto: 19 }),
    tolerations: f(list(core.ref('Toleration')), 'Taints this pod tolerates.', { listType: 'atomic', proto: 22 }),
    hostAliases: f(list(core.ref('HostAlias')), 'Extra entries for the pod\'s hosts file.', { listType: 'map', listMapKeys: ['ip'], patchMergeKey: 'ip', patchStrategy: 'merge', proto: 23 }),
    priorityClassName: f(S, 'PriorityClass that sets the pod\'s priority.', { proto: 24 }),
    priority: f(I32, 'Priority value, filled from priorityClassName.', { proto: 25 }),
    dnsConfig: f(core.ref('PodDNSConfig'), 'DNS settings merged into those that dnsPolicy produces.', { proto: 26 }),
    readinessGates: f(list(core.ref('PodReadinessGate')), 'Extra conditions that must be true for the pod to be ready.', { listType: 'atomic', proto: 28 }),
    runtimeClassName: f(S, 'RuntimeClass used to run the pod.', { proto: 29 }),
    enableServiceLinks: f(B, 'Inject environment variables describing services.', { proto: 30 }),
    preemptionPolicy: f(S, 'Whether this pod may preempt pods of lower priority.', { enum: ['PreemptLowerPriority', 'Never'], proto: 31 }),
    overhead: f(map(QTY), 'Resources used by the pod sandbox, on top of the containers\' own.', { proto: 32 }),
    topologySpreadConstraints: f(list(core.ref('TopologySpreadConstraint')), 'How pods spread across topology domains.', { listType: 'map', listMapKeys: ['topologyKey', 'whenUnsatisfiable'], patchMergeKey: 'topologyKey', patchStrategy: 'merge', proto: 33 }),
    setHostnameAsFQDN: f(B, 'Set the pod\'s hostname to its fully qualified name.', { proto: 35 }),
    os: f(core.ref('PodOS'), 'Operating system the containers need.', { proto: 36 }),
    hostUsers: f(B, 'Use the node\'s user namespace; false gives the pod its own.', { proto: 37 }),
    schedulingGates: f(list(core.ref('PodSchedulingGate')), 'Gates that keep the pod from being scheduled while present.', { listType: 'map', listMapKeys: ['name'], patchMergeKey: 'name', patchStrategy: 'merge', proto: 38 }),
    resourceClaims: f(list(core.ref('PodResourceClaim')), 'Dynamically allocated resources the pod needs.', { listType: 'map', listMapKeys: ['name'], patchMergeKey: 'name', patchStrategy: 'merge,retainKeys', proto: 39 }),
    resources: f(core.ref('ResourceRequirements'), 'Resources for the pod as a whole, shared by its containers.', { proto: 40 }),
  }),
  core.kind('PodTemplate', 'A stored template from which pods can be created.', {
    template: f(core.ref('PodTemplateSpec'), 'The pod template.', { proto: 2 }),
  }),
  core.struct('PodTemplateSpec', 'The metadata and spec of pods created from a template.', {
    metadata: f(meta.ref('ObjectMeta'), 'Metadata given to created pods.', { proto: 1 }),
    spec: f(core.ref('PodSpec'), 'Spec given to created pods.', { proto: 2 }),
  }),
  core.struct('LocalObjectReference', 'Names an object in the same namespace.', {
    name: f(S, 'Name of the referenced object.', { proto: 1 }),
  }, { structType: 'atomic' }),
  core.struct('PodDNSConfig', 'DNS parameters of a pod.', {
    nameservers: f(list(S), 'DNS server addresses.', { listType: 'atomic', proto: 1 }),
    searches: f(list(S), 'DNS search domains.', { listType: 'atomic', proto: 2 }),
    options: f(list(core.ref('PodDNSConfigOption')), 'Resolver options.', { listType: 'atomic', proto: 3 }),
  }),
  core.struct('PodDNSConfigOption', 'A resolver option.', {
    name: f(S, 'Option name.', { proto: 1 }),
    value: f(S, 'Option value.', { proto: 2 }),
  }),
  core.struct('HostAlias', 'An entry of the pod\'s hosts file.', {
    ip: f(S, 'IP address of the entry.', { required: true, proto: 1 }),
    hostnames: f(list(S), 'Host names for the IP address.', { listType: 'atomic', proto: 2 }),
  }),
  core.struct('PodReadinessGate', 'A pod condition that must be true for the pod to be ready.', {
    conditionType: f(S, 'Condition type in the pod\'s conditions list.', { required: true, proto: 1 }),
  }),
  core.struct('PodOS', 'Operating system of a pod.', {
    name: f(S, 'OS name, `linux` or `windows`.', { required: true, proto: 1 }),
  }),
  core.struct('PodSchedulingGate', 'A gate that blocks scheduling of a pod.', {
    name: f(S, 'Gate name; unique within the pod.', { required: true, proto: 1 }),
  }),
  core.struct('PodResourceClaim', 'Names a resource claim the pod uses.', {
    name: f(S, 'Name of this claim within the pod.', { required: true, proto: 1 }),
    resourceClaimName: f(S, 'An existing ResourceClaim in the pod\'s namespace.', { proto: 3 }),
    resourceClaimTemplateName: f(S, 'A ResourceClaimTemplate from which a claim is made for this pod.', { proto: 4 }),
  }),
];
