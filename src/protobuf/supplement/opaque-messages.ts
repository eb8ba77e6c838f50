/**
 * Message shapes for the fields the schema DSL leaves OPAQUE (fields it does not
 * describe), so those fields still travel in Protobuf. Each entry: JSON name,
 * field number, type (`[]T` repeated, `{}T` map with string keys; scalars,
 * well-known names such as `quantity`, or a message's full name).
 * Transcribed from the original's generated.proto and Go types (k8s.io/api and
 * k8s.io/apimachinery v0.32, the release kubectl 1.32 speaks) by a one-off
 * comparison against the schema DSL; keep in step by hand when the DSL grows.
 */
import type { FieldRow } from './rows.ts';

/** Kinds the original has no `<Kind>List` message for (requests and subresources, never listed). */
export const KINDS_WITHOUT_LIST: ReadonlySet<string> = new Set([
  'io.orch.api.authentication.v1.SelfSubjectReview',
  'io.orch.api.authentication.v1.TokenRequest',
  'io.orch.api.authentication.v1.TokenReview',
  'io.orch.api.authorization.v1.LocalSubjectAccessReview',
  'io.orch.api.authorization.v1.SelfSubjectAccessReview',
  'io.orch.api.authorization.v1.SelfSubjectRulesReview',
  'io.orch.api.authorization.v1.SubjectAccessReview',
  'io.orch.api.autoscaling.v1.Scale',
  'io.orch.api.core.v1.Binding',
  'io.orch.api.policy.v1.Eviction',
]);

/** Host struct -> opaque field -> the type the original gives it. */
export const OPAQUE_FIELD_TYPES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'io.orch.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry': {
    fieldsV1: 'fields-v1',
  },
  'io.orch.api.core.v1.NodeSpec': {
    configSource: 'io.orch.api.core.v1.NodeConfigSource',
  },
  'io.orch.api.core.v1.NodeStatus': {
    config: 'io.orch.api.core.v1.NodeConfigStatus',
    runtimeHandlers: '[]io.orch.api.core.v1.NodeRuntimeHandler',
    features: 'io.orch.api.core.v1.NodeFeatures',
  },
  'io.orch.api.core.v1.ContainerStatus': {
    user: 'io.orch.api.core.v1.ContainerUser',
    allocatedResourcesStatus: '[]io.orch.api.core.v1.ResourceStatus',
  },
  'io.orch.api.core.v1.PersistentVolumeSource': {
    gcePersistentDisk: 'io.orch.api.core.v1.GCEPersistentDiskVolumeSource',
    awsElasticBlockStore: 'io.orch.api.core.v1.AWSElasticBlockStoreVolumeSource',
    glusterfs: 'io.orch.api.core.v1.GlusterfsPersistentVolumeSource',
    rbd: 'io.orch.api.core.v1.RBDPersistentVolumeSource',
    iscsi: 'io.orch.api.core.v1.ISCSIPersistentVolumeSource',
    cinder: 'io.orch.api.core.v1.CinderPersistentVolumeSource',
    cephfs: 'io.orch.api.core.v1.CephFSPersistentVolumeSource',
    fc: 'io.orch.api.core.v1.FCVolumeSource',
    flocker: 'io.orch.api.core.v1.FlockerVolumeSource',
    flexVolume: 'io.orch.api.core.v1.FlexPersistentVolumeSource',
    azureFile: 'io.orch.api.core.v1.AzureFilePersistentVolumeSource',
    vsphereVolume: 'io.orch.api.core.v1.VsphereVirtualDiskVolumeSource',
    quobyte: 'io.orch.api.core.v1.QuobyteVolumeSource',
    azureDisk: 'io.orch.api.core.v1.AzureDiskVolumeSource',
    photonPersistentDisk: 'io.orch.api.core.v1.PhotonPersistentDiskVolumeSource',
    portworxVolume: 'io.orch.api.core.v1.PortworxVolumeSource',
    scaleIO: 'io.orch.api.core.v1.ScaleIOPersistentVolumeSource',
    storageos: 'io.orch.api.core.v1.StorageOSPersistentVolumeSource',
  },
  'io.orch.api.core.v1.VolumeSource': {
    gcePersistentDisk: 'io.orch.api.core.v1.GCEPersistentDiskVolumeSource',
    awsElasticBlockStore: 'io.orch.api.core.v1.AWSElasticBlockStoreVolumeSource',
    gitRepo: 'io.orch.api.core.v1.GitRepoVolumeSource',
    iscsi: 'io.orch.api.core.v1.ISCSIVolumeSource',
    glusterfs: 'io.orch.api.core.v1.GlusterfsVolumeSource',
    rbd: 'io.orch.api.core.v1.RBDVolumeSource',
    flexVolume: 'io.orch.api.core.v1.FlexVolumeSource',
    cinder: 'io.orch.api.core.v1.CinderVolumeSource',
    cephfs: 'io.orch.api.core.v1.CephFSVolumeSource',
    flocker: 'io.orch.api.core.v1.FlockerVolumeSource',
    fc: 'io.orch.api.core.v1.FCVolumeSource',
    azureFile: 'io.orch.api.core.v1.AzureFileVolumeSource',
    vsphereVolume: 'io.orch.api.core.v1.VsphereVirtualDiskVolumeSource',
    quobyte: 'io.orch.api.core.v1.QuobyteVolumeSource',
    azureDisk: 'io.orch.api.core.v1.AzureDiskVolumeSource',
    photonPersistentDisk: 'io.orch.api.core.v1.PhotonPersistentDiskVolumeSource',
    portworxVolume: 'io.orch.api.core.v1.PortworxVolumeSource',
    scaleIO: 'io.orch.api.core.v1.ScaleIOVolumeSource',
    storageos: 'io.orch.api.core.v1.StorageOSVolumeSource',
    csi: 'io.orch.api.core.v1.CSIVolumeSource',
    ephemeral: 'io.orch.api.core.v1.EphemeralVolumeSource',
    image: 'io.orch.api.core.v1.ImageVolumeSource',
  },
  'io.orch.api.core.v1.VolumeProjection': {
    clusterTrustBundle: 'io.orch.api.core.v1.ClusterTrustBundleProjection',
  },
  'io.orch.api.admissionregistration.v1.ValidatingAdmissionPolicy': {
    spec: 'io.orch.api.admissionregistration.v1.ValidatingAdmissionPolicySpec',
    status: 'io.orch.api.admissionregistration.v1.ValidatingAdmissionPolicyStatus',
  },
  'io.orch.api.admissionregistration.v1.ValidatingAdmissionPolicyBinding': {
    spec: 'io.orch.api.admissionregistration.v1.ValidatingAdmissionPolicyBindingSpec',
  },
  'io.orch.api.apps.v1.ControllerRevision': {
    data: 'raw-extension',
  },
  'io.orch.api.authorization.v1.ResourceAttributes': {
    fieldSelector: 'io.orch.api.authorization.v1.FieldSelectorAttributes',
    labelSelector: 'io.orch.api.authorization.v1.LabelSelectorAttributes',
  },
  'io.orch.api.autoscaling.v2.HorizontalPodAutoscaler': {
    spec: 'io.orch.api.autoscaling.v2.HorizontalPodAutoscalerSpec',
    status: 'io.orch.api.autoscaling.v2.HorizontalPodAutoscalerStatus',
  },
  'io.orch.api.discovery.v1.EndpointSlice': {
    endpoints: '[]io.orch.api.discovery.v1.Endpoint',
    ports: '[]io.orch.api.discovery.v1.EndpointPort',
  },
  'io.orch.api.flowcontrol.v1.FlowSchema': {
    spec: 'io.orch.api.flowcontrol.v1.FlowSchemaSpec',
    status: 'io.orch.api.flowcontrol.v1.FlowSchemaStatus',
  },
  'io.orch.api.flowcontrol.v1.PriorityLevelConfiguration': {
    spec: 'io.orch.api.flowcontrol.v1.PriorityLevelConfigurationSpec',
    status: 'io.orch.api.flowcontrol.v1.PriorityLevelConfigurationStatus',
  },
  'io.orch.api.networking.v1.Ingress': {
    spec: 'io.orch.api.networking.v1.IngressSpec',
    status: 'io.orch.api.networking.v1.IngressStatus',
  },
  'io.orch.api.networking.v1.IngressClass': {
    spec: 'io.orch.api.networking.v1.IngressClassSpec',
  },
  'io.orch.api.networking.v1.NetworkPolicy': {
    spec: 'io.orch.api.networking.v1.NetworkPolicySpec',
  },
  'io.orch.api.node.v1.RuntimeClass': {
    overhead: 'io.orch.api.node.v1.Overhead',
    scheduling: 'io.orch.api.node.v1.Scheduling',
  },
  'io.orch.api.storage.v1.StorageClass': {
    allowedTopologies: '[]io.orch.api.core.v1.TopologySelectorTerm',
  },
  'io.orch.api.storage.v1.VolumeAttachment': {
    spec: 'io.orch.api.storage.v1.VolumeAttachmentSpec',
    status: 'io.orch.api.storage.v1.VolumeAttachmentStatus',
  },
  'io.orch.api.storage.v1.CSIDriver': {
    spec: 'io.orch.api.storage.v1.CSIDriverSpec',
  },
  'io.orch.api.storage.v1.CSINode': {
    spec: 'io.orch.api.storage.v1.CSINodeSpec',
  },
};

/** Messages the DSL does not declare, reached from the fields above. */
export const SUPPLEMENT_MESSAGES: Readonly<Record<string, readonly FieldRow[]>> = {
  'io.orch.api.admissionregistration.v1.AuditAnnotation': [
    ['key', 1, 'string'],
    ['valueExpression', 2, 'string'],
  ],
  'io.orch.api.admissionregistration.v1.ExpressionWarning': [
    ['fieldRef', 2, 'string'],
    ['warning', 3, 'string'],
  ],
  'io.orch.api.admissionregistration.v1.MatchResources': [
    ['namespaceSelector', 1, 'io.orch.apimachinery.pkg.apis.meta.v1.LabelSelector'],
    ['objectSelector', 2, 'io.orch.apimachinery.pkg.apis.meta.v1.LabelSelector'],
    ['resourceRules', 3, '[]io.orch.api.admissionregistration.v1.NamedRuleWithOperations'],
    ['excludeResourceRules', 4, '[]io.orch.api.admissionregistration.v1.NamedRuleWithOperations'],
    ['matchPolicy', 7, 'string'],
  ],
  'io.orch.api.admissionregistration.v1.NamedRuleWithOperations': [
    ['resourceNames', 1, '[]string'],
    ['ruleWithOperations', 2, 'io.orch.api.admissionregistration.v1.RuleWithOperations'],
  ],
  'io.orch.api.admissionregistration.v1.ParamKind': [
    ['apiVersion', 1, 'string'],
    ['kind', 2, 'string'],
  ],
  'io.orch.api.admissionregistration.v1.ParamRef': [
    ['name', 1, 'string'],
    ['namespace', 2, 'string'],
    ['selector', 3, 'io.orch.apimachinery.pkg.apis.meta.v1.LabelSelector'],
    ['parameterNotFoundAction', 4, 'string'],
  ],
  'io.orch.api.admissionregistration.v1.TypeChecking': [
    ['expressionWarnings', 1, '[]io.orch.api.admissionregistration.v1.ExpressionWarning'],
  ],
  'io.orch.api.admissionregistration.v1.ValidatingAdmissionPolicyBindingSpec': [
    ['policyName', 1, 'string'],
    ['paramRef', 2, 'io.orch.api.admissionregistration.v1.ParamRef'],
    ['matchResources', 3, 'io.orch.api.admissionregistration.v1.MatchResources'],
    ['validationActions', 4, '[]string'],
  ],
  'io.orch.api.admissionregistration.v1.ValidatingAdmissionPolicySpec': [
    ['paramKind', 1, 'io.orch.api.admissionregistration.v1.ParamKind'],
    ['matchConstraints', 2, 'io.orch.api.admissionregistration.v1.MatchResources'],
    ['validations', 3, '[]io.orch.api.admissionregistration.v1.Validation'],
    ['failurePolicy', 4, 'string'],
    ['auditAnnotations', 5, '[]io.orch.api.admissionregistration.v1.AuditAnnotation'],
    ['matchConditions', 6, '[]io.orch.api.admissionregistration.v1.MatchCondition'],
    ['variables', 7, '[]io.orch.api.admissionregistration.v1.Variable'],
  ],
  'io.orch.api.admissionregistration.v1.ValidatingAdmissionPolicyStatus': [
    ['observedGeneration', 1, 'int64'],
    ['typeChecking', 2, 'io.orch.api.admissionregistration.v1.TypeChecking'],
    ['conditions', 3, '[]io.orch.apimachinery.pkg.apis.meta.v1.Condition'],
  ],
  'io.orch.api.admissionregistration.v1.Validation': [
    ['expression', 1, 'string'],
    ['message', 2, 'string'],
    ['reason', 3, 'string'],
    ['messageExpression', 4, 'string'],
  ],
  'io.orch.api.admissionregistration.v1.Variable': [
    ['name', 1, 'string'],
    ['expression', 2, 'string'],
  ],
  'io.orch.api.authorization.v1.FieldSelectorAttributes': [
    ['rawSelector', 1, 'string'],
    ['requirements', 2, '[]io.orch.apimachinery.pkg.apis.meta.v1.FieldSelectorRequirement'],
  ],
  'io.orch.api.authorization.v1.LabelSelectorAttributes': [
    ['rawSelector', 1, 'string'],
    ['requirements', 2, '[]io.orch.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement'],
  ],
  'io.orch.api.autoscaling.v2.ContainerResourceMetricSource': [
    ['name', 1, 'string'],
    ['target', 2, 'io.orch.api.autoscaling.v2.MetricTarget'],
    ['container', 3, 'string'],
  ],
  'io.orch.api.autoscaling.v2.ContainerResourceMetricStatus': [
    ['name', 1, 'string'],
    ['current', 2, 'io.orch.api.autoscaling.v2.MetricValueStatus'],
    ['container', 3, 'string'],
  ],
  'io.orch.api.autoscaling.v2.CrossVersionObjectReference': [
    ['kind', 1, 'string'],
    ['name', 2, 'string'],
    ['apiVersion', 3, 'string'],
  ],
  'io.orch.api.autoscaling.v2.ExternalMetricSource': [
    ['metric', 1, 'io.orch.api.autoscaling.v2.MetricIdentifier'],
    ['target', 2, 'io.orch.api.autoscaling.v2.MetricTarget'],
  ],
  'io.orch.api.autoscaling.v2.ExternalMetricStatus': [
    ['metric', 1, 'io.orch.api.autoscaling.v2.MetricIdentifier'],
    ['current', 2, 'io.orch.api.autoscaling.v2.MetricValueStatus'],
  ],
  'io.orch.api.autoscaling.v2.HorizontalPodAutoscalerBehavior': [
    ['scaleUp', 1, 'io.orch.api.autoscaling.v2.HPAScalingRules'],
    ['scaleDown', 2, 'io.orch.api.autoscaling.v2.HPAScalingRules'],
  ],
  'io.orch.api.autoscaling.v2.HorizontalPodAutoscalerCondition': [
    ['type', 1, 'string'],
    ['status', 2, 'string'],
    ['lastTransitionTime', 3, 'time'],
    ['reason', 4, 'string'],
    ['message', 5, 'string'],
  ],
  'io.orch.api.autoscaling.v2.HorizontalPodAutoscalerSpec': [
    ['scaleTargetRef', 1, 'io.orch.api.autoscaling.v2.CrossVersionObjectReference'],
    ['minReplicas', 2, 'int32'],
    ['maxReplicas', 3, 'int32'],
    ['metrics', 4, '[]io.orch.api.autoscaling.v2.MetricSpec'],
    ['behavior', 5, 'io.orch.api.autoscaling.v2.HorizontalPodAutoscalerBehavior'],
  ],
  'io.orch.api.autoscaling.v2.HorizontalPodAutoscalerStatus': [
    ['observedGeneration', 1, 'int64'],
    ['lastScaleTime', 2, 'time'],
    ['currentReplicas', 3, 'int32'],
    ['desiredReplicas', 4, 'int32'],
    ['currentMetrics', 5, '[]io.orch.api.autoscaling.v2.MetricStatus'],
    ['conditions', 6, '[]io.orch.api.autoscaling.v2.HorizontalPodAutoscalerCondition'],
  ],
  'io.orch.api.autoscaling.v2.HPAScalingPolicy': [
    ['type', 1, 'string'],
    ['value', 2, 'int32'],
    ['periodSeconds', 3, 'int32'],
  ],
  'io.orch.api.autoscaling.v2.HPAScalingRules': [
    ['stabilizationWindowSeconds', 3, 'int32'],
    ['selectPolicy', 1, 'string'],
    ['policies', 2, '[]io.orch.api.autoscaling.v2.HPAScalingPolicy'],
  ],
  'io.orch.api.autoscaling.v2.MetricIdentifier': [
    ['name', 1, 'string'],
    ['selector', 2, 'io.orch.apimachinery.pkg.apis.meta.v1.LabelSelector'],
  ],
  'io.orch.api.autoscaling.v2.MetricSpec': [
    ['type', 1, 'string'],
    ['object', 2, 'io.orch.api.autoscaling.v2.ObjectMetricSource'],
    ['pods', 3, 'io.orch.api.autoscaling.v2.PodsMetricSource'],
    ['resource', 4, 'io.orch.api.autoscaling.v2.ResourceMetricSource'],
    ['containerResource', 7, 'io.orch.api.autoscaling.v2.ContainerResourceMetricSource'],
    ['external', 5, 'io.orch.api.autoscaling.v2.ExternalMetricSource'],
  ],
  'io.orch.api.autoscaling.v2.MetricStatus': [
    ['type', 1, 'string'],
    ['object', 2, 'io.orch.api.autoscaling.v2.ObjectMetricStatus'],
    ['pods', 3, 'io.orch.api.autoscaling.v2.PodsMetricStatus'],
    ['resource', 4, 'io.orch.api.autoscaling.v2.ResourceMetricStatus'],
    ['containerResource', 7, 'io.orch.api.autoscaling.v2.ContainerResourceMetricStatus'],
    ['external', 5, 'io.orch.api.autoscaling.v2.ExternalMetricStatus'],
  ],
  'io.orch.api.autoscaling.v2.MetricTarget': [
    ['type', 1, 'string'],
    ['value', 2, 'quantity'],
    ['averageValue', 3, 'quantity'],
    ['averageUtilization', 4, 'int32'],
  ],
  'io.orch.api.autoscaling.v2.MetricValueStatus': [
    ['value', 1, 'quantity'],
    ['averageValue', 2, 'quantity'],
    ['averageUtilization', 3, 'int32'],
  ],
  'io.orch.api.autoscaling.v2.ObjectMetricSource': [
    ['describedObject', 1, 'io.orch.api.autoscaling.v2.CrossVersionObjectReference'],
    ['target', 2, 'io.orch.api.autoscaling.v2.MetricTarget'],
    ['metric', 3, 'io.orch.api.autoscaling.v2.MetricIdentifier'],
  ],
  'io.orch.api.autoscaling.v2.ObjectMetricStatus': [
    ['metric', 1, 'io.orch.api.autoscaling.v2.MetricIdentifier'],
    ['current', 2, 'io.orch.api.autoscaling.v2.MetricValueStatus'],
    ['describedObject', 3, 'io.orch.api.autoscaling.v2.CrossVersionObjectReference'],
  ],
  'io.orch.api.autoscaling.v2.PodsMetricSource': [
    ['metric', 1, 'io.orch.api.autoscaling.v2.MetricIdentifier'],
    ['target', 2, 'io.orch.api.autoscaling.v2.MetricTarget'],
  ],
  'io.orch.api.autoscaling.v2.PodsMetricStatus': [
    ['metric', 1, 'io.orch.api.autoscaling.v2.MetricIdentifier'],
    ['current', 2, 'io.orch.api.autoscaling.v2.MetricValueStatus'],
  ],
  'io.orch.api.autoscaling.v2.ResourceMetricSource': [
    ['name', 1, 'string'],
    ['target', 2, 'io.orch.api.autoscaling.v2.MetricTarget'],
  ],
  'io.orch.api.autoscaling.v2.ResourceMetricStatus': [
    ['name', 1, 'string'],
    ['current', 2, 'io.orch.api.autoscaling.v2.MetricValueStatus'],
  ],
  'io.orch.api.core.v1.AWSElasticBlockStoreVolumeSource': [
    ['volumeID', 1, 'string'],
    ['fsType', 2, 'string'],
    ['partition', 3, 'int32'],
    ['readOnly', 4, 'bool'],
  ],
  'io.orch.api.core.v1.AzureDiskVolumeSource': [
    ['diskName', 1, 'string'],
    ['diskURI', 2, 'string'],
    ['cachingMode', 3, 'string'],
    ['fsType', 4, 'string'],
    ['readOnly', 5, 'bool'],
    ['kind', 6, 'string'],
  ],
  'io.orch.api.core.v1.AzureFilePersistentVolumeSource': [
    ['secretName', 1, 'string'],
    ['shareName', 2, 'string'],
    ['readOnly', 3, 'bool'],
    ['secretNamespace', 4, 'string'],
  ],
  'io.orch.api.core.v1.AzureFileVolumeSource': [
    ['secretName', 1, 'string'],
    ['shareName', 2, 'string'],
    ['readOnly', 3, 'bool'],
  ],
  'io.orch.api.core.v1.CephFSPersistentVolumeSource': [
    ['monitors', 1, '[]string'],
    ['path', 2, 'string'],
    ['user', 3, 'string'],
    ['secretFile', 4, 'string'],
    ['secretRef', 5, 'io.orch.api.core.v1.SecretReference'],
    ['readOnly', 6, 'bool'],
  ],
  'io.orch.api.core.v1.CephFSVolumeSource': [
    ['monitors', 1, '[]string'],
    ['path', 2, 'string'],
    ['user', 3, 'string'],
    ['secretFile', 4, 'string'],
    ['secretRef', 5, 'io.orch.api.core.v1.LocalObjectReference'],
    ['readOnly', 6, 'bool'],
  ],
  'io.orch.api.core.v1.CinderPersistentVolumeSource': [
    ['volumeID', 1, 'string'],
    ['fsType', 2, 'string'],
    ['readOnly', 3, 'bool'],
    ['secretRef', 4, 'io.orch.api.core.v1.SecretReference'],
  ],
  'io.orch.api.core.v1.CinderVolumeSource': [
    ['volumeID', 1, 'string'],
    ['fsType', 2, 'string'],
    ['readOnly', 3, 'bool'],
    ['secretRef', 4, 'io.orch.api.core.v1.LocalObjectReference'],
  ],
  'io.orch.api.core.v1.ClusterTrustBundleProjection': [
    ['name', 1, 'string'],
    ['signerName', 2, 'string'],
    ['labelSelector', 3, 'io.orch.apimachinery.pkg.apis.meta.v1.LabelSelector'],
    ['optional', 5, 'bool'],
    ['path', 4, 'string'],
  ],
  'io.orch.api.core.v1.ConfigMapNodeConfigSource': [
    ['namespace', 1, 'string'],
    ['name', 2, 'string'],
    ['uid', 3, 'string'],
    ['resourceVersion', 4, 'string'],
    ['kubeletConfigKey', 5, 'string'],
  ],
  'io.orch.api.core.v1.ContainerUser': [
    ['linux', 1, 'io.orch.api.core.v1.LinuxContainerUser'],
  ],
  'io.orch.api.core.v1.CSIVolumeSource': [
    ['driver', 1, 'string'],
    ['readOnly', 2, 'bool'],
    ['fsType', 3, 'string'],
    ['volumeAttributes', 4, '{}string'],
    ['nodePublishSecretRef', 5, 'io.orch.api.core.v1.LocalObjectReference'],
  ],
  'io.orch.api.core.v1.EphemeralVolumeSource': [
    ['volumeClaimTemplate', 1, 'io.orch.api.core.v1.PersistentVolumeClaimTemplate'],
  ],
  'io.orch.api.core.v1.FCVolumeSource': [
    ['targetWWNs', 1, '[]string'],
    ['lun', 2, 'int32'],
    ['fsType', 3, 'string'],
    ['readOnly', 4, 'bool'],
    ['wwids', 5, '[]string'],
  ],
  'io.orch.api.core.v1.FlexPersistentVolumeSource': [
    ['driver', 1, 'string'],
    ['fsType', 2, 'string'],
    ['secretRef', 3, 'io.orch.api.core.v1.SecretReference'],
    ['readOnly', 4, 'bool'],
    ['options', 5, '{}string'],
  ],
  'io.orch.api.core.v1.FlexVolumeSource': [
    ['driver', 1, 'string'],
    ['fsType', 2, 'string'],
    ['secretRef', 3, 'io.orch.api.core.v1.LocalObjectReference'],
    ['readOnly', 4, 'bool'],
    ['options', 5, '{}string'],
  ],
  'io.orch.api.core.v1.FlockerVolumeSource': [
    ['datasetName', 1, 'string'],
    ['datasetUUID', 2, 'string'],
  ],
  'io.orch.api.core.v1.GCEPersistentDiskVolumeSource': [
    ['pdName', 1, 'string'],
    ['fsType', 2, 'string'],
    ['partition', 3, 'int32'],
    ['readOnly', 4, 'bool'],
  ],
  'io.orch.api.core.v1.GitRepoVolumeSource': [
    ['repository', 1, 'string'],
    ['revision', 2, 'string'],
    ['directory', 3, 'string'],
  ],
  'io.orch.api.core.v1.GlusterfsPersistentVolumeSource': [
    ['endpoints', 1, 'string'],
    ['path', 2, 'string'],
    ['readOnly', 3, 'bool'],
    ['endpointsNamespace', 4, 'string'],
  ],
  'io.orch.api.core.v1.GlusterfsVolumeSource': [
    ['endpoints', 1, 'string'],
    ['path', 2, 'string'],
    ['readOnly', 3, 'bool'],
  ],
  'io.orch.api.core.v1.ImageVolumeSource': [
    ['reference', 1, 'string'],
    ['pullPolicy', 2, 'string'],
  ],
  'io.orch.api.core.v1.ISCSIPersistentVolumeSource': [
    ['targetPortal', 1, 'string'],
    ['iqn', 2, 'string'],
    ['lun', 3, 'int32'],
    ['iscsiInterface', 4, 'string'],
    ['fsType', 5, 'string'],
    ['readOnly', 6, 'bool'],
    ['portals', 7, '[]string'],
    ['chapAuthDiscovery', 8, 'bool'],
    ['chapAuthSession', 11, 'bool'],
    ['secretRef', 10, 'io.orch.api.core.v1.SecretReference'],
    ['initiatorName', 12, 'string'],
  ],
  'io.orch.api.core.v1.ISCSIVolumeSource': [
    ['targetPortal', 1, 'string'],
    ['iqn', 2, 'string'],
    ['lun', 3, 'int32'],
    ['iscsiInterface', 4, 'string'],
    ['fsType', 5, 'string'],
    ['readOnly', 6, 'bool'],
    ['portals', 7, '[]string'],
    ['chapAuthDiscovery', 8, 'bool'],
    ['chapAuthSession', 11, 'bool'],
    ['secretRef', 10, 'io.orch.api.core.v1.LocalObjectReference'],
    ['initiatorName', 12, 'string'],
  ],
  'io.orch.api.core.v1.LinuxContainerUser': [
    ['uid', 1, 'int64'],
    ['gid', 2, 'int64'],
    ['supplementalGroups', 3, '[]int64'],
  ],
  'io.orch.api.core.v1.NodeConfigSource': [
    ['configMap', 2, 'io.orch.api.core.v1.ConfigMapNodeConfigSource'],
  ],
  'io.orch.api.core.v1.NodeConfigStatus': [
    ['assigned', 1, 'io.orch.api.core.v1.NodeConfigSource'],
    ['active', 2, 'io.orch.api.core.v1.NodeConfigSource'],
    ['lastKnownGood', 3, 'io.orch.api.core.v1.NodeConfigSource'],
    ['error', 4, 'string'],
  ],
  'io.orch.api.core.v1.NodeFeatures': [
    ['supplementalGroupsPolicy', 1, 'bool'],
  ],
  'io.orch.api.core.v1.NodeRuntimeHandler': [
    ['name', 1, 'string'],
    ['features', 2, 'io.orch.api.core.v1.NodeRuntimeHandlerFeatures'],
  ],
  'io.orch.api.core.v1.NodeRuntimeHandlerFeatures': [
    ['recursiveReadOnlyMounts', 1, 'bool'],
    ['userNamespaces', 2, 'bool'],
  ],
  'io.orch.api.core.v1.PersistentVolumeClaimTemplate': [
    ['metadata', 1, 'io.orch.apimachinery.pkg.apis.meta.v1.ObjectMeta'],
    ['spec', 2, 'io.orch.api.core.v1.PersistentVolumeClaimSpec'],
  ],
  'io.orch.api.core.v1.PhotonPersistentDiskVolumeSource': [
    ['pdID', 1, 'string'],
    ['fsType', 2, 'string'],
  ],
  'io.orch.api.core.v1.PortworxVolumeSource': [
    ['volumeID', 1, 'string'],
    ['fsType', 2, 'string'],
    ['readOnly', 3, 'bool'],
  ],
  'io.orch.api.core.v1.QuobyteVolumeSource': [
    ['registry', 1, 'string'],
    ['volume', 2, 'string'],
    ['readOnly', 3, 'bool'],
    ['user', 4, 'string'],
    ['group', 5, 'string'],
    ['tenant', 6, 'string'],
  ],
  'io.orch.api.core.v1.RBDPersistentVolumeSource': [
    ['monitors', 1, '[]string'],
    ['image', 2, 'string'],
    ['fsType', 3, 'string'],
    ['pool', 4, 'string'],
    ['user', 5, 'string'],
    ['keyring', 6, 'string'],
    ['secretRef', 7, 'io.orch.api.core.v1.SecretReference'],
    ['readOnly', 8, 'bool'],
  ],
  'io.orch.api.core.v1.RBDVolumeSource': [
    ['monitors', 1, '[]string'],
    ['image', 2, 'string'],
    ['fsType', 3, 'string'],
    ['pool', 4, 'string'],
    ['user', 5, 'string'],
    ['keyring', 6, 'string'],
    ['secretRef', 7, 'io.orch.api.core.v1.LocalObjectReference'],
    ['readOnly', 8, 'bool'],
  ],
  'io.orch.api.core.v1.ResourceHealth': [
    ['resourceID', 1, 'string'],
    ['health', 2, 'string'],
  ],
  'io.orch.api.core.v1.ResourceStatus': [
    ['name', 1, 'string'],
    ['resources', 2, '[]io.orch.api.core.v1.ResourceHealth'],
  ],
  'io.orch.api.core.v1.ScaleIOPersistentVolumeSource': [
    ['gateway', 1, 'string'],
    ['system', 2, 'string'],
    ['secretRef', 3, 'io.orch.api.core.v1.SecretReference'],
    ['sslEnabled', 4, 'bool'],
    ['protectionDomain', 5, 'string'],
    ['storagePool', 6, 'string'],
    ['storageMode', 7, 'string'],
    ['volumeName', 8, 'string'],
    ['fsType', 9, 'string'],
    ['readOnly', 10, 'bool'],
  ],
  'io.orch.api.core.v1.ScaleIOVolumeSource': [
    ['gateway', 1, 'string'],
    ['system', 2, 'string'],
    ['secretRef', 3, 'io.orch.api.core.v1.LocalObjectReference'],
    ['sslEnabled', 4, 'bool'],
    ['protectionDomain', 5, 'string'],
    ['storagePool', 6, 'string'],
    ['storageMode', 7, 'string'],
    ['volumeName', 8, 'string'],
    ['fsType', 9, 'string'],
    ['readOnly', 10, 'bool'],
  ],
  'io.orch.api.core.v1.StorageOSPersistentVolumeSource': [
    ['volumeName', 1, 'string'],
    ['volumeNamespace', 2, 'string'],
    ['fsType', 3, 'string'],
    ['readOnly', 4, 'bool'],
    ['secretRef', 5, 'io.orch.api.core.v1.ObjectReference'],
  ],
  'io.orch.api.core.v1.StorageOSVolumeSource': [
    ['volumeName', 1, 'string'],
    ['volumeNamespace', 2, 'string'],
    ['fsType', 3, 'string'],
    ['readOnly', 4, 'bool'],
    ['secretRef', 5, 'io.orch.api.core.v1.LocalObjectReference'],
  ],
  'io.orch.api.core.v1.TopologySelectorLabelRequirement': [
    ['key', 1, 'string'],
    ['values', 2, '[]string'],
  ],
  'io.orch.api.core.v1.TopologySelectorTerm': [
    ['matchLabelExpressions', 1, '[]io.orch.api.core.v1.TopologySelectorLabelRequirement'],
  ],
  'io.orch.api.core.v1.VsphereVirtualDiskVolumeSource': [
    ['volumePath', 1, 'string'],
    ['fsType', 2, 'string'],
    ['storagePolicyName', 3, 'string'],
    ['storagePolicyID', 4, 'string'],
  ],
  'io.orch.api.discovery.v1.Endpoint': [
    ['addresses', 1, '[]string'],
    ['conditions', 2, 'io.orch.api.discovery.v1.EndpointConditions'],
    ['hostname', 3, 'string'],
    ['targetRef', 4, 'io.orch.api.core.v1.ObjectReference'],
    ['deprecatedTopology', 5, '{}string'],
    ['nodeName', 6, 'string'],
    ['zone', 7, 'string'],
    ['hints', 8, 'io.orch.api.discovery.v1.EndpointHints'],
  ],
  'io.orch.api.discovery.v1.EndpointConditions': [
    ['ready', 1, 'bool'],
    ['serving', 2, 'bool'],
    ['terminating', 3, 'bool'],
  ],
  'io.orch.api.discovery.v1.EndpointHints': [
    ['forZones', 1, '[]io.orch.api.discovery.v1.ForZone'],
  ],
  'io.orch.api.discovery.v1.EndpointPort': [
    ['name', 1, 'string'],
    ['protocol', 2, 'string'],
    ['port', 3, 'int32'],
    ['appProtocol', 4, 'string'],
  ],
  'io.orch.api.discovery.v1.ForZone': [
    ['name', 1, 'string'],
  ],
  'io.orch.api.flowcontrol.v1.ExemptPriorityLevelConfiguration': [
    ['nominalConcurrencyShares', 1, 'int32'],
    ['lendablePercent', 2, 'int32'],
  ],
  'io.orch.api.flowcontrol.v1.FlowDistinguisherMethod': [
    ['type', 1, 'string'],
  ],
  'io.orch.api.flowcontrol.v1.FlowSchemaCondition': [
    ['type', 1, 'string'],
    ['status', 2, 'string'],
    ['lastTransitionTime', 3, 'time'],
    ['reason', 4, 'string'],
    ['message', 5, 'string'],
  ],
  'io.orch.api.flowcontrol.v1.FlowSchemaSpec': [
    ['priorityLevelConfiguration', 1, 'io.orch.api.flowcontrol.v1.PriorityLevelConfigurationReference'],
    ['matchingPrecedence', 2, 'int32'],
    ['distinguisherMethod', 3, 'io.orch.api.flowcontrol.v1.FlowDistinguisherMethod'],
    ['rules', 4, '[]io.orch.api.flowcontrol.v1.PolicyRulesWithSubjects'],
  ],
  'io.orch.api.flowcontrol.v1.FlowSchemaStatus': [
    ['conditions', 1, '[]io.orch.api.flowcontrol.v1.FlowSchemaCondition'],
  ],
  'io.orch.api.flowcontrol.v1.GroupSubject': [
    ['name', 1, 'string'],
  ],
  'io.orch.api.flowcontrol.v1.LimitedPriorityLevelConfiguration': [
    ['nominalConcurrencyShares', 1, 'int32'],
    ['limitResponse', 2, 'io.orch.api.flowcontrol.v1.LimitResponse'],
    ['lendablePercent', 3, 'int32'],
    ['borrowingLimitPercent', 4, 'int32'],
  ],
  'io.orch.api.flowcontrol.v1.LimitResponse': [
    ['type', 1, 'string'],
    ['queuing', 2, 'io.orch.api.flowcontrol.v1.QueuingConfiguration'],
  ],
  'io.orch.api.flowcontrol.v1.NonResourcePolicyRule': [
    ['verbs', 1, '[]string'],
    ['nonResourceURLs', 6, '[]string'],
  ],
  'io.orch.api.flowcontrol.v1.PolicyRulesWithSubjects': [
    ['subjects', 1, '[]io.orch.api.flowcontrol.v1.Subject'],
    ['resourceRules', 2, '[]io.orch.api.flowcontrol.v1.ResourcePolicyRule'],
    ['nonResourceRules', 3, '[]io.orch.api.flowcontrol.v1.NonResourcePolicyRule'],
  ],
  'io.orch.api.flowcontrol.v1.PriorityLevelConfigurationCondition': [
    ['type', 1, 'string'],
    ['status', 2, 'string'],
    ['lastTransitionTime', 3, 'time'],
    ['reason', 4, 'string'],
    ['message', 5, 'string'],
  ],
  'io.orch.api.flowcontrol.v1.PriorityLevelConfigurationReference': [
    ['name', 1, 'string'],
  ],
  'io.orch.api.flowcontrol.v1.PriorityLevelConfigurationSpec': [
    ['type', 1, 'string'],
    ['limited', 2, 'io.orch.api.flowcontrol.v1.LimitedPriorityLevelConfiguration'],
    ['exempt', 3, 'io.orch.api.flowcontrol.v1.ExemptPriorityLevelConfiguration'],
  ],
  'io.orch.api.flowcontrol.v1.PriorityLevelConfigurationStatus': [
    ['conditions', 1, '[]io.orch.api.flowcontrol.v1.PriorityLevelConfigurationCondition'],
  ],
  'io.orch.api.flowcontrol.v1.QueuingConfiguration': [
    ['queues', 1, 'int32'],
    ['handSize', 2, 'int32'],
    ['queueLengthLimit', 3, 'int32'],
  ],
  'io.orch.api.flowcontrol.v1.ResourcePolicyRule': [
    ['verbs', 1, '[]string'],
    ['apiGroups', 2, '[]string'],
    ['resources', 3, '[]string'],
    ['clusterScope', 4, 'bool'],
    ['namespaces', 5, '[]string'],
  ],
  'io.orch.api.flowcontrol.v1.ServiceAccountSubject': [
    ['namespace', 1, 'string'],
    ['name', 2, 'string'],
  ],
  'io.orch.api.flowcontrol.v1.Subject': [
    ['kind', 1, 'string'],
    ['user', 2, 'io.orch.api.flowcontrol.v1.UserSubject'],
    ['group', 3, 'io.orch.api.flowcontrol.v1.GroupSubject'],
    ['serviceAccount', 4, 'io.orch.api.flowcontrol.v1.ServiceAccountSubject'],
  ],
  'io.orch.api.flowcontrol.v1.UserSubject': [
    ['name', 1, 'string'],
  ],
  'io.orch.api.networking.v1.HTTPIngressPath': [
    ['path', 1, 'string'],
    ['pathType', 3, 'string'],
    ['backend', 2, 'io.orch.api.networking.v1.IngressBackend'],
  ],
  'io.orch.api.networking.v1.HTTPIngressRuleValue': [
    ['paths', 1, '[]io.orch.api.networking.v1.HTTPIngressPath'],
  ],
  'io.orch.api.networking.v1.IngressBackend': [
    ['service', 4, 'io.orch.api.networking.v1.IngressServiceBackend'],
    ['resource', 3, 'io.orch.api.core.v1.TypedLocalObjectReference'],
  ],
  'io.orch.api.networking.v1.IngressClassParametersReference': [
    ['apiGroup', 1, 'string'],
    ['kind', 2, 'string'],
    ['name', 3, 'string'],
    ['scope', 4, 'string'],
    ['namespace', 5, 'string'],
  ],
  'io.orch.api.networking.v1.IngressClassSpec': [
    ['controller', 1, 'string'],
    ['parameters', 2, 'io.orch.api.networking.v1.IngressClassParametersReference'],
  ],
  'io.orch.api.networking.v1.IngressLoadBalancerIngress': [
    ['ip', 1, 'string'],
    ['hostname', 2, 'string'],
    ['ports', 4, '[]io.orch.api.networking.v1.IngressPortStatus'],
  ],
  'io.orch.api.networking.v1.IngressLoadBalancerStatus': [
    ['ingress', 1, '[]io.orch.api.networking.v1.IngressLoadBalancerIngress'],
  ],
  'io.orch.api.networking.v1.IngressPortStatus': [
    ['port', 1, 'int32'],
    ['protocol', 2, 'string'],
    ['error', 3, 'string'],
  ],
  'io.orch.api.networking.v1.IngressRule': [
    ['host', 1, 'string'],
    ['ingressRuleValue', 2, 'io.orch.api.networking.v1.IngressRuleValue'],
  ],
  'io.orch.api.networking.v1.IngressRuleValue': [
    ['http', 1, 'io.orch.api.networking.v1.HTTPIngressRuleValue'],
  ],
  'io.orch.api.networking.v1.IngressServiceBackend': [
    ['name', 1, 'string'],
    ['port', 2, 'io.orch.api.networking.v1.ServiceBackendPort'],
  ],
  'io.orch.api.networking.v1.IngressSpec': [
    ['ingressClassName', 4, 'string'],
    ['defaultBackend', 1, 'io.orch.api.networking.v1.IngressBackend'],
    ['tls', 2, '[]io.orch.api.networking.v1.IngressTLS'],
    ['rules', 3, '[]io.orch.api.networking.v1.IngressRule'],
  ],
  'io.orch.api.networking.v1.IngressStatus': [
    ['loadBalancer', 1, 'io.orch.api.networking.v1.IngressLoadBalancerStatus'],
  ],
  'io.orch.api.networking.v1.IngressTLS': [
    ['hosts', 1, '[]string'],
    ['secretName', 2, 'string'],
  ],
  'io.orch.api.networking.v1.IPBlock': [
    ['cidr', 1, 'string'],
    ['except', 2, '[]string'],
  ],
  'io.orch.api.networking.v1.NetworkPolicyEgressRule': [
    ['ports', 1, '[]io.orch.api.networking.v1.NetworkPolicyPort'],
    ['to', 2, '[]io.orch.api.networking.v1.NetworkPolicyPeer'],
  ],
  'io.orch.api.networking.v1.NetworkPolicyIngressRule': [
    ['ports', 1, '[]io.orch.api.networking.v1.NetworkPolicyPort'],
    ['from', 2, '[]io.orch.api.networking.v1.NetworkPolicyPeer'],
  ],
  'io.orch.api.networking.v1.NetworkPolicyPeer': [
    ['podSelector', 1, 'io.orch.apimachinery.pkg.apis.meta.v1.LabelSelector'],
    ['namespaceSelector', 2, 'io.orch.apimachinery.pkg.apis.meta.v1.LabelSelector'],
    ['ipBlock', 3, 'io.orch.api.networking.v1.IPBlock'],
  ],
  'io.orch.api.networking.v1.NetworkPolicyPort': [
    ['protocol', 1, 'string'],
    ['port', 2, 'int-or-string'],
    ['endPort', 3, 'int32'],
  ],
  'io.orch.api.networking.v1.NetworkPolicySpec': [
    ['podSelector', 1, 'io.orch.apimachinery.pkg.apis.meta.v1.LabelSelector'],
    ['ingress', 2, '[]io.orch.api.networking.v1.NetworkPolicyIngressRule'],
    ['egress', 3, '[]io.orch.api.networking.v1.NetworkPolicyEgressRule'],
    ['policyTypes', 4, '[]string'],
  ],
  'io.orch.api.networking.v1.ServiceBackendPort': [
    ['name', 1, 'string'],
    ['number', 2, 'int32'],
  ],
  'io.orch.api.node.v1.Overhead': [
    ['podFixed', 1, '{}quantity'],
  ],
  'io.orch.api.node.v1.Scheduling': [
    ['nodeSelector', 1, '{}string'],
    ['tolerations', 2, '[]io.orch.api.core.v1.Toleration'],
  ],
  'io.orch.api.storage.v1.CSIDriverSpec': [
    ['attachRequired', 1, 'bool'],
    ['podInfoOnMount', 2, 'bool'],
    ['volumeLifecycleModes', 3, '[]string'],
    ['storageCapacity', 4, 'bool'],
    ['fsGroupPolicy', 5, 'string'],
    ['tokenRequests', 6, '[]io.orch.api.storage.v1.TokenRequest'],
    ['requiresRepublish', 7, 'bool'],
    ['seLinuxMount', 8, 'bool'],
  ],
  'io.orch.api.storage.v1.CSINodeDriver': [
    ['name', 1, 'string'],
    ['nodeID', 2, 'string'],
    ['topologyKeys', 3, '[]string'],
    ['allocatable', 4, 'io.orch.api.storage.v1.VolumeNodeResources'],
  ],
  'io.orch.api.storage.v1.CSINodeSpec': [
    ['drivers', 1, '[]io.orch.api.storage.v1.CSINodeDriver'],
  ],
  'io.orch.api.storage.v1.TokenRequest': [
    ['audience', 1, 'string'],
    ['expirationSeconds', 2, 'int64'],
  ],
  'io.orch.api.storage.v1.VolumeAttachmentSource': [
    ['persistentVolumeName', 1, 'string'],
    ['inlineVolumeSpec', 2, 'io.orch.api.core.v1.PersistentVolumeSpec'],
  ],
  'io.orch.api.storage.v1.VolumeAttachmentSpec': [
    ['attacher', 1, 'string'],
    ['source', 2, 'io.orch.api.storage.v1.VolumeAttachmentSource'],
    ['nodeName', 3, 'string'],
  ],
  'io.orch.api.storage.v1.VolumeAttachmentStatus': [
    ['attached', 1, 'bool'],
    ['attachmentMetadata', 2, '{}string'],
    ['attachError', 3, 'io.orch.api.storage.v1.VolumeError'],
    ['detachError', 4, 'io.orch.api.storage.v1.VolumeError'],
  ],
  'io.orch.api.storage.v1.VolumeError': [
    ['time', 1, 'time'],
    ['message', 2, 'string'],
  ],
  'io.orch.api.storage.v1.VolumeNodeResources': [
    ['count', 1, 'int32'],
  ],
  'io.orch.apimachinery.pkg.apis.meta.v1.FieldSelectorRequirement': [
    ['key', 1, 'string'],
    ['operator', 2, 'string'],
    ['values', 3, '[]string'],
  ],
};
