/**
 * autoscaling/v1: the Scale subresource and the CPU-based HorizontalPodAutoscaler.
 * Field names, types, markers and proto numbers follow the original API; descriptions are ours.
 */
import { f, S, I32, I64, TIME, type StructDecl } from '../schema-dsl.ts';
import { autoscalingV1 } from './namespaces.ts';

export const autoscalingV1Types: readonly StructDecl[] = [
  autoscalingV1.kind('Scale', 'The scale subresource of a scalable resource.', {
    spec: f(autoscalingV1.ref('ScaleSpec'), 'Desired scale.', { proto: 2 }),
    status: f(autoscalingV1.ref('ScaleStatus'), 'Current scale.', { proto: 3 }),
  }),
  autoscalingV1.struct('ScaleSpec', 'Desired scale.', {
    replicas: f(I32, 'Desired number of instances.', { proto: 1 }),
  }),
  autoscalingV1.struct('ScaleStatus', 'Current scale.', {
    replicas: f(I32, 'Observed number of instances.', { required: true, proto: 1 }),
    selector: f(S, 'Label selector of the pods counted, in string form.', { proto: 2 }),
  }),
  autoscalingV1.kind('HorizontalPodAutoscaler', 'Scales a workload by observed CPU use.', {
    spec: f(autoscalingV1.ref('HorizontalPodAutoscalerSpec'), 'Desired behaviour.', { proto: 2 }),
    status: f(autoscalingV1.ref('HorizontalPodAutoscalerStatus'), 'Current state.', { proto: 3 }),
  }),
  autoscalingV1.struct('HorizontalPodAutoscalerSpec', 'Desired behaviour of an autoscaler.', {
    scaleTargetRef: f(autoscalingV1.ref('CrossVersionObjectReference'), 'Resource to scale.', { required: true, proto: 1 }),
    minReplicas: f(I32, 'Lower bound of replicas; default 1.', { proto: 2 }),
    maxReplicas: f(I32, 'Upper bound of replicas.', { required: true, proto: 3 }),
    targetCPUUtilizationPercentage: f(I32, 'Target average CPU use, as a percentage of requests.', { proto: 4 }),
  }),
  autoscalingV1.struct('HorizontalPodAutoscalerStatus', 'Current state of an autoscaler.', {
    observedGeneration: f(I64, 'The metadata.generation the controller last acted on.', { proto: 1 }),
    lastScaleTime: f(TIME, 'When the target was last scaled.', { proto: 2 }),
    currentReplicas: f(I32, 'Current number of replicas.', { required: true, proto: 3 }),
    desiredReplicas: f(I32, 'Replicas wanted by the last calculation.', { required: true, proto: 4 }),
    currentCPUUtilizationPercentage: f(I32, 'Current average CPU use, as a percentage of requests.', { proto: 5 }),
  }),
  autoscalingV1.struct('CrossVersionObjectReference', 'Names a resource by kind and name.', {
    kind: f(S, 'Kind of the object.', { required: true, proto: 1 }),
    name: f(S, 'Name of the object.', { required: true, proto: 2 }),
    apiVersion: f(S, 'API version of the object.', { proto: 3 }),
  }, { structType: 'atomic' }),
];
