/**
 * apps/v1 workloads: Deployments, ReplicaSets, StatefulSets, DaemonSets and ControllerRevisions.
 * Field names, types, markers and proto numbers follow the original API; descriptions are ours.
 */
import { f, S, I32, I64, B, IOS, TIME, OPAQUE, list, map, type StructDecl } from '../schema-dsl.ts';
import { apps, core, meta } from './namespaces.ts';

export const appsTypes: readonly StructDecl[] = [
  apps.kind('Deployment', 'Declarative updates for pods through ReplicaSets.', {
    spec: f(apps.ref('DeploymentSpec'), 'Desired behaviour of the deployment.', { proto: 2 }),
    status: f(apps.ref('DeploymentStatus'), 'Most recently observed state.', { proto: 3 }),
  }),
  apps.struct('DeploymentSpec', 'Desired behaviour of a deployment.', {
    replicas: f(I32, 'Desired number of pods; default 1.', { proto: 1 }),
    selector: f(meta.ref('LabelSelector'), 'Labels of the pods it manages; must match the template and cannot change.', { required: true, proto: 2 }),
    template: f(core.ref('PodTemplateSpec'), 'Template of the pods created.', { required: true, proto: 3 }),
    strategy: f(apps.ref('DeploymentStrategy'), 'How old pods are replaced by new ones.', { patchStrategy: 'retainKeys', proto: 4 }),
    minReadySeconds: f(I32, 'Seconds a new pod must be ready to count as available.', { proto: 5 }),
    revisionHistoryLimit: f(I32, 'Old ReplicaSets kept for rollback; default 10.', { proto: 6 }),
    paused: f(B, 'Stop rolling out changes.', { proto: 7 }),
    progressDeadlineSeconds: f(I32, 'Seconds without progress before the rollout counts as failed; default 600.', { proto: 9 }),
  }),
  apps.struct('DeploymentStrategy', 'How a deployment replaces pods.', {
    type: f(S, 'Recreate or RollingUpdate; default RollingUpdate.', { enum: ['Recreate', 'RollingUpdate'], proto: 1 }),
    rollingUpdate: f(apps.ref('RollingUpdateDeployment'), 'Rolling update parameters, when type is RollingUpdate.', { proto: 2 }),
  }),
  apps.struct('RollingUpdateDeployment', 'Pace of a rolling update.', {
    maxUnavailable: f(IOS, 'Pods that may be unavailable during the update, as a number or percentage; default 25%.', { proto: 1 }),
    maxSurge: f(IOS, 'Pods that may exist above the desired count, as a number or percentage; default 25%.', { proto: 2 }),
  }),
  apps.struct('DeploymentStatus', 'Observed state of a deployment.', {
    observedGeneration: f(I64, 'The metadata.generation the controller last acted on.', { proto: 1 }),
    replicas: f(I32, 'Pods targeted by the deployment.', { proto: 2 }),
    updatedReplicas: f(I32, 'Pods with the current template.', { proto: 3 }),
    readyReplicas: f(I32, 'Pods that are ready.', { proto: 7 }),
    availableReplicas: f(I32, 'Pods ready for at least minReadySeconds.', { proto: 4 }),
    unavailableReplicas: f(I32, 'Pods still needed for the deployment to be fully available.', { proto: 5 }),
    conditions: f(list(apps.ref('DeploymentCondition')), 'Current conditions, such as Available and Progressing.', { listType: 'map', listMapKeys: ['type'], patchMergeKey: 'type', patchStrategy: 'merge', proto: 6 }),
    collisionCount: f(I32, 'Counts hash collisions of ReplicaSet names.', { proto: 8 }),
  }),
  apps.struct('DeploymentCondition', 'One condition of a deployment.', {
    type: f(S, 'Available, Progressing or ReplicaFailure.', { required: true, proto: 1 }),
    status: f(S, 'True, False or Unknown.', { required: true, proto: 2 }),
    lastUpdateTime: f(TIME, 'When the condition was last updated.', { proto: 6 }),
    lastTransitionTime: f(TIME, 'When the condition last changed from one status to another.', { proto: 7 }),
    reason: f(S, 'Machine-readable, CamelCase reason for the last transition.', { proto: 4 }),
    message: f(S, 'Human-readable details about the last transition.', { proto: 5 }),
  }),
  apps.kind('ReplicaSet', 'Keeps a number of identical pods running.', {
    spec: f(apps.ref('ReplicaSetSpec'), 'Desired behaviour.', { proto: 2 }),
    status: f(apps.ref('ReplicaSetStatus'), 'Most recently observed state.', { proto: 3 }),
  }),
  apps.struct('ReplicaSetSpec', 'Desired behaviour of a replica set.', {
    replicas: f(I32, 'Desired number of pods; default 1.', { proto: 1 }),
    minReadySeconds: f(I32, 'Seconds a pod must be ready to count as available.', { proto: 4 }),
    selector: f(meta.ref('LabelSelector'), 'Labels of the pods counted; must match the template.', { required: true, proto: 2 }),
    template: f(core.ref('PodTemplateSpec'), 'Template of the pods created.', { proto: 3 }),
  }),
  apps.struct('ReplicaSetStatus', 'Observed state of a replica set.', {
    replicas: f(I32, 'Pods currently running.', { required: true, proto: 1 }),
    fullyLabeledReplicas: f(I32, 'Pods whose labels match the template\'s.', { proto: 2 }),
    readyReplicas: f(I32, 'Pods that are ready.', { proto: 4 }),
    availableReplicas: f(I32, 'Pods ready for at least minReadySeconds.', { proto: 5 }),
    observedGeneration: f(I64, 'The metadata.generation the controller last acted on.', { proto: 3 }),
    conditions: f(list(apps.ref('ReplicaSetCondition')), 'Current conditions.', { listType: 'map', listMapKeys: ['type'], patchMergeKey: 'type', patchStrategy: 'merge', proto: 6 }),
  }),
  apps.struct('ReplicaSetCondition', 'One condition of a replica set.', {
    type: f(S, 'Condition type.', { required: true, proto: 1 }),
    status: f(S, 'True, False or Unknown.', { required: true, proto: 2 }),
    lastTransitionTime: f(TIME, 'When the condition last changed from one status to another.', { proto: 3 }),
    reason: f(S, 'Machine-readable, CamelCase reason for the last transition.', { proto: 4 }),
    message: f(S, 'Human-readable details about the last transition.', { proto: 5 }),
  }),
  apps.kind('StatefulSet', 'Pods with stable identities and storage, created and updated in order.', {
    spec: f(apps.ref('StatefulSetSpec'), 'Desired behaviour.', { proto: 2 }),
    status: f(apps.ref('StatefulSetStatus'), 'Most recently observed state.', { proto: 3 }),
  }),
  apps.struct('StatefulSetSpec', 'Desired behaviour of a stateful set.', {
    replicas: f(I32, 'Desired number of pods; default 1.', { proto: 1 }),
    selector: f(meta.ref('LabelSelector'), 'Labels of the pods counted; must match the template.', { required: true, proto: 2 }),
    template: f(core.ref('PodTemplateSpec'), 'Template of the pods created.', { required: true, proto: 3 }),
    volumeClaimTemplates: f(list(core.ref('PersistentVolumeClaim')), 'Claims each pod gets, named after the pod.', { listType: 'atomic', proto: 4 }),
    serviceName: f(S, 'Headless service that gives the pods their network identity.', { required: true, proto: 5 }),
    podManagementPolicy: f(S, 'OrderedReady or Parallel: how pods are created and removed.', { enum: ['OrderedReady', 'Parallel'], proto: 6 }),
    updateStrategy: f(apps.ref('StatefulSetUpdateStrategy'), 'How pods are updated when the template changes.', { proto: 7 }),
    revisionHistoryLimit: f(I32, 'Revisions kept; default 10.', { proto: 8 }),
    minReadySeconds: f(I32, 'Seconds a pod must be ready to count as available.', { proto: 9 }),
    persistentVolumeClaimRetentionPolicy: f(apps.ref('StatefulSetPersistentVolumeClaimRetentionPolicy'), 'What happens to claims when pods are removed.', { proto: 10 }),
    ordinals: f(apps.ref('StatefulSetOrdinals'), 'Numbering of the pods.', { proto: 11 }),
  }),
  apps.struct('StatefulSetUpdateStrategy', 'How a stateful set updates its pods.', {
    type: f(S, 'RollingUpdate or OnDelete; default RollingUpdate.', { enum: ['RollingUpdate', 'OnDelete'], proto: 1 }),
    rollingUpdate: f(apps.ref('RollingUpdateStatefulSetStrategy'), 'Rolling update parameters.', { proto: 2 }),
  }),
  apps.struct('RollingUpdateStatefulSetStrategy', 'Rolling update parameters of a stateful set.', {
    partition: f(I32, 'Pods with an ordinal below this keep the old revision.', { proto: 1 }),
    maxUnavailable: f(IOS, 'Pods that may be unavailable during the update.', { proto: 2 }),
  }),
  apps.struct('StatefulSetPersistentVolumeClaimRetentionPolicy', 'Fate of claims made from volumeClaimTemplates.', {
    whenDeleted: f(S, 'Retain or Delete, when the stateful set is deleted.', { proto: 1 }),
    whenScaled: f(S, 'Retain or Delete, when the stateful set scales down.', { proto: 2 }),
  }),
  apps.struct('StatefulSetOrdinals', 'Numbering of stateful set pods.', {
    start: f(I32, 'First ordinal; default 0.', { proto: 1 }),
  }),
  apps.struct('StatefulSetStatus', 'Observed state of a stateful set.', {
    observedGeneration: f(I64, 'The metadata.generation the controller last acted on.', { proto: 1 }),
    replicas: f(I32, 'Pods created.', { required: true, proto: 2 }),
    readyReplicas: f(I32, 'Pods that are ready.', { proto: 3 }),
    currentReplicas: f(I32, 'Pods at currentRevision.', { proto: 4 }),
    updatedReplicas: f(I32, 'Pods at updateRevision.', { proto: 5 }),
    currentRevision: f(S, 'Revision of the pods before the update.', { proto: 6 }),
    updateRevision: f(S, 'Revision being rolled out.', { proto: 7 }),
    collisionCount: f(I32, 'Counts hash collisions of revision names.', { proto: 9 }),
    conditions: f(list(apps.ref('StatefulSetCondition')), 'Current conditions.', { listType: 'map', listMapKeys: ['type'], patchMergeKey: 'type', patchStrategy: 'merge', proto: 10 }),
    availableReplicas: f(I32, 'Pods ready for at least minReadySeconds.', { proto: 11 }),
  }),
  apps.struct('StatefulSetCondition', 'One condition of a stateful set.', {
    type: f(S, 'Condition type.', { required: true, proto: 1 }),
    status: f(S, 'True, False or Unknown.', { required: true, proto: 2 }),
    lastTransitionTime: f(TIME, 'When the condition last changed from one status to another.', { proto: 3 }),
    reason: f(S, 'Machine-readable, CamelCase reason for the last transition.', { proto: 4 }),
    message: f(S, 'Human-readable details about the last transition.', { proto: 5 }),
  }),
  apps.kind('DaemonSet', 'Runs a copy of a pod on every eligible node.', {
    spec: f(apps.ref('DaemonSetSpec'), 'Desired behaviour.', { proto: 2 }),
    status: f(apps.ref('DaemonSetStatus'), 'Most recently observed state.', { proto: 3 }),
  }),
  apps.struct('DaemonSetSpec', 'Desired behaviour of a daemon set.', {
    selector: f(meta.ref('LabelSelector'), 'Labels of the pods counted; must match the template.', { required: true, proto: 1 }),
    template: f(core.ref('PodTemplateSpec'), 'Template of the pods created.', { required: true, proto: 2 }),
    updateStrategy: f(apps.ref('DaemonSetUpdateStrategy'), 'How pods are replaced when the template changes.', { proto: 3 }),
    minReadySeconds: f(I32, 'Seconds a pod must be ready to count as available.', { proto: 4 }),
    revisionHistoryLimit: f(I32, 'Old revisions kept; default 10.', { proto: 6 }),
  }),
  apps.struct('DaemonSetUpdateStrategy', 'How a daemon set replaces pods.', {
    type: f(S, 'RollingUpdate or OnDelete; default RollingUpdate.', { enum: ['RollingUpdate', 'OnDelete'], proto: 1 }),
    rollingUpdate: f(apps.ref('RollingUpdateDaemonSet'), 'Rolling update parameters.', { proto: 2 }),
  }),
  apps.struct('RollingUpdateDaemonSet', 'Pace of a daemon set rolling update.', {
    maxUnavailable: f(IOS, 'Nodes whose pod may be unavailable during the update; default 1.', { proto: 1 }),
    maxSurge: f(IOS, 'Nodes that may run an old and a new pod at once; default 0.', { proto: 2 }),
  }),
  apps.struct('DaemonSetStatus', 'Observed state of a daemon set.', {
    currentNumberScheduled: f(I32, 'Nodes running the pod that should.', { required: true, proto: 1 }),
    numberMisscheduled: f(I32, 'Nodes running the pod that should not.', { required: true, proto: 2 }),
    desiredNumberScheduled: f(I32, 'Nodes that should run the pod.', { required: true, proto: 3 }),
    numberReady: f(I32, 'Nodes whose pod is ready.', { required: true, proto: 4 }),
    observedGeneration: f(I64, 'The metadata.generation the controller last acted on.', { proto: 5 }),
    updatedNumberScheduled: f(I32, 'Nodes running the current pod template.', { proto: 6 }),
    numberAvailable: f(I32, 'Nodes whose pod has been ready for minReadySeconds.', { proto: 7 }),
    numberUnavailable: f(I32, 'Nodes that should run an available pod but do not.', { proto: 8 }),
    collisionCount: f(I32, 'Counts hash collisions of revision names.', { proto: 9 }),
    conditions: f(list(apps.ref('DaemonSetCondition')), 'Current conditions.', { listType: 'map', listMapKeys: ['type'], patchMergeKey: 'type', patchStrategy: 'merge', proto: 10 }),
  }),
  apps.struct('DaemonSetCondition', 'One condition of a daemon set.', {
    type: f(S, 'Condition type.', { required: true, proto: 1 }),
    status: f(S, 'True, False or Unknown.', { required: true, proto: 2 }),
    lastTransitionTime: f(TIME, 'When the condition last changed from one status to another.', { proto: 3 }),
    reason: f(S, 'Machine-readable, CamelCase reason for the last transition.', { proto: 4 }),
    message: f(S, 'Human-readable details about the last transition.', { proto: 5 }),
  }),
  apps.kind('ControllerRevision', 'An immutable snapshot of state, kept by controllers for rollback.', {
    data: f(OPAQUE, 'The serialized state.', { proto: 2 }),
    revision: f(I64, 'Revision number.', { required: true, proto: 3 }),
  }),
];
