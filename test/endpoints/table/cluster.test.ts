/** Tables of cluster objects: nodes, namespaces, events, config, storage, access control, scaling. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ago, cellsOf, headers, kindOf, object, tableOf } from './helpers.ts';
import { printedKinds } from '../../../src/endpoints/table/index.ts';

const NODE = kindOf('', 'v1', 'Node', 'nodes');
const NAMESPACE = kindOf('', 'v1', 'Namespace', 'namespaces');
const EVENT = kindOf('', 'v1', 'Event', 'events');
const EVENT_V1 = kindOf('events.orch.io', 'v1', 'Event', 'events');
const CONFIG_MAP = kindOf('', 'v1', 'ConfigMap', 'configmaps');
const SECRET = kindOf('', 'v1', 'Secret', 'secrets');
const SERVICE_ACCOUNT = kindOf('', 'v1', 'ServiceAccount', 'serviceaccounts');
const QUOTA = kindOf('', 'v1', 'ResourceQuota', 'resourcequotas');
const PV = kindOf('', 'v1', 'PersistentVolume', 'persistentvolumes');
const PVC = kindOf('', 'v1', 'PersistentVolumeClaim', 'persistentvolumeclaims');
const STORAGE_CLASS = kindOf('storage.orch.io', 'v1', 'StorageClass', 'storageclasses');
const CSI_DRIVER = kindOf('storage.orch.io', 'v1', 'CSIDriver', 'csidrivers');
const CSI_NODE = kindOf('storage.orch.io', 'v1', 'CSINode', 'csinodes');
const ATTACHMENT = kindOf('storage.orch.io', 'v1', 'VolumeAttachment', 'volumeattachments');
const LEASE = kindOf('coordination.orch.io', 'v1', 'Lease', 'leases');
const RUNTIME_CLASS = kindOf('node.orch.io', 'v1', 'RuntimeClass', 'runtimeclasses');
const ROLE_BINDING = kindOf('rbac.authorization.orch.io', 'v1', 'RoleBinding', 'rolebindings');
const CLUSTER_ROLE_BINDING = kindOf('rbac.authorization.orch.io', 'v1', 'ClusterRoleBinding', 'clusterrolebindings');
const CSR = kindOf('certificates.orch.io', 'v1', 'CertificateSigningRequest', 'certificatesigningrequests');
const WEBHOOK = kindOf('admissionregistration.orch.io', 'v1', 'ValidatingWebhookConfiguration', 'validatingwebhookconfigurations');
const HPA = kindOf('autoscaling', 'v2', 'HorizontalPodAutoscaler', 'horizontalpodautoscalers');
const PDB = kindOf('policy', 'v1', 'PodDisruptionBudget', 'poddisruptionbudgets');
const PRIORITY_CLASS = kindOf('scheduling.orch.io', 'v1', 'PriorityClass', 'priorityclasses');
const SCALE = kindOf('autoscaling', 'v1', 'Scale', 'deployments');

describe('node table', () => {
  const node = object('node-a', 20 * 86400, {
    spec: {},
    status: {
      conditions: [{ type: 'MemoryPressure', status: 'False' }, { type: 'Ready', status: 'True' }],
      addresses: [{ type: 'Hostname', address: 'node-a' }, { type: 'InternalIP', address: '192.168.0.10' }],
      nodeInfo: { kubeletVersion: 'v1.32.0', osImage: 'Debian GNU/Linux 12 (bookworm)', kernelVersion: '6.1.0', containerRuntimeVersion: 'containerd://1.7.0' },
    },
  }, { labels: { 'node-role.kubernetes.io/control-plane': '', 'node-role.orch.io/worker': 'true', 'orch.io/role': 'edge' } });

  it('prints status, roles and version, wide adds addresses and system info', () => {
    const t = tableOf(NODE, [node]);
    assert.deepEqual(headers(t), ['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION']);
    assert.deepEqual(headers(t, true), ['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION', 'INTERNAL-IP', 'EXTERNAL-IP', 'OS-IMAGE', 'KERNEL-VERSION', 'CONTAINER-RUNTIME']);
    assert.deepEqual(t.rows[0]!.cells, [
      'node-a', 'Ready', 'control-plane,edge,worker', '20d', 'v1.32.0', '192.168.0.10', '<none>', 'Debian GNU/Linux 12 (bookworm)', '6.1.0', 'containerd://1.7.0',
    ]);
  });

  it('prints NotReady, Unknown and cordoned nodes', () => {
    const notReady = object('b', 60, { spec: { unschedulable: true }, status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } });
    assert.deepEqual(cellsOf(NODE, notReady).slice(1, 3), ['NotReady,SchedulingDisabled', '<none>']);
    const bare = cellsOf(NODE, object('c', 60, {}));
    assert.deepEqual(bare.slice(1, 3), ['Unknown', '<none>']);
    assert.deepEqual(bare.slice(7), ['<unknown>', '<unknown>', '<unknown>']);
  });
});

describe('namespace table', () => {
  it('prints the phase', () => {
    const t = tableOf(NAMESPACE, [object('default', 86400 * 400, { status: { phase: 'Active' } }), object('old', 5, { status: { phase: 'Terminating' } })]);
    assert.deepEqual(headers(t, true), ['NAME', 'STATUS', 'AGE']);
    assert.deepEqual(t.rows.map((r) => r.cells), [['default', 'Active', '400d'], ['old', 'Terminating', '5s']]);
  });
});

describe('event tables', () => {
  it('prints core events, wide columns included', () => {
    const ev = object('web-0.17f', 600, {
      involvedObject: { kind: 'Pod', name: 'web-0', namespace: 'default', fieldPath: 'spec.containers{app}' },
      reason: 'BackOff',
      message: ' Back-off restarting failed container \n',
      type: 'Warning',
      source: { component: 'kubelet', host: 'node-a' },
      firstTimestamp: ago(600),
      lastTimestamp: ago(30),
      count: 7,
    });
    const t = tableOf(EVENT, [ev]);
    assert.deepEqual(headers(t), ['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE']);
    assert.deepEqual(headers(t, true), ['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'SUBOBJECT', 'SOURCE', 'MESSAGE', 'FIRST SEEN', 'COUNT', 'NAME']);
    assert.deepEqual(t.rows[0]!.cells, ['30s', 'Warning', 'BackOff', 'pod/web-0', 'spec.containers{app}', 'kubelet, node-a', 'Back-off restarting failed container', '10m', 7, 'web-0.17f']);
    assert.equal(t.columnDefinitions[9]!.format, 'name');
  });

  it('prints new-style events (eventTime, series, reporting controller)', () => {
    const ev = object('x.1', 600, {
      involvedObject: { kind: 'Node', name: 'node-a' },
      reason: 'Rebooted',
      message: 'rebooted',
      type: 'Normal',
      eventTime: '2025-06-01T11:50:00.000000Z',
      reportingComponent: 'kubelet',
      reportingInstance: 'node-a',
      series: { count: 3, lastObservedTime: '2025-06-01T11:59:00.123456Z' },
    });
    assert.deepEqual(cellsOf(EVENT, ev), ['59s', 'Normal', 'Rebooted', 'node/node-a', '', 'kubelet, node-a', 'rebooted', '10m', 3, 'x.1']);
    const single = object('y', 60, { involvedObject: { kind: 'Namespace' }, eventTime: ago(60), reportingComponent: 'ctrl' });
    assert.deepEqual(cellsOf(EVENT, single).slice(0, 9), ['60s', '', '', 'namespace', '', 'ctrl', '', '60s', 1]);
  });

  it('prints events.orch.io/v1 events the same way', () => {
    const ev = object('web-0.17f', 600, {
      regarding: { kind: 'Pod', name: 'web-0', fieldPath: 'spec.containers{app}' },
      reason: 'Pulled',
      note: 'Successfully pulled image',
      type: 'Normal',
      eventTime: ago(600),
      reportingController: 'kubelet',
      reportingInstance: 'node-a',
      deprecatedFirstTimestamp: ago(600),
      deprecatedLastTimestamp: ago(120),
      deprecatedCount: 2,
    });
    const t = tableOf(EVENT_V1, [ev]);
    assert.deepEqual(headers(t), ['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE']);
    assert.deepEqual(t.rows[0]!.cells, ['2m', 'Normal', 'Pulled', 'pod/web-0', 'spec.containers{app}', 'kubelet, node-a', 'Successfully pulled image', '10m', 2, 'web-0.17f']);
  });
});

describe('configuration tables', () => {
  it('counts config map keys, binary ones included', () => {
    const t = tableOf(CONFIG_MAP, [object('settings', 60, { data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } }), object('empty', 60, {})]);
    assert.deepEqual(headers(t, true), ['NAME', 'DATA', 'AGE']);
    assert.deepEqual(t.rows.map((r) => r.cells), [['settings', 3, '60s'], ['empty', 0, '60s']]);
  });

  it('prints secret type and key count, service account secrets', () => {
    assert.deepEqual(cellsOf(SECRET, object('tls', 60, { type: 'orch.io/tls', data: { 'tls.crt': 'x', 'tls.key': 'y' } })), ['tls', 'orch.io/tls', 2, '60s']);
    assert.deepEqual(headers(tableOf(SECRET, [])), ['NAME', 'TYPE', 'DATA', 'AGE']);
    assert.deepEqual(cellsOf(SERVICE_ACCOUNT, object('default', 60, {})), ['default', 0, '60s']);
    assert.deepEqual(cellsOf(SERVICE_ACCOUNT, object('bot', 60, { secrets: [{ name: 's' }] })), ['bot', 1, '60s']);
  });

  it('splits quota requests and limits', () => {
    const q = object('compute', 60, {
      status: {
        hard: { pods: '10', 'requests.cpu': '4', 'limits.memory': '8Gi', 'limits.cpu': '8' },
        used: { pods: '3', 'requests.cpu': '500m', 'limits.memory': '1Gi' },
      },
    });
    assert.deepEqual(headers(tableOf(QUOTA, [q])), ['NAME', 'REQUEST', 'LIMIT', 'AGE']);
    assert.deepEqual(cellsOf(QUOTA, q), ['compute', 'pods: 3/10, requests.cpu: 500m/4', 'limits.cpu: 0/8, limits.memory: 1Gi/8Gi', '60s']);
  });
});

describe('storage tables', () => {
  it('prints persistent volumes and claims', () => {
    const pv = object('pv-1', 60, {
      spec: { capacity: { storage: '10Gi' }, accessModes: ['ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Retain', claimRef: { namespace: 'shop', name: 'data' }, storageClassName: 'fast', volumeMode: 'Filesystem' },
      status: { phase: 'Bound' },
    });
    const t = tableOf(PV, [pv]);
    assert.deepEqual(headers(t), ['NAME', 'CAPACITY', 'ACCESS MODES', 'RECLAIM POLICY', 'STATUS', 'CLAIM', 'STORAGECLASS', 'VOLUMEATTRIBUTESCLASS', 'REASON', 'AGE']);
    assert.deepEqual(t.rows[0]!.cells, ['pv-1', '10Gi', 'RWO,RWX', 'Retain', 'Bound', 'shop/data', 'fast', '<unset>', '', '60s', 'Filesystem']);
    const pvc = object('data', 60, {
      spec: { volumeName: 'pv-1', storageClassName: 'fast', resources: { requests: { storage: '5Gi' } } },
      status: { phase: 'Bound', capacity: { storage: '10Gi' }, accessModes: ['ReadWriteOnce'] },
    });
    assert.deepEqual(cellsOf(PVC, pvc), ['data', 'Bound', 'pv-1', '10Gi', 'RWO', 'fast', '<unset>', '60s', '<unset>']);
    const pending = object('wait', 60, { spec: { storageClassName: 'slow' }, status: { phase: 'Pending' } }, { annotations: { 'volume.beta.kubernetes.io/storage-class': 'legacy' }, deletionTimestamp: ago(1) });
    assert.deepEqual(cellsOf(PVC, pending).slice(1, 6), ['Terminating', '', '', '', 'legacy']);
  });

  it('prints storage classes, defaults filled and the default marked', () => {
    const sc = object('standard', 60, { provisioner: 'example.com/disk' }, { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } });
    const t = tableOf(STORAGE_CLASS, [sc]);
    assert.deepEqual(headers(t), ['NAME', 'PROVISIONER', 'RECLAIMPOLICY', 'VOLUMEBINDINGMODE', 'ALLOWVOLUMEEXPANSION', 'AGE']);
    assert.deepEqual(t.rows[0]!.cells, ['standard (default)', 'example.com/disk', 'Delete', 'Immediate', false, '60s']);
    const fast = object('fast', 60, { provisioner: 'p', reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer', allowVolumeExpansion: true });
    assert.deepEqual(cellsOf(STORAGE_CLASS, fast), ['fast', 'p', 'Retain', 'WaitForFirstConsumer', true, '60s']);
  });

  it('prints CSI drivers, CSI nodes and volume attachments', () => {
    const driver = object('csi.example.com', 60, { spec: { podInfoOnMount: true, tokenRequests: [{ audience: 'a' }, { audience: 'b' }], volumeLifecycleModes: ['Persistent', 'Ephemeral'] } });
    assert.deepEqual(cellsOf(CSI_DRIVER, driver), ['csi.example.com', true, true, false, 'a,b', false, 'Persistent,Ephemeral', '60s']);
    assert.deepEqual(cellsOf(CSI_DRIVER, object('d', 60, { spec: {} })).slice(1, 7), [true, false, false, '<unset>', false, '<none>']);
    assert.deepEqual(cellsOf(CSI_NODE, object('node-a', 60, { spec: { drivers: [{ name: 'x' }] } })), ['node-a', 1, '60s']);
    const va = object('va-1', 60, { spec: { attacher: 'csi.example.com', nodeName: 'node-a', source: { persistentVolumeName: 'pv-1' } }, status: { attached: true } });
    assert.deepEqual(cellsOf(ATTACHMENT, va), ['va-1', 'csi.example.com', 'pv-1', 'node-a', true, '60s']);
  });
});

describe('cluster object tables', () => {
  it('prints leases and runtime classes', () => {
    assert.deepEqual(cellsOf(LEASE, object('node-a', 60, { spec: { holderIdentity: 'node-a' } })), ['node-a', 'node-a', '60s']);
    assert.deepEqual(cellsOf(LEASE, object('free', 60, { spec: {} })), ['free', '', '60s']);
    assert.deepEqual(headers(tableOf(LEASE, [])), ['NAME', 'HOLDER', 'AGE']);
    assert.deepEqual(cellsOf(RUNTIME_CLASS, object('gvisor', 60, { handler: 'runsc' })), ['gvisor', 'runsc', '60s']);
  });

  it('prints role bindings with their subjects in wide output', () => {
    const rb = object('read', 60, {
      roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'ClusterRole', name: 'view' },
      subjects: [
        { kind: 'User', name: 'alice' },
        { kind: 'User', name: 'bob' },
        { kind: 'Group', name: 'devs' },
        { kind: 'ServiceAccount', name: 'ci', namespace: 'build' },
      ],
    });
    const t = tableOf(ROLE_BINDING, [rb]);
    assert.deepEqual(headers(t), ['NAME', 'ROLE', 'AGE']);
    assert.deepEqual(headers(t, true), ['NAME', 'ROLE', 'AGE', 'USERS', 'GROUPS', 'SERVICEACCOUNTS']);
    assert.deepEqual(t.rows[0]!.cells, ['read', 'ClusterRole/view', '60s', 'alice, bob', 'devs', 'build/ci']);
    assert.equal(tableOf(CLUSTER_ROLE_BINDING, []).columnDefinitions[3]!.description, 'Users in the clusterRoleBinding');
  });

  it('prints certificate signing requests', () => {
    const csr = object('node-csr', 60, {
      spec: { signerName: 'orch.io/kube-apiserver-client-kubelet', username: 'system:node:a', expirationSeconds: 86400 },
      status: { conditions: [{ type: 'Approved', status: 'True' }], certificate: 'LS0t' },
    });
    const t = tableOf(CSR, [csr]);
    assert.deepEqual(headers(t), ['NAME', 'AGE', 'SIGNERNAME', 'REQUESTOR', 'REQUESTEDDURATION', 'CONDITION']);
    assert.deepEqual(t.rows[0]!.cells, ['node-csr', '60s', 'orch.io/kube-apiserver-client-kubelet', 'system:node:a', '24h', 'Approved,Issued']);
    const denied = object('d', 60, { spec: { username: 'u' }, status: { conditions: [{ type: 'Approved' }, { type: 'Denied' }, { type: 'Failed' }] } });
    assert.deepEqual(cellsOf(CSR, denied).slice(2), ['<none>', 'u', '<none>', 'Denied,Failed']);
    assert.equal(cellsOf(CSR, object('p', 60, { spec: {} }))[5], 'Pending');
  });

  it('counts webhooks', () => {
    assert.deepEqual(cellsOf(WEBHOOK, object('policy', 60, { webhooks: [{ name: 'a' }, { name: 'b' }] })), ['policy', 2, '60s']);
  });
});

describe('scaling and scheduling tables', () => {
  it('prints autoscalers with their metrics', () => {
    const hpa = object('web', 60, {
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        minReplicas: 2,
        maxReplicas: 10,
        metrics: [
          { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } },
          { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '1Gi' } } },
          { type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '100' } } },
        ],
      },
      status: {
        currentReplicas: 3,
        currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 45, averageValue: '450m' } } }],
      },
    });
    const t = tableOf(HPA, [hpa]);
    assert.deepEqual(headers(t), ['NAME', 'REFERENCE', 'TARGETS', 'MINPODS', 'MAXPODS', 'REPLICAS', 'AGE']);
    assert.deepEqual(t.rows[0]!.cells, ['web', 'Deployment/web', 'cpu: 45%/80%, memory: <unknown>/1Gi + 1 more...', '2', 10, 3, '60s']);
    const bare = object('bare', 60, { spec: { scaleTargetRef: { kind: 'Deployment', name: 'x' }, maxReplicas: 3 } });
    assert.deepEqual(cellsOf(HPA, bare).slice(2, 6), ['<none>', '<unset>', 3, 0]);
  });

  it('prints pod disruption budgets', () => {
    const pdb = object('web', 60, { spec: { minAvailable: 2 }, status: { disruptionsAllowed: 1 } });
    assert.deepEqual(headers(tableOf(PDB, [pdb])), ['NAME', 'MIN AVAILABLE', 'MAX UNAVAILABLE', 'ALLOWED DISRUPTIONS', 'AGE']);
    assert.deepEqual(cellsOf(PDB, pdb), ['web', '2', 'N/A', 1, '60s']);
    assert.deepEqual(cellsOf(PDB, object('p', 60, { spec: { maxUnavailable: '25%' } })).slice(1, 4), ['N/A', '25%', 0]);
  });

  it('prints priority classes and scales', () => {
    const pc = object('high', 60, { value: 1000000, globalDefault: false, preemptionPolicy: 'PreemptLowerPriority' });
    assert.deepEqual(headers(tableOf(PRIORITY_CLASS, [])), ['NAME', 'VALUE', 'GLOBAL-DEFAULT', 'AGE', 'PREEMPTIONPOLICY']);
    assert.deepEqual(cellsOf(PRIORITY_CLASS, pc), ['high', 1000000, false, '60s', 'PreemptLowerPriority']);
    const scale = object('web', 60, { spec: { replicas: 3 }, status: { replicas: 2, selector: 'app=web' } });
    assert.deepEqual(cellsOf(SCALE, scale), ['web', 3, 2, '60s']);
    assert.equal(tableOf(SCALE, []).columnDefinitions[0]!.format, '');
  });

  it('covers every kind the original prints that the server serves', () => {
    assert.deepEqual(printedKinds(), [
      '/ConfigMap', '/Endpoints', '/Event', '/Namespace', '/Node', '/PersistentVolume', '/PersistentVolumeClaim', '/Pod', '/PodTemplate',
      '/ReplicationController', '/ResourceQuota', '/Secret', '/Service', '/ServiceAccount',
      'admissionregistration.orch.io/MutatingWebhookConfiguration', 'admissionregistration.orch.io/ValidatingWebhookConfiguration',
      'apps/ControllerRevision', 'apps/DaemonSet', 'apps/Deployment', 'apps/ReplicaSet', 'apps/StatefulSet',
      'autoscaling/HorizontalPodAutoscaler', 'autoscaling/Scale', 'batch/CronJob', 'batch/Job',
      'certificates.orch.io/CertificateSigningRequest', 'coordination.orch.io/Lease', 'discovery.orch.io/EndpointSlice', 'events.orch.io/Event',
      'flowcontrol.apiserver.orch.io/FlowSchema', 'flowcontrol.apiserver.orch.io/PriorityLevelConfiguration',
      'networking.orch.io/Ingress', 'networking.orch.io/IngressClass', 'networking.orch.io/NetworkPolicy', 'node.orch.io/RuntimeClass',
      'policy/PodDisruptionBudget', 'rbac.authorization.orch.io/ClusterRoleBinding', 'rbac.authorization.orch.io/RoleBinding',
      'scheduling.orch.io/PriorityClass', 'storage.orch.io/CSIDriver', 'storage.orch.io/CSINode', 'storage.orch.io/StorageClass',
      'storage.orch.io/VolumeAttachment',
    ]);
  });
});
