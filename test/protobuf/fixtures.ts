/**
 * Objects in their JSON form, as the server stores and serves them, for the
 * round-trip tests. They use whole-second times for Time fields and
 * microseconds for MicroTime, as the original does.
 */
import type { GroupVersionKind } from '../../src/openapi/schema-dsl.ts';
import type { JsonObject } from '../../src/protobuf/index.ts';

export interface Fixture {
  readonly name: string;
  readonly gvk: GroupVersionKind;
  readonly object: JsonObject;
}

const core = (kind: string): GroupVersionKind => ({ group: '', version: 'v1', kind });

const meta = (name: string, namespace?: string): JsonObject => ({
  name,
  ...(namespace === undefined ? {} : { namespace }),
  uid: `uid-${name}`,
  resourceVersion: '1042',
  generation: 3,
  creationTimestamp: '2024-05-01T10:00:00Z',
  labels: { app: 'shop', 'orch.io/part-of': 'demo' },
  annotations: { note: 'über ünïcödé ✓' },
  ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs-1', uid: 'uid-rs', controller: true, blockOwnerDeletion: true }],
  finalizers: ['example.com/cleanup'],
  managedFields: [
    {
      manager: 'kubectl-client-side-apply',
      operation: 'Update',
      apiVersion: 'v1',
      time: '2024-05-01T10:00:00Z',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } },
    },
  ],
});

export const POD: JsonObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: meta('web-0', 'default'),
  spec: {
    volumes: [
      { name: 'cfg', configMap: { name: 'web-config', defaultMode: 420, items: [{ key: 'a', path: 'a.conf' }] } },
      { name: 'data', csi: { driver: 'csi.example.com', readOnly: true, volumeAttributes: { size: 'small' } } },
      { name: 'tmp', emptyDir: { medium: 'Memory', sizeLimit: '64Mi' } },
      { name: 'token', projected: { sources: [{ serviceAccountToken: { expirationSeconds: 3607, path: 'token' } }], defaultMode: 420 } },
    ],
    initContainers: [{ name: 'init', image: 'busybox:1.36', command: ['sh', '-c', 'true'], resources: {} }],
    containers: [
      {
        name: 'web',
        image: 'nginx:1.27',
        args: ['-g', 'daemon off;'],
        ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
        env: [
          { name: 'MODE', value: 'prod' },
          { name: 'POD_IP', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'status.podIP' } } },
          { name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 'db', key: 'password', optional: false } } },
        ],
        resources: { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '128Mi' } },
        volumeMounts: [{ name: 'cfg', mountPath: '/etc/web', readOnly: true }],
        livenessProbe: { httpGet: { path: '/healthz', port: 'http', scheme: 'HTTP' }, initialDelaySeconds: 5, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 },
        readinessProbe: { tcpSocket: { port: 8080 }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 },
        terminationMessagePath: '/dev/termination-log',
        terminationMessagePolicy: 'File',
        imagePullPolicy: 'IfNotPresent',
        securityContext: { runAsNonRoot: true, runAsUser: 1000, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
      },
    ],
    restartPolicy: 'Always',
    terminationGracePeriodSeconds: 30,
    dnsPolicy: 'ClusterFirst',
    nodeSelector: { 'kubernetes.io/os': 'linux' },
    serviceAccountName: 'web',
    serviceAccount: 'web',
    automountServiceAccountToken: false,
    nodeName: 'node-1',
    securityContext: { fsGroup: 2000, seccompProfile: { type: 'RuntimeDefault' } },
    affinity: {
      podAntiAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [
          { weight: 100, podAffinityTerm: { labelSelector: { matchLabels: { app: 'shop' } }, topologyKey: 'kubernetes.io/hostname' } },
        ],
      },
    },
    schedulerName: 'default-scheduler',
    tolerations: [
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    ],
    priority: 0,
    enableServiceLinks: true,
    preemptionPolicy: 'PreemptLowerPriority',
  },
  status: {
    phase: 'Running',
    conditions: [
      { type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: '2024-05-01T10:00:05Z' },
      { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: '2024-05-01T10:00:00Z' },
    ],
    hostIP: '10.0.0.7',
    hostIPs: [{ ip: '10.0.0.7' }],
    podIP: '10.244.1.9',
    podIPs: [{ ip: '10.244.1.9' }],
    startTime: '2024-05-01T10:00:01Z',
    containerStatuses: [
      {
        name: 'web',
        state: { running: { startedAt: '2024-05-01T10:00:03Z' } },
        lastState: {},
        ready: true,
        restartCount: 0,
        image: 'nginx:1.27',
        imageID: 'docker.io/library/nginx@sha256:abc',
        containerID: 'containerd://123',
        started: true,
      },
    ],
    qosClass: 'Burstable',
  },
};

export const SERVICE: JsonObject = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: meta('web', 'default'),
  spec: {
    ports: [
      { name: 'http', protocol: 'TCP', port: 80, targetPort: 'http' },
      { name: 'metrics', protocol: 'TCP', port: 9090, targetPort: 9090, nodePort: 30090 },
    ],
    selector: { app: 'shop' },
    clusterIP: '10.96.0.10',
    clusterIPs: ['10.96.0.10'],
    type: 'NodePort',
    sessionAffinity: 'None',
    externalTrafficPolicy: 'Cluster',
    ipFamilies: ['IPv4'],
    ipFamilyPolicy: 'SingleStack',
    internalTrafficPolicy: 'Cluster',
  },
  status: { loadBalancer: {} },
};

export const DEPLOYMENT: JsonObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: meta('web', 'default'),
  spec: {
    replicas: 0,
    selector: { matchLabels: { app: 'shop' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['web', 'api'] }] },
    template: {
      metadata: { creationTimestamp: null, labels: { app: 'shop' } },
      spec: {
        containers: [{ name: 'web', image: 'nginx:1.27', resources: {}, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent' }],
        restartPolicy: 'Always',
        terminationGracePeriodSeconds: 30,
        dnsPolicy: 'ClusterFirst',
        securityContext: {},
        schedulerName: 'default-scheduler',
      },
    },
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: 1 } },
    revisionHistoryLimit: 10,
    progressDeadlineSeconds: 600,
  },
  status: {
    observedGeneration: 3,
    conditions: [
      { type: 'Available', status: 'True', lastUpdateTime: '2024-05-01T10:00:09Z', lastTransitionTime: '2024-05-01T10:00:09Z', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' },
    ],
  },
};

export const CONFIGMAP: JsonObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: meta('web-config', 'default'),
  data: { 'a.conf': 'x = 1\n', 'empty': '' },
  binaryData: { 'logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 255]).toString('base64') },
};

export const SECRET: JsonObject = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: meta('db', 'default'),
  type: 'Opaque',
  immutable: false,
  data: {
    password: Buffer.from('s3cr3t\u0000\u00ff', 'latin1').toString('base64'),
    empty: '',
    big: Buffer.alloc(300, 7).toString('base64'),
  },
};

export const NAMESPACE: JsonObject = {
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name: 'team-a', uid: 'uid-ns', resourceVersion: '7', creationTimestamp: '2024-05-01T10:00:00Z', labels: { 'kubernetes.io/metadata.name': 'team-a' } },
  spec: { finalizers: ['kubernetes'] },
  status: { phase: 'Active' },
};

export const TERMINATING_NAMESPACE: JsonObject = {
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name: 'old', uid: 'uid-old', resourceVersion: '9', creationTimestamp: '2024-05-01T10:00:00Z', deletionTimestamp: '2024-05-02T00:00:00Z' },
  spec: { finalizers: ['kubernetes'] },
  status: {
    phase: 'Terminating',
    conditions: [{ type: 'NamespaceDeletionContentFailure', status: 'False', lastTransitionTime: '2024-05-02T00:00:01Z', reason: 'ContentDeleted', message: 'All content successfully deleted' }],
  },
};

export const NODE: JsonObject = {
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: 'node-1', uid: 'uid-node', resourceVersion: '55', creationTimestamp: '2024-05-01T09:00:00Z', labels: { 'kubernetes.io/hostname': 'node-1' } },
  spec: { podCIDR: '10.244.1.0/24', podCIDRs: ['10.244.1.0/24'], taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }] },
  status: {
    // Canonical quantity strings: Go re-renders a parsed quantity canonically (16318464Ki would print as 15936Mi).
    capacity: { cpu: '4', memory: '15936Mi', pods: '110', 'ephemeral-storage': '100Gi' },
    allocatable: { cpu: '3800m', memory: '15Gi', pods: '110' },
    conditions: [
      { type: 'Ready', status: 'True', lastHeartbeatTime: '2024-05-01T10:00:00Z', lastTransitionTime: '2024-05-01T09:00:10Z', reason: 'KubeletReady', message: 'kubelet is posting ready status' },
    ],
    addresses: [{ type: 'InternalIP', address: '10.0.0.7' }, { type: 'Hostname', address: 'node-1' }],
    daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    nodeInfo: {
      machineID: 'm',
      systemUUID: 's',
      bootID: 'b',
      kernelVersion: '6.8.0',
      osImage: 'Ubuntu 24.04',
      containerRuntimeVersion: 'containerd://1.7.0',
      kubeletVersion: 'v1.32.0',
      kubeProxyVersion: 'v1.32.0',
      operatingSystem: 'linux',
      architecture: 'amd64',
    },
    images: [{ names: ['docker.io/library/nginx@sha256:abc', 'docker.io/library/nginx:1.27'], sizeBytes: 72000000 }],
    runtimeHandlers: [{ name: 'runc', features: { recursiveReadOnlyMounts: true, userNamespaces: false } }, { name: '', features: { recursiveReadOnlyMounts: true, userNamespaces: false } }],
    features: { supplementalGroupsPolicy: true },
  },
};

export const LEASE: JsonObject = {
  apiVersion: 'coordination.orch.io/v1',
  kind: 'Lease',
  metadata: { name: 'node-1', namespace: 'orch-node-lease', uid: 'uid-lease', resourceVersion: '77', creationTimestamp: '2024-05-01T09:00:00Z' },
  spec: { holderIdentity: 'node-1', leaseDurationSeconds: 40, acquireTime: '2024-05-01T09:00:00.000000Z', renewTime: '2024-05-01T10:00:00.123456Z', leaseTransitions: 2 },
};

export const CORE_EVENT: JsonObject = {
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: 'web-0.17c', namespace: 'default', uid: 'uid-ev', resourceVersion: '88', creationTimestamp: '2024-05-01T10:00:00Z' },
  involvedObject: { kind: 'Pod', namespace: 'default', name: 'web-0', uid: 'uid-web-0', apiVersion: 'v1', resourceVersion: '1042', fieldPath: 'spec.containers{web}' },
  reason: 'Pulled',
  message: 'Container image "nginx:1.27" already present on machine',
  source: { component: 'kubelet', host: 'node-1' },
  firstTimestamp: '2024-05-01T10:00:02Z',
  lastTimestamp: '2024-05-01T10:00:02Z',
  count: 1,
  type: 'Normal',
  eventTime: null,
  reportingComponent: 'kubelet',
  reportingInstance: 'node-1',
};

export const EVENTS_V1_EVENT: JsonObject = {
  apiVersion: 'events.orch.io/v1',
  kind: 'Event',
  metadata: { name: 'web-0.17d', namespace: 'default', uid: 'uid-ev2', resourceVersion: '89', creationTimestamp: '2024-05-01T10:00:00Z' },
  eventTime: '2024-05-01T10:00:02.654321Z',
  series: { count: 3, lastObservedTime: '2024-05-01T10:05:00.000001Z' },
  reportingController: 'orch.io/scheduler',
  reportingInstance: 'scheduler-1',
  action: 'Binding',
  reason: 'Scheduled',
  regarding: { kind: 'Pod', namespace: 'default', name: 'web-0', uid: 'uid-web-0', apiVersion: 'v1', resourceVersion: '1042' },
  note: 'Successfully assigned default/web-0 to node-1',
  type: 'Normal',
  deprecatedFirstTimestamp: null,
  deprecatedLastTimestamp: null,
  deprecatedSource: {},
};

export const STATUS: JsonObject = {
  apiVersion: 'v1',
  kind: 'Status',
  metadata: {},
  status: 'Failure',
  message: 'pods "nope" not found',
  reason: 'NotFound',
  details: { name: 'nope', kind: 'pods', causes: [{ reason: 'FieldValueNotFound', message: 'not found', field: 'metadata.name' }], retryAfterSeconds: 2 },
  code: 404,
};

export const CONTROLLER_REVISION: JsonObject = {
  apiVersion: 'apps/v1',
  kind: 'ControllerRevision',
  metadata: { name: 'web-6b7', namespace: 'default', uid: 'uid-cr', resourceVersion: '12', creationTimestamp: '2024-05-01T10:00:00Z' },
  data: { spec: { template: { $patch: 'replace', spec: { containers: [{ name: 'web', image: 'nginx' }] } } } },
  revision: 4,
};

export const FIXTURES: readonly Fixture[] = [
  { name: 'Pod', gvk: core('Pod'), object: POD },
  { name: 'Service', gvk: core('Service'), object: SERVICE },
  { name: 'Deployment', gvk: { group: 'apps', version: 'v1', kind: 'Deployment' }, object: DEPLOYMENT },
  { name: 'ConfigMap', gvk: core('ConfigMap'), object: CONFIGMAP },
  { name: 'Secret', gvk: core('Secret'), object: SECRET },
  { name: 'Namespace', gvk: core('Namespace'), object: NAMESPACE },
  { name: 'Namespace (terminating)', gvk: core('Namespace'), object: TERMINATING_NAMESPACE },
  { name: 'Node', gvk: core('Node'), object: NODE },
  { name: 'Lease', gvk: { group: 'coordination.orch.io', version: 'v1', kind: 'Lease' }, object: LEASE },
  { name: 'Event (core/v1)', gvk: core('Event'), object: CORE_EVENT },
  { name: 'Event (events/v1)', gvk: { group: 'events.orch.io', version: 'v1', kind: 'Event' }, object: EVENTS_V1_EVENT },
  { name: 'Status', gvk: core('Status'), object: STATUS },
  { name: 'ControllerRevision', gvk: { group: 'apps', version: 'v1', kind: 'ControllerRevision' }, object: CONTROLLER_REVISION },
];
