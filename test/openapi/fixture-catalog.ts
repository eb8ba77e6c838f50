/**
 * A stand-in for the server's catalog in these tests: the built-in resource
 * types of the original (v1.32), with our group names, verbs and
 * subresources. The real catalog lives with the registry; the documents are
 * built from whatever it serves, so this list only has to be representative.
 */
import { ResourceRegistry } from '../../src/registry/registry.ts';
import type { ResourceTypeDef, SubresourceType, Verb } from '../../src/registry/resource-type.ts';

const STATUS = (kind: string): SubresourceType => ({ name: 'status', kind, verbs: ['get', 'patch', 'update'] });
const SCALE: SubresourceType = { name: 'scale', kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: ['get', 'patch', 'update'] };
const CREATE_ONLY: Verb[] = ['create'];

type Short = [resource: string, kind: string, namespaced: boolean, extra?: Partial<ResourceTypeDef>];

function defs(group: string, version: string, rows: Short[]): ResourceTypeDef[] {
  return rows.map(([resource, kind, namespaced, extra]) => ({
    group,
    version,
    resource,
    kind,
    namespaced,
    singularName: kind.toLowerCase(),
    ...extra,
  }));
}

export const FIXTURE_DEFS: ResourceTypeDef[] = [
  ...defs('', 'v1', [
    ['bindings', 'Binding', true, { verbs: CREATE_ONLY, virtual: true }],
    ['componentstatuses', 'ComponentStatus', false, { verbs: ['get', 'list'] }],
    ['configmaps', 'ConfigMap', true, { shortNames: ['cm'] }],
    ['endpoints', 'Endpoints', true, { shortNames: ['ep'] }],
    ['events', 'Event', true, { shortNames: ['ev'] }],
    ['limitranges', 'LimitRange', true, { shortNames: ['limits'] }],
    ['namespaces', 'Namespace', false, {
      shortNames: ['ns'],
      verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
      subresources: [STATUS('Namespace'), { name: 'finalize', kind: 'Namespace', verbs: ['update'] }],
      strategy: { returnDeletedObject: true },
    }],
    ['nodes', 'Node', false, { shortNames: ['no'], subresources: [STATUS('Node')] }],
    ['persistentvolumeclaims', 'PersistentVolumeClaim', true, { shortNames: ['pvc'], subresources: [STATUS('PersistentVolumeClaim')] }],
    ['persistentvolumes', 'PersistentVolume', false, { shortNames: ['pv'], subresources: [STATUS('PersistentVolume')] }],
    ['pods', 'Pod', true, {
      shortNames: ['po'],
      categories: ['all'],
      subresources: [
        STATUS('Pod'),
        { name: 'binding', kind: 'Binding', verbs: ['create'] },
        { name: 'eviction', kind: 'Eviction', group: 'policy', version: 'v1', verbs: ['create'] },
        { name: 'ephemeralcontainers', kind: 'Pod', verbs: ['get', 'patch', 'update'] },
        { name: 'log', kind: 'Pod', verbs: ['get'] },
        { name: 'exec', kind: 'PodExecOptions', verbs: ['create', 'get'] },
      ],
      strategy: { returnDeletedObject: true },
    }],
    ['podtemplates', 'PodTemplate', true],
    ['replicationcontrollers', 'ReplicationController', true, { shortNames: ['rc'], subresources: [STATUS('ReplicationController'), SCALE] }],
    ['resourcequotas', 'ResourceQuota', true, { shortNames: ['quota'], subresources: [STATUS('ResourceQuota')] }],
    ['secrets', 'Secret', true],
    ['serviceaccounts', 'ServiceAccount', true, { shortNames: ['sa'], subresources: [{ name: 'token', kind: 'TokenRequest', group: 'authentication.orch.io', version: 'v1', verbs: ['create'] }] }],
    ['services', 'Service', true, { shortNames: ['svc'], subresources: [STATUS('Service')], verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] }],
  ]),
  ...defs('apps', 'v1', [
    ['controllerrevisions', 'ControllerRevision', true],
    ['daemonsets', 'DaemonSet', true, { shortNames: ['ds'], subresources: [STATUS('DaemonSet')], tracksGeneration: true }],
    ['deployments', 'Deployment', true, { shortNames: ['deploy'], subresources: [STATUS('Deployment'), SCALE], tracksGeneration: true }],
    ['replicasets', 'ReplicaSet', true, { shortNames: ['rs'], subresources: [STATUS('ReplicaSet'), SCALE], tracksGeneration: true }],
    ['statefulsets', 'StatefulSet', true, { shortNames: ['sts'], subresources: [STATUS('StatefulSet'), SCALE], tracksGeneration: true }],
  ]),
  ...defs('batch', 'v1', [
    ['cronjobs', 'CronJob', true, { shortNames: ['cj'], subresources: [STATUS('CronJob')] }],
    ['jobs', 'Job', true, { subresources: [STATUS('Job')] }],
  ]),
  ...defs('autoscaling', 'v1', [['horizontalpodautoscalers', 'HorizontalPodAutoscaler', true, { shortNames: ['hpa'], subresources: [STATUS('HorizontalPodAutoscaler')] }]]),
  ...defs('autoscaling', 'v2', [['horizontalpodautoscalers', 'HorizontalPodAutoscaler', true, { shortNames: ['hpa'], subresources: [STATUS('HorizontalPodAutoscaler')] }]]),
  ...defs('policy', 'v1', [['poddisruptionbudgets', 'PodDisruptionBudget', true, { shortNames: ['pdb'], subresources: [STATUS('PodDisruptionBudget')] }]]),
  ...defs('coordination.orch.io', 'v1', [['leases', 'Lease', true]]),
  ...defs('events.orch.io', 'v1', [['events', 'Event', true, { shortNames: ['ev'] }]]),
  ...defs('rbac.authorization.orch.io', 'v1', [
    ['clusterrolebindings', 'ClusterRoleBinding', false],
    ['clusterroles', 'ClusterRole', false],
    ['rolebindings', 'RoleBinding', true],
    ['roles', 'Role', true],
  ]),
  ...defs('authentication.orch.io', 'v1', [
    ['selfsubjectreviews', 'SelfSubjectReview', false, { verbs: CREATE_ONLY, virtual: true }],
    ['tokenreviews', 'TokenReview', false, { verbs: CREATE_ONLY, virtual: true }],
  ]),
  ...defs('authorization.orch.io', 'v1', [
    ['localsubjectaccessreviews', 'LocalSubjectAccessReview', true, { verbs: CREATE_ONLY, virtual: true }],
    ['selfsubjectaccessreviews', 'SelfSubjectAccessReview', false, { verbs: CREATE_ONLY, virtual: true }],
    ['selfsubjectrulesreviews', 'SelfSubjectRulesReview', false, { verbs: CREATE_ONLY, virtual: true }],
    ['subjectaccessreviews', 'SubjectAccessReview', false, { verbs: CREATE_ONLY, virtual: true }],
  ]),
  ...defs('certificates.orch.io', 'v1', [
    ['certificatesigningrequests', 'CertificateSigningRequest', false, {
      shortNames: ['csr'],
      subresources: [STATUS('CertificateSigningRequest'), { name: 'approval', kind: 'CertificateSigningRequest', verbs: ['get', 'patch', 'update'] }],
    }],
  ]),
  ...defs('admissionregistration.orch.io', 'v1', [
    ['mutatingwebhookconfigurations', 'MutatingWebhookConfiguration', false],
    ['validatingadmissionpolicies', 'ValidatingAdmissionPolicy', false, { subresources: [STATUS('ValidatingAdmissionPolicy')] }],
    ['validatingadmissionpolicybindings', 'ValidatingAdmissionPolicyBinding', false],
    ['validatingwebhookconfigurations', 'ValidatingWebhookConfiguration', false],
  ]),
  // A kind nobody declared (the older versions of spec 9.3 are declared: src/openapi/types/versions.ts).
  ...defs('admissionregistration.orch.io', 'v1alpha1', [['validatingadmissionpolicies', 'ValidatingAdmissionPolicy', false]]),
  ...defs('networking.orch.io', 'v1', [
    ['ingressclasses', 'IngressClass', false],
    ['ingresses', 'Ingress', true, { shortNames: ['ing'], subresources: [STATUS('Ingress')] }],
    ['networkpolicies', 'NetworkPolicy', true, { shortNames: ['netpol'] }],
  ]),
  ...defs('storage.orch.io', 'v1', [
    ['csidrivers', 'CSIDriver', false],
    ['csinodes', 'CSINode', false],
    ['csistoragecapacities', 'CSIStorageCapacity', true],
    ['storageclasses', 'StorageClass', false, { shortNames: ['sc'] }],
    ['volumeattachments', 'VolumeAttachment', false, { subresources: [STATUS('VolumeAttachment')] }],
  ]),
  ...defs('scheduling.orch.io', 'v1', [['priorityclasses', 'PriorityClass', false, { shortNames: ['pc'] }]]),
  ...defs('node.orch.io', 'v1', [['runtimeclasses', 'RuntimeClass', false]]),
  ...defs('discovery.orch.io', 'v1', [['endpointslices', 'EndpointSlice', true]]),
  ...defs('flowcontrol.apiserver.orch.io', 'v1', [
    ['flowschemas', 'FlowSchema', false, { subresources: [STATUS('FlowSchema')] }],
    ['prioritylevelconfigurations', 'PriorityLevelConfiguration', false, { subresources: [STATUS('PriorityLevelConfiguration')] }],
  ]),
];

export function fixtureRegistry(): ResourceRegistry {
  return new ResourceRegistry(FIXTURE_DEFS);
}
