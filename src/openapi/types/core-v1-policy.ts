/**
 * LimitRanges, ResourceQuotas, ReplicationControllers, Bindings and ComponentStatuses.
 * Field names, types, markers and proto numbers follow the original API; descriptions are ours.
 */
import { f, S, I32, I64, QTY, TIME, list, map, type StructDecl } from '../schema-dsl.ts';
import { core } from './namespaces.ts';

export const corePolicyTypes: readonly StructDecl[] = [
  core.kind('LimitRange', 'Default and bounding resource values per object in a namespace.', {
    spec: f(core.ref('LimitRangeSpec'), 'The limits.', { proto: 2 }),
  }),
  core.struct('LimitRangeSpec', 'Limits of a namespace.', {
    limits: f(list(core.ref('LimitRangeItem')), 'Limits per kind of object.', { required: true, listType: 'atomic', proto: 1 }),
  }),
  core.struct('LimitRangeItem', 'Limits for one kind of object.', {
    type: f(S, 'Kind of object: Container, Pod or PersistentVolumeClaim.', { required: true, proto: 1 }),
    max: f(map(QTY), 'Most of each resource.', { proto: 2 }),
    min: f(map(QTY), 'Least of each resource.', { proto: 3 }),
    default: f(map(QTY), 'Limits given when none are set.', { proto: 4 }),
    defaultRequest: f(map(QTY), 'Requests given when none are set.', { proto: 5 }),
    maxLimitRequestRatio: f(map(QTY), 'Largest allowed limit to request ratio.', { proto: 6 }),
  }),
  core.kind('ResourceQuota', 'Caps on total resource use in a namespace.', {
    spec: f(core.ref('ResourceQuotaSpec'), 'The caps.', { proto: 2 }),
    status: f(core.ref('ResourceQuotaStatus'), 'Current use against the caps.', { proto: 3 }),
  }),
  core.struct('ResourceQuotaSpec', 'Caps of a quota.', {
    hard: f(map(QTY), 'Cap for each resource.', { proto: 1 }),
    scopes: f(list(S), 'Scopes every tracked object must match.', { listType: 'atomic', proto: 2 }),
    scopeSelector: f(core.ref('ScopeSelector'), 'Scope requirements every tracked object must match.', { proto: 3 }),
  }),
  core.struct('ResourceQuotaStatus', 'Current use against a quota.', {
    hard: f(map(QTY), 'Caps in force.', { proto: 1 }),
    used: f(map(QTY), 'Current use.', { proto: 2 }),
  }),
  core.struct('ScopeSelector', 'Scope requirements, ANDed.', {
    matchExpressions: f(list(core.ref('ScopedResourceSelectorRequirement')), 'The requirements.', { listType: 'atomic', proto: 1 }),
  }, { structType: 'atomic' }),
  core.struct('ScopedResourceSelectorRequirement', 'A requirement on a quota scope.', {
    scopeName: f(S, 'Scope the requirement is about.', { required: true, enum: ['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'PriorityClass', 'CrossNamespacePodAffinity'], proto: 1 }),
    operator: f(S, 'In, NotIn, Exists or DoesNotExist.', { required: true, enum: ['In', 'NotIn', 'Exists', 'DoesNotExist'], proto: 2 }),
    values: f(list(S), 'Values for In and NotIn.', { listType: 'atomic', proto: 3 }),
  }),
  core.kind('ReplicationController', 'Keeps a number of pod replicas running; superseded by Deployments.', {
    spec: f(core.ref('ReplicationControllerSpec'), 'Desired behaviour.', { proto: 2 }),
    status: f(core.ref('ReplicationControllerStatus'), 'Most recently observed state.', { proto: 3 }),
  }),
  core.struct('ReplicationControllerSpec', 'Desired behaviour of a replication controller.', {
    replicas: f(I32, 'Desired number of pods; default 1.', { proto: 1 }),
    minReadySeconds: f(I32, 'Seconds a pod must be ready to count as available.', { proto: 4 }),
    selector: f(map(S), 'Labels of the pods counted; default the template\'s labels.', { mapType: 'atomic', proto: 2 }),
    template: f(core.ref('PodTemplateSpec'), 'Template of the pods created.', { proto: 3 }),
  }),
  core.struct('ReplicationControllerStatus', 'Observed state of a replication controller.', {
    replicas: f(I32, 'Pods currently running.', { required: true, proto: 1 }),
    fullyLabeledReplicas: f(I32, 'Pods whose labels match the template\'s.', { proto: 2 }),
    readyReplicas: f(I32, 'Pods that are ready.', { proto: 4 }),
    availableReplicas: f(I32, 'Pods ready for at least minReadySeconds.', { proto: 5 }),
    observedGeneration: f(I64, 'The metadata.generation the controller last acted on.', { proto: 3 }),
    conditions: f(list(core.ref('ReplicationControllerCondition')), 'Current conditions.', { listType: 'map', listMapKeys: ['type'], patchMergeKey: 'type', patchStrategy: 'merge', proto: 6 }),
  }),
  core.struct('ReplicationControllerCondition', 'One condition of a replication controller.', {
    type: f(S, 'Condition type.', { required: true, proto: 1 }),
    status: f(S, 'True, False or Unknown.', { required: true, proto: 2 }),
    lastTransitionTime: f(TIME, 'When the condition last changed from one status to another.', { proto: 3 }),
    reason: f(S, 'Machine-readable, CamelCase reason for the last transition.', { proto: 4 }),
    message: f(S, 'Human-readable details about the last transition.', { proto: 5 }),
  }),
  core.kind('Binding', 'Binds a pod to a node; posted to a pod\'s binding subresource.', {
    target: f(core.ref('ObjectReference'), 'Node to bind to.', { required: true, proto: 2 }),
  }),
  core.kind('ComponentStatus', 'Deprecated: health of a control plane component.', {
    conditions: f(list(core.ref('ComponentCondition')), 'Health conditions.', { listType: 'map', listMapKeys: ['type'], patchMergeKey: 'type', patchStrategy: 'merge', proto: 2 }),
  }),
  core.struct('ComponentCondition', 'Health of a component.', {
    type: f(S, 'Condition type; only Healthy.', { required: true, proto: 1 }),
    status: f(S, 'True, False or Unknown.', { required: true, proto: 2 }),
    message: f(S, 'Output of the check.', { proto: 3 }),
    error: f(S, 'Error from the check.', { proto: 4 }),
  }),
];
