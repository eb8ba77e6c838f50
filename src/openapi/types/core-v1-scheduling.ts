/**
 * Affinity, tolerations and topology spread: where pods may run.
 * Field names, types, markers and proto numbers follow the original API; descriptions are ours.
 */
import { f, S, I32, I64, list, type StructDecl } from '../schema-dsl.ts';
import { core, meta } from './namespaces.ts';

export const schedulingTypes: readonly StructDecl[] = [
  core.struct('Affinity', 'Scheduling constraints of a pod.', {
    nodeAffinity: f(core.ref('NodeAffinity'), 'Rules on node labels.', { proto: 1 }),
    podAffinity: f(core.ref('PodAffinity'), 'Rules to run near other pods.', { proto: 2 }),
    podAntiAffinity: f(core.ref('PodAntiAffinity'), 'Rules to run away from other pods.', { proto: 3 }),
  }),
  core.struct('NodeAffinity', 'Node selection rules.', {
    requiredDuringSchedulingIgnoredDuringExecution: f(core.ref('NodeSelector'), 'Rules a node must meet when the pod is scheduled.', { proto: 1 }),
    preferredDuringSchedulingIgnoredDuringExecution: f(list(core.ref('PreferredSchedulingTerm')), 'Weighted rules the scheduler prefers.', { listType: 'atomic', proto: 2 }),
  }),
  core.struct('NodeSelector', 'Node selector terms, ORed.', {
    nodeSelectorTerms: f(list(core.ref('NodeSelectorTerm')), 'The terms; a node matching any of them matches.', { required: true, listType: 'atomic', proto: 1 }),
  }, { structType: 'atomic' }),
  core.struct('NodeSelectorTerm', 'Requirements, ANDed.', {
    matchExpressions: f(list(core.ref('NodeSelectorRequirement')), 'Requirements on node labels.', { listType: 'atomic', proto: 1 }),
    matchFields: f(list(core.ref('NodeSelectorRequirement')), 'Requirements on node fields.', { listType: 'atomic', proto: 2 }),
  }, { structType: 'atomic' }),
  core.struct('NodeSelectorRequirement', 'A requirement on a key.', {
    key: f(S, 'Label or field key.', { required: true, proto: 1 }),
    operator: f(S, 'In, NotIn, Exists, DoesNotExist, Gt or Lt.', { required: true, enum: ['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt'], proto: 2 }),
    values: f(list(S), 'Values for In and NotIn; one integer for Gt and Lt.', { listType: 'atomic', proto: 3 }),
  }),
  core.struct('PreferredSchedulingTerm', 'A weighted node preference.', {
    weight: f(I32, 'Weight, 1 to 100.', { required: true, proto: 1 }),
    preference: f(core.ref('NodeSelectorTerm'), 'Node selector term.', { required: true, proto: 2 }),
  }),
  core.struct('PodAffinity', 'Rules to place the pod near other pods.', {
    requiredDuringSchedulingIgnoredDuringExecution: f(list(core.ref('PodAffinityTerm')), 'Terms that must hold when the pod is scheduled.', { listType: 'atomic', proto: 1 }),
    preferredDuringSchedulingIgnoredDuringExecution: f(list(core.ref('WeightedPodAffinityTerm')), 'Weighted terms the scheduler prefers.', { listType: 'atomic', proto: 2 }),
  }),
  core.struct('PodAntiAffinity', 'Rules to place the pod away from other pods.', {
    requiredDuringSchedulingIgnoredDuringExecution: f(list(core.ref('PodAffinityTerm')), 'Terms that must hold when the pod is scheduled.', { listType: 'atomic', proto: 1 }),
    preferredDuringSchedulingIgnoredDuringExecution: f(list(core.ref('WeightedPodAffinityTerm')), 'Weighted terms the scheduler prefers.', { listType: 'atomic', proto: 2 }),
  }),
  core.struct('PodAffinityTerm', 'Pods to be near (or away from) within a topology domain.', {
    labelSelector: f(meta.ref('LabelSelector'), 'Labels of the pods.', { proto: 1 }),
    namespaces: f(list(S), 'Namespaces of the pods; default the pod\'s own.', { listType: 'atomic', proto: 2 }),
    topologyKey: f(S, 'Node label that defines the topology domain.', { required: true, proto: 3 }),
    namespaceSelector: f(meta.ref('LabelSelector'), 'Labels of the namespaces of the pods.', { proto: 4 }),
    matchLabelKeys: f(list(S), 'Label keys whose values, taken from this pod, are added to labelSelector.', { listType: 'atomic', proto: 5 }),
    mismatchLabelKeys: f(list(S), 'Label keys whose values, taken from this pod, must differ.', { listType: 'atomic', proto: 6 }),
  }),
  core.struct('WeightedPodAffinityTerm', 'A weighted pod affinity term.', {
    weight: f(I32, 'Weight, 1 to 100.', { required: true, proto: 1 }),
    podAffinityTerm: f(core.ref('PodAffinityTerm'), 'The term.', { required: true, proto: 2 }),
  }),
  core.struct('Toleration', 'Lets a pod run on nodes with a matching taint.', {
    key: f(S, 'Taint key; empty with Exists matches all taints.', { proto: 1 }),
    operator: f(S, 'Exists or Equal; default Equal.', { enum: ['Exists', 'Equal'], proto: 2 }),
    value: f(S, 'Taint value, for Equal.', { proto: 3 }),
    effect: f(S, 'Taint effect to match; empty matches all.', { enum: ['NoSchedule', 'PreferNoSchedule', 'NoExecute'], proto: 4 }),
    tolerationSeconds: f(I64, 'For NoExecute: seconds the pod stays bound after the taint appears.', { proto: 5 }),
  }),
  core.struct('TopologySpreadConstraint', 'How matching pods spread over a topology.', {
    maxSkew: f(I32, 'Largest allowed difference in matching pods between domains.', { required: true, proto: 1 }),
    topologyKey: f(S, 'Node label that defines the domains.', { required: true, proto: 2 }),
    whenUnsatisfiable: f(S, 'DoNotSchedule or ScheduleAnyway.', { required: true, enum: ['DoNotSchedule', 'ScheduleAnyway'], proto: 3 }),
    labelSelector: f(meta.ref('LabelSelector'), 'Labels of the pods counted.', { proto: 4 }),
    minDomains: f(I32, 'Least number of eligible domains.', { proto: 5 }),
    nodeAffinityPolicy: f(S, 'Whether node affinity limits the domains counted.', { enum: ['Ignore', 'Honor'], proto: 6 }),
    nodeTaintsPolicy: f(S, 'Whether node taints limit the domains counted.', { enum: ['Ignore', 'Honor'], proto: 7 }),
    matchLabelKeys: f(list(S), 'Label keys whose values, taken from this pod, narrow the pods counted.', { listType: 'atomic', proto: 8 }),
  }),
];
