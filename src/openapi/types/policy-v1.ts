/**
 * policy/v1: PodDisruptionBudgets and Evictions.
 * Field names, types, markers and proto numbers follow the original API; descriptions are ours.
 */
import { f, S, I32, I64, IOS, TIME, list, map, type StructDecl } from '../schema-dsl.ts';
import { meta, policy } from './namespaces.ts';

export const policyTypes: readonly StructDecl[] = [
  policy.kind('PodDisruptionBudget', 'Limits how many pods of a set may be down at once through voluntary disruptions.', {
    spec: f(policy.ref('PodDisruptionBudgetSpec'), 'The budget.', { proto: 2 }),
    status: f(policy.ref('PodDisruptionBudgetStatus'), 'Current state of the budget.', { proto: 3 }),
  }),
  policy.struct('PodDisruptionBudgetSpec', 'A disruption budget.', {
    minAvailable: f(IOS, 'Pods that must stay available, as a number or percentage.', { proto: 1 }),
    selector: f(meta.ref('LabelSelector'), 'Labels of the pods covered; empty selects all pods in the namespace.', { patchStrategy: 'replace', proto: 2 }),
    maxUnavailable: f(IOS, 'Pods that may be unavailable, as a number or percentage.', { proto: 3 }),
    unhealthyPodEvictionPolicy: f(S, 'IfHealthyBudget or AlwaysAllow: when unhealthy pods may be evicted.', { enum: ['IfHealthyBudget', 'AlwaysAllow'], proto: 4 }),
  }),
  policy.struct('PodDisruptionBudgetStatus', 'Current state of a disruption budget.', {
    observedGeneration: f(I64, 'The metadata.generation the controller last acted on.', { proto: 1 }),
    disruptedPods: f(map(TIME), 'Pods being evicted, with the time the eviction was granted.', { proto: 2 }),
    disruptionsAllowed: f(I32, 'Disruptions allowed now.', { required: true, proto: 3 }),
    currentHealthy: f(I32, 'Healthy pods now.', { required: true, proto: 4 }),
    desiredHealthy: f(I32, 'Healthy pods needed.', { required: true, proto: 5 }),
    expectedPods: f(I32, 'Pods covered by the budget.', { required: true, proto: 6 }),
    conditions: f(list(meta.ref('Condition')), 'Current conditions, such as DisruptionAllowed.', { listType: 'map', listMapKeys: ['type'], patchMergeKey: 'type', patchStrategy: 'merge', proto: 7 }),
  }),
  policy.kind('Eviction', 'Asks to evict a pod, honouring disruption budgets; posted to a pod\'s eviction subresource.', {
    deleteOptions: f(meta.ref('DeleteOptions'), 'Options of the resulting delete.', { proto: 2 }),
  }),
];
