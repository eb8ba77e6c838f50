/**
 * Objects whose fields the schema DSL leaves OPAQUE, so their Protobuf shape
 * comes from src/protobuf/supplement; plus the ExtraValue map wrappers.
 */
import type { JsonObject } from '../../src/protobuf/index.ts';
import type { Fixture } from './fixtures.ts';

const meta = (name: string, namespace?: string): JsonObject => ({
  name,
  ...(namespace === undefined ? {} : { namespace }),
  uid: `uid-${name}`,
  resourceVersion: '501',
  creationTimestamp: '2024-05-01T10:00:00Z',
});

const ENDPOINT_SLICE: JsonObject = {
  apiVersion: 'discovery.orch.io/v1',
  kind: 'EndpointSlice',
  metadata: { ...meta('web-abc12', 'default'), labels: { 'orch.io/service-name': 'web' } },
  addressType: 'IPv4',
  endpoints: [
    {
      addresses: ['10.244.1.9'],
      conditions: { ready: true, serving: true, terminating: false },
      targetRef: { kind: 'Pod', namespace: 'default', name: 'web-0', uid: 'uid-web-0' },
      nodeName: 'node-1',
      zone: 'zone-a',
      hints: { forZones: [{ name: 'zone-a' }] },
    },
  ],
  ports: [{ name: 'http', protocol: 'TCP', port: 8080, appProtocol: 'http' }],
};

const HPA: JsonObject = {
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: meta('web', 'default'),
  spec: {
    scaleTargetRef: { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' },
    minReplicas: 2,
    maxReplicas: 10,
    metrics: [
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } },
      { type: 'Pods', pods: { metric: { name: 'rps' }, target: { type: 'AverageValue', averageValue: '100' } } },
    ],
    behavior: { scaleDown: { stabilizationWindowSeconds: 300, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 10, periodSeconds: 60 }] } },
  },
  status: {
    lastScaleTime: '2024-05-01T10:00:00Z',
    currentReplicas: 2,
    desiredReplicas: 3,
    currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageValue: '120m', averageUtilization: 80 } } }],
    conditions: [{ type: 'AbleToScale', status: 'True', lastTransitionTime: '2024-05-01T10:00:00Z', reason: 'ReadyForNewScale', message: 'ok' }],
  },
};

const FLOW_SCHEMA: JsonObject = {
  apiVersion: 'flowcontrol.apiserver.orch.io/v1',
  kind: 'FlowSchema',
  metadata: meta('service-accounts'),
  spec: {
    priorityLevelConfiguration: { name: 'workload-low' },
    matchingPrecedence: 9000,
    distinguisherMethod: { type: 'ByUser' },
    rules: [
      {
        subjects: [{ kind: 'Group', group: { name: 'system:serviceaccounts' } }],
        resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }],
        nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      },
    ],
  },
  status: { conditions: [{ type: 'Dangling', status: 'False', lastTransitionTime: '2024-05-01T10:00:00Z', reason: 'Found', message: 'found' }] },
};

const NETWORK_POLICY: JsonObject = {
  apiVersion: 'networking.orch.io/v1',
  kind: 'NetworkPolicy',
  metadata: meta('allow-web', 'default'),
  spec: {
    podSelector: { matchLabels: { app: 'shop' } },
    ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }, { namespaceSelector: {} }], ports: [{ protocol: 'TCP', port: 'http' }, { protocol: 'TCP', port: 8000, endPort: 8100 }] }],
    policyTypes: ['Ingress'],
  },
};

const STORAGE_CLASS: JsonObject = {
  apiVersion: 'storage.orch.io/v1',
  kind: 'StorageClass',
  metadata: meta('fast'),
  provisioner: 'csi.example.com',
  parameters: { type: 'ssd' },
  reclaimPolicy: 'Delete',
  allowVolumeExpansion: true,
  volumeBindingMode: 'WaitForFirstConsumer',
  allowedTopologies: [{ matchLabelExpressions: [{ key: 'topology.kubernetes.io/zone', values: ['zone-a', 'zone-b'] }] }],
};

const RUNTIME_CLASS: JsonObject = {
  apiVersion: 'node.orch.io/v1',
  kind: 'RuntimeClass',
  metadata: meta('gvisor'),
  handler: 'runsc',
  overhead: { podFixed: { cpu: '250m', memory: '120Mi' } },
  scheduling: { nodeSelector: { sandbox: 'gvisor' }, tolerations: [{ key: 'sandbox', operator: 'Equal', value: 'gvisor', effect: 'NoSchedule' }] },
};

const CSR: JsonObject = {
  apiVersion: 'certificates.orch.io/v1',
  kind: 'CertificateSigningRequest',
  metadata: meta('node-csr-1'),
  spec: {
    request: Buffer.from('-----BEGIN CERTIFICATE REQUEST-----\nMIIB\n-----END CERTIFICATE REQUEST-----\n').toString('base64'),
    signerName: 'orch.io/kube-apiserver-client-kubelet',
    expirationSeconds: 86400,
    usages: ['digital signature', 'client auth'],
    username: 'system:node:node-1',
    uid: 'uid-user',
    groups: ['system:nodes', 'system:authenticated'],
    extra: { 'authentication.orch.io/credential-id': ['X509SHA256=abc'], scopes: ['a', 'b'] },
  },
  status: {
    conditions: [{ type: 'Approved', status: 'True', reason: 'AutoApproved', message: 'ok', lastUpdateTime: '2024-05-01T10:00:01Z', lastTransitionTime: '2024-05-01T10:00:01Z' }],
    certificate: Buffer.from('-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\n').toString('base64'),
  },
};

const TOKEN_REVIEW: JsonObject = {
  apiVersion: 'authentication.orch.io/v1',
  kind: 'TokenReview',
  metadata: { creationTimestamp: null },
  spec: { token: 'abc.def.ghi', audiences: ['https://orch.default.svc'] },
  status: {
    authenticated: true,
    user: { username: 'system:serviceaccount:default:web', uid: 'uid-sa', groups: ['system:serviceaccounts'], extra: { 'authentication.orch.io/pod-name': ['web-0'] } },
    audiences: ['https://orch.default.svc'],
  },
};

const PERSISTENT_VOLUME: JsonObject = {
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: meta('pv-1'),
  spec: {
    capacity: { storage: '10Gi' },
    csi: { driver: 'csi.example.com', volumeHandle: 'vol-123', fsType: 'ext4', volumeAttributes: { tier: 'gold' }, nodeStageSecretRef: { name: 'creds', namespace: 'kube-system' } },
    accessModes: ['ReadWriteOnce'],
    claimRef: { kind: 'PersistentVolumeClaim', namespace: 'default', name: 'data', uid: 'uid-pvc' },
    persistentVolumeReclaimPolicy: 'Delete',
    storageClassName: 'fast',
    volumeMode: 'Filesystem',
    nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['zone-a'] }] }] } },
  },
  status: { phase: 'Bound', lastPhaseTransitionTime: '2024-05-01T10:00:00Z' },
};

const EPHEMERAL_POD: JsonObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: meta('scratch', 'default'),
  spec: {
    volumes: [
      {
        name: 'scratch',
        ephemeral: {
          volumeClaimTemplate: {
            metadata: { labels: { type: 'scratch' } },
            spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'fast', resources: { requests: { storage: '1Gi' } } },
          },
        },
      },
      { name: 'img', image: { reference: 'quay.io/data:v1', pullPolicy: 'IfNotPresent' } },
    ],
    containers: [{ name: 'c', image: 'busybox', volumeMounts: [{ name: 'scratch', mountPath: '/scratch' }], resources: {} }],
  },
  status: {
    containerStatuses: [
      {
        name: 'c',
        state: { waiting: { reason: 'ContainerCreating' } },
        lastState: {},
        ready: false,
        restartCount: 0,
        image: 'busybox',
        imageID: '',
        user: { linux: { uid: 1000, gid: 1000, supplementalGroups: [1000, 4] } },
        allocatedResourcesStatus: [{ name: 'claim:gpu', resources: [{ resourceID: 'gpu-0', health: 'Healthy' }] }],
      },
    ],
  },
};

const VALIDATING_ADMISSION_POLICY: JsonObject = {
  apiVersion: 'admissionregistration.orch.io/v1',
  kind: 'ValidatingAdmissionPolicy',
  metadata: meta('replicas-limit'),
  spec: {
    failurePolicy: 'Fail',
    paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
    matchConstraints: {
      resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'], scope: '*' }],
      matchPolicy: 'Equivalent',
      namespaceSelector: {},
      objectSelector: {},
    },
    validations: [{ expression: 'object.spec.replicas <= 5', message: 'too many', reason: 'Invalid' }],
    variables: [{ name: 'r', expression: 'object.spec.replicas' }],
    auditAnnotations: [{ key: 'replicas', valueExpression: 'string(object.spec.replicas)' }],
  },
  status: { observedGeneration: 1, typeChecking: { expressionWarnings: [{ fieldRef: 'spec.validations[0].expression', warning: 'none' }] } },
};

export const SUPPLEMENT_FIXTURES: readonly Fixture[] = [
  { name: 'EndpointSlice', gvk: { group: 'discovery.orch.io', version: 'v1', kind: 'EndpointSlice' }, object: ENDPOINT_SLICE },
  { name: 'HorizontalPodAutoscaler (v2)', gvk: { group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler' }, object: HPA },
  { name: 'FlowSchema', gvk: { group: 'flowcontrol.apiserver.orch.io', version: 'v1', kind: 'FlowSchema' }, object: FLOW_SCHEMA },
  { name: 'NetworkPolicy', gvk: { group: 'networking.orch.io', version: 'v1', kind: 'NetworkPolicy' }, object: NETWORK_POLICY },
  { name: 'StorageClass', gvk: { group: 'storage.orch.io', version: 'v1', kind: 'StorageClass' }, object: STORAGE_CLASS },
  { name: 'RuntimeClass', gvk: { group: 'node.orch.io', version: 'v1', kind: 'RuntimeClass' }, object: RUNTIME_CLASS },
  { name: 'CertificateSigningRequest', gvk: { group: 'certificates.orch.io', version: 'v1', kind: 'CertificateSigningRequest' }, object: CSR },
  { name: 'TokenReview', gvk: { group: 'authentication.orch.io', version: 'v1', kind: 'TokenReview' }, object: TOKEN_REVIEW },
  { name: 'PersistentVolume (csi)', gvk: { group: '', version: 'v1', kind: 'PersistentVolume' }, object: PERSISTENT_VOLUME },
  { name: 'Pod (ephemeral and image volumes)', gvk: { group: '', version: 'v1', kind: 'Pod' }, object: EPHEMERAL_POD },
  { name: 'ValidatingAdmissionPolicy', gvk: { group: 'admissionregistration.orch.io', version: 'v1', kind: 'ValidatingAdmissionPolicy' }, object: VALIDATING_ADMISSION_POLICY },
];
