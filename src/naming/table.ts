/**
 * Every product-bound name the server uses or accepts, per flavor. This file
 * is the only place in src/ that spells the spec's product names (a test
 * greps for strays); everything else reads them from `names` (index.ts).
 *
 * The kubernetes column is the original's spelling, which mixes two domains:
 * API groups and a few annotations use `k8s.io`, labels, annotations, secret
 * types and signers mostly `kubernetes.io` (k8s.io/api well_known_labels.go,
 * core/v1 types.go, certificates/v1 types.go).
 */
import type { ApiFlavor } from './flavor.ts';

export interface NamingTable {
  readonly flavor: ApiFlavor;
  /** Suffix of every non-legacy API group: `rbac.authorization.<suffix>`. */
  readonly apiGroupSuffix: string;
  /** Domain of labels, annotations, secret types and signers (`<domain>/tls`). */
  readonly domain: string;
  /** The meta group: Tables, PartialObjectMetadata and options kinds. */
  readonly metaGroup: string;
  /** Meta groups a client may ask for Tables in (ours first; the original's is always accepted). */
  readonly acceptedMetaGroups: readonly string[];
  /** This flavor's Protobuf media type. */
  readonly protobufMediaType: string;
  /** Prefix of OpenAPI vendor extensions this flavor writes first. */
  readonly openApiExtensionPrefix: string;
  /** Every spelling of the vendor extensions written (ours last is read first). */
  readonly openApiExtensionPrefixes: readonly string[];
  /** After `v1.32.0` in /version's gitVersion (a semver pre-release tag, or nothing). */
  readonly gitVersionSuffix: string;
  /** Title of the OpenAPI documents. */
  readonly openApiTitle: string;
  /** Prefix of OpenAPI definition names (`<prefix>.api.core.v1.Pod`). */
  readonly schemaPrefix: string;
  readonly systemNamespace: string;
  readonly publicNamespace: string;
  readonly nodeLeaseNamespace: string;
  /** The namespace finalizer the namespace controller removes. */
  readonly namespaceFinalizer: string;
  /** The field manager of the API server's own writes. */
  readonly apiServerFieldManager: string;
  /** Each API server's identity Lease in the system namespace (the original's APIServerIdentity). */
  readonly identityLease: {
    /** Lease name: `<prefix><hash>`. */
    readonly namePrefix: string;
    /** Label marking identity leases; its value is {@link identityLease.labelValue}. */
    readonly label: string;
    readonly labelValue: string;
    /** Annotation with the server's `<address>:<port>`, read by the lease endpoint reconciler. */
    readonly endpointAnnotation: string;
  };
  /** The cluster's name in generated kubeconfigs. */
  readonly clusterName: string;
  /** First label of the in-cluster DNS names on the generated serving certificate (`<host>.default.svc`). */
  readonly inClusterHost: string;
  /** The in-cluster Service of the API server, in `default`. */
  readonly apiServiceName: string;
  /** Config map in every namespace with the cluster's CA bundle. */
  readonly rootCaConfigMap: string;
  /** Key of the kubeconfig in the cluster-info config map (and its `jws-<key>-` signatures). */
  readonly clusterInfoKey: string;
  /** What keys the cluster-info JWS: the full token `<id>.<secret>` (spec 2.7) or its secret alone (the original's code). */
  readonly clusterInfoJwsKey: 'token' | 'token-secret';
  /** The exec credential plugin's environment variable. */
  readonly execInfoEnv: string;
  /** Response headers naming the FlowSchema and priority level that classified a request (the original's X-Kubernetes-PF-*-UID). */
  readonly apfHeaders: { readonly flowSchemaUid: string; readonly priorityLevelUid: string };
  /** Annotation on the last bookmark of a watch's initial events. */
  readonly initialEventsEndAnnotation: string;
  /** Initial-events annotations a Table stream recognises (ours and the original's). */
  readonly initialEventsEndAnnotations: readonly string[];
  readonly signers: {
    readonly apiServerClient: string;
    readonly apiServerClientNodeAgent: string;
    readonly nodeAgentServing: string;
    readonly legacyUnknown: string;
  };
  readonly secretTypes: {
    readonly serviceAccountToken: string;
    readonly dockercfg: string;
    readonly dockerConfigJson: string;
    readonly basicAuth: string;
    readonly sshAuth: string;
    readonly tls: string;
    readonly bootstrapToken: string;
  };
  readonly labels: {
    /** EndpointSlice -> its Service. */
    readonly serviceName: string;
    /** EndpointSlice topology: the node's hostname. */
    readonly hostname: string;
    /** EndpointSlice v1beta1 topology key of the zone (v1's `zone` field). */
    readonly topologyZone: string;
    /**
     * The label key of the selectors that keep policy/v1beta1's "empty selector
     * selects nothing" across versions (`Exists`: none, `DoesNotExist`: all).
     */
    readonly pdbV1beta1EmptySelectorMatch: string;
    readonly jobName: string;
    readonly jobControllerUid: string;
    /** Node role labels: `<prefix><role>` (ours and the original's, both read). */
    readonly nodeRolePrefixes: readonly string[];
    /** Node role label whose value is the role (ours and the original's). */
    readonly nodeRoleLabels: readonly string[];
  };
  readonly annotations: {
    readonly serviceAccountName: string;
    /** The account's UID on a legacy token secret (set by the token controller). */
    readonly serviceAccountUid: string;
    /** Free text on objects the server keeps (the root CA config map). */
    readonly description: string;
    /** Marks a static pod's mirror (the node agent's). */
    readonly mirrorPod: string;
    /** StorageClass default markers (GA and beta, ours and the original's). */
    readonly defaultStorageClass: readonly string[];
    /** PVC/PV beta storage class annotations (ours and the original's). */
    readonly betaStorageClass: readonly string[];
    /** Audit annotation of a request to a deprecated API version (`true`). */
    readonly deprecatedApi: string;
    /** Audit annotation with the release a requested deprecated API is removed in (`1.25`). */
    readonly removedRelease: string;
    /**
     * Where autoscaling/v1 HorizontalPodAutoscalers keep what v1 cannot say
     * (metrics, current metrics, conditions, behavior), so they round-trip to v2.
     */
    readonly hpaV1: { readonly metrics: string; readonly currentMetrics: string; readonly conditions: string; readonly behavior: string };
    /**
     * On the priority-and-fairness bootstrap FlowSchemas and PriorityLevelConfigurations: `"true"` lets the
     * server keep the spec as it ships it, `"false"` leaves an edited suggested object alone (the original's
     * `apf.kubernetes.io/autoupdate-spec`).
     */
    readonly apfAutoUpdateSpec: string;
  };
  /** Resource names in this namespace are native (not extended) resources. */
  readonly nativeResourcePrefix: string;
  /** Names the storage, ingress, node and event admission plugins read or write (src/admission/plugins/). */
  readonly admissionNames: {
    /** StorageObjectInUseProtection's finalizers. */
    readonly pvcProtectionFinalizer: string;
    readonly pvProtectionFinalizer: string;
    /** IngressClass default markers (ours and the original's). */
    readonly defaultIngressClass: readonly string[];
    /** The legacy Ingress class annotation (ours and the original's). */
    readonly ingressClass: readonly string[];
    /** NodeRestriction: label domains (and their subdomains) no node may set (`node-restriction.<domain>`). */
    readonly nodeRestrictionLabelDomains: readonly string[];
    /** NodeRestriction: the product's label domains (and subdomains); a node may set only its agent's labels in them. */
    readonly reservedLabelDomains: readonly string[];
    /** NodeRestriction: the node agent's own labels under the reserved domains. */
    readonly nodeAgentLabels: readonly string[];
    /** NodeRestriction: domains (and subdomains) under which a node may set any label. */
    readonly nodeAgentLabelDomains: readonly string[];
    /** Groups of the admission configuration file's `AdmissionConfiguration` (ours and the original's). */
    readonly admissionConfigGroups: readonly string[];
    /** Groups of the EventRateLimit `Configuration` (ours and the original's). */
    readonly eventRateLimitConfigGroups: readonly string[];
  };
  /** Pod Security admission (the original's k8s.io/pod-security-admission). */
  readonly podSecurity: {
    /** Prefix of the namespace labels (`<prefix>enforce`, `<prefix>warn-version`...) and of its audit annotations (`<prefix>audit-violations`). */
    readonly prefix: string;
    /** Prefixes of the per-container AppArmor annotations the baseline level limits (ours and the original's). */
    readonly appArmorContainerPrefixes: readonly string[];
    /** The pod's seccomp annotation (pre-1.19 policy versions; ours and the original's). */
    readonly seccompPodAnnotations: readonly string[];
    /** Prefixes of the per-container seccomp annotations (ours and the original's). */
    readonly seccompContainerPrefixes: readonly string[];
    /** Groups of the `PodSecurityConfiguration` kind in the admission configuration file (ours first, then the original's). */
    readonly configGroups: readonly string[];
  };
  /** Service-account tokens: claim names, issuers and user extras (the original's pkg/serviceaccount). */
  readonly serviceAccountTokens: {
    /** `--service-account-issuer` when none is given (what kubeadm sets in the original). */
    readonly defaultIssuer: string;
    /** `iss` of legacy secret-based tokens. */
    readonly legacyIssuer: string;
    /** Prefix of the legacy tokens' private claims (`<prefix>namespace`, `<prefix>secret.name`, ...). */
    readonly legacyClaimPrefix: string;
    /** The bound tokens' private claim (`{namespace, serviceaccount, pod, secret, warnafter}`). */
    readonly privateClaim: string;
    /** User extras of a pod-bound token. */
    readonly podNameExtra: string;
    readonly podUidExtra: string;
  };
  /** Names the pod admission plugins read or write (the original's plugin/pkg/admission). */
  readonly podAdmission: {
    /** ServiceAccount annotation: `true` limits a pod's secrets to the account's (`<domain>/enforce-mountable-secrets`). */
    readonly enforceMountableSecrets: string;
    /** Where the ServiceAccount plugin mounts the token volume in every container. */
    readonly tokenMountPath: string;
    /** Prefix of the projected token volume's name (`<prefix>-<5 random>`). */
    readonly tokenVolumePrefix: string;
    /** The node-condition taints (TaintNodesByCondition, DefaultTolerationSeconds). */
    readonly notReadyTaint: string;
    readonly unreachableTaint: string;
    readonly memoryPressureTaint: string;
    /** PodNodeSelector's namespace annotation. */
    readonly nodeSelectorAnnotation: string;
    /** PodTolerationRestriction's namespace annotations. */
    readonly defaultTolerationsAnnotation: string;
    readonly tolerationsWhitelistAnnotation: string;
  };
}

const KUBE_DOMAIN = 'kubernetes.io';
const ORCH_DOMAIN = 'orch.io';

/** The node agent's own labels in one domain (the original's kubelet/pkg/apis well_known_labels.go). */
function nodeAgentLabels(d: string): string[] {
  return [
    `${d}/hostname`,
    `topology.${d}/zone`,
    `topology.${d}/region`,
    `failure-domain.beta.${d}/zone`,
    `failure-domain.beta.${d}/region`,
    `beta.${d}/instance-type`,
    `node.${d}/instance-type`,
    `${d}/os`,
    `${d}/arch`,
    `beta.${d}/os`,
    `beta.${d}/arch`,
  ];
}

const ORCH: NamingTable = {
  flavor: 'orch',
  apiGroupSuffix: 'orch.io',
  domain: 'orch.io',
  metaGroup: 'meta.orch.io',
  acceptedMetaGroups: ['meta.orch.io', 'meta.k8s.io'],
  protobufMediaType: 'application/vnd.orch.protobuf',
  openApiExtensionPrefix: 'x-orch-',
  openApiExtensionPrefixes: ['x-kubernetes-', 'x-orch-'],
  gitVersionSuffix: '-orch',
  openApiTitle: 'Orch',
  schemaPrefix: 'io.orch',
  systemNamespace: 'orch-system',
  publicNamespace: 'orch-public',
  nodeLeaseNamespace: 'orch-node-lease',
  namespaceFinalizer: 'orch',
  apiServerFieldManager: 'orch-apiserver',
  identityLease: { namePrefix: 'orch-apiserver-', label: 'apiserver.orch.io/identity', labelValue: 'orch-apiserver', endpointAnnotation: 'apiserver.orch.io/endpoint' },
  clusterName: 'orch',
  inClusterHost: 'orch',
  apiServiceName: 'kubernetes',
  rootCaConfigMap: 'orch-root-ca.crt',
  clusterInfoKey: 'orchconfig',
  clusterInfoJwsKey: 'token',
  execInfoEnv: 'ORCH_EXEC_INFO',
  apfHeaders: { flowSchemaUid: 'X-Orch-PF-FlowSchema-UID', priorityLevelUid: 'X-Orch-PF-PriorityLevel-UID' },
  initialEventsEndAnnotation: 'orch.io/initial-events-end',
  initialEventsEndAnnotations: ['orch.io/initial-events-end', 'k8s.io/initial-events-end'],
  signers: {
    apiServerClient: 'orch.io/orch-apiserver-client',
    apiServerClientNodeAgent: 'orch.io/orch-apiserver-client-orchlet',
    nodeAgentServing: 'orch.io/orchlet-serving',
    legacyUnknown: 'orch.io/legacy-unknown',
  },
  secretTypes: {
    serviceAccountToken: 'orch.io/service-account-token',
    dockercfg: 'orch.io/dockercfg',
    dockerConfigJson: 'orch.io/dockerconfigjson',
    basicAuth: 'orch.io/basic-auth',
    sshAuth: 'orch.io/ssh-auth',
    tls: 'orch.io/tls',
    bootstrapToken: 'bootstrap.orch.io/token',
  },
  labels: {
    serviceName: 'orch.io/service-name',
    hostname: 'orch.io/hostname',
    topologyZone: 'topology.orch.io/zone',
    pdbV1beta1EmptySelectorMatch: 'pdb.orch.io/deprecated-v1beta1-empty-selector-match',
    jobName: 'batch.orch.io/job-name',
    jobControllerUid: 'batch.orch.io/controller-uid',
    nodeRolePrefixes: ['node-role.orch.io/', `node-role.${KUBE_DOMAIN}/`],
    nodeRoleLabels: ['orch.io/role', `${KUBE_DOMAIN}/role`],
  },
  annotations: {
    serviceAccountName: 'orch.io/service-account.name',
    serviceAccountUid: 'orch.io/service-account.uid',
    description: 'orch.io/description',
    // The original's spelling, as pods/ephemeralcontainers was built with it; the spec names no other.
    mirrorPod: `${KUBE_DOMAIN}/config.mirror`,
    defaultStorageClass: [
      'storageclass.orch.io/is-default-class',
      'storageclass.beta.orch.io/is-default-class',
      `storageclass.${KUBE_DOMAIN}/is-default-class`,
      `storageclass.beta.${KUBE_DOMAIN}/is-default-class`,
    ],
    betaStorageClass: ['volume.beta.orch.io/storage-class', `volume.beta.${KUBE_DOMAIN}/storage-class`],
    deprecatedApi: 'orch.io/deprecated',
    removedRelease: 'orch.io/removed-release',
    hpaV1: {
      metrics: 'autoscaling.alpha.orch.io/metrics',
      currentMetrics: 'autoscaling.alpha.orch.io/current-metrics',
      conditions: 'autoscaling.alpha.orch.io/conditions',
      behavior: 'autoscaling.alpha.orch.io/behavior',
    },
    apfAutoUpdateSpec: `apf.${ORCH_DOMAIN}/autoupdate-spec`,
  },
  podSecurity: {
    prefix: 'pod-security.orch.io/',
    // The node agent may honour either spelling, so the baseline checks read both.
    appArmorContainerPrefixes: ['container.apparmor.security.beta.orch.io/', `container.apparmor.security.beta.${KUBE_DOMAIN}/`],
    seccompPodAnnotations: ['seccomp.security.alpha.orch.io/pod', `seccomp.security.alpha.${KUBE_DOMAIN}/pod`],
    seccompContainerPrefixes: ['container.seccomp.security.alpha.orch.io/', `container.seccomp.security.alpha.${KUBE_DOMAIN}/`],
    configGroups: ['pod-security.admission.config.orch.io', 'pod-security.admission.config.k8s.io'],
  },
  nativeResourcePrefix: 'orch.io/',
  admissionNames: {
    pvcProtectionFinalizer: 'orch.io/pvc-protection',
    pvProtectionFinalizer: 'orch.io/pv-protection',
    defaultIngressClass: ['ingressclass.orch.io/is-default-class', `ingressclass.${KUBE_DOMAIN}/is-default-class`],
    ingressClass: ['orch.io/ingress.class', `${KUBE_DOMAIN}/ingress.class`],
    // The original's spellings too: a node must not set them here either.
    nodeRestrictionLabelDomains: ['node-restriction.orch.io', `node-restriction.${KUBE_DOMAIN}`],
    reservedLabelDomains: ['orch.io', KUBE_DOMAIN, 'k8s.io'],
    nodeAgentLabels: [...nodeAgentLabels('orch.io'), ...nodeAgentLabels(KUBE_DOMAIN)],
    nodeAgentLabelDomains: ['kubelet.orch.io', 'node.orch.io', `kubelet.${KUBE_DOMAIN}`, `node.${KUBE_DOMAIN}`],
    admissionConfigGroups: ['apiserver.config.orch.io', 'apiserver.config.k8s.io'],
    eventRateLimitConfigGroups: ['eventratelimit.admission.orch.io', 'eventratelimit.admission.k8s.io'],
  },
  serviceAccountTokens: {
    defaultIssuer: 'https://orch.default.svc.cluster.local',
    legacyIssuer: 'orch/serviceaccount',
    legacyClaimPrefix: 'orch.io/serviceaccount/',
    privateClaim: 'orch.io',
    podNameExtra: 'authentication.orch.io/pod-name',
    podUidExtra: 'authentication.orch.io/pod-uid',
  },
  podAdmission: {
    enforceMountableSecrets: `${ORCH_DOMAIN}/enforce-mountable-secrets`,
    tokenMountPath: `/var/run/secrets/${ORCH_DOMAIN}/serviceaccount`,
    tokenVolumePrefix: 'orch-api-access',
    notReadyTaint: `node.${ORCH_DOMAIN}/not-ready`,
    unreachableTaint: `node.${ORCH_DOMAIN}/unreachable`,
    memoryPressureTaint: `node.${ORCH_DOMAIN}/memory-pressure`,
    nodeSelectorAnnotation: `scheduler.alpha.${ORCH_DOMAIN}/node-selector`,
    defaultTolerationsAnnotation: `scheduler.alpha.${ORCH_DOMAIN}/defaultTolerations`,
    tolerationsWhitelistAnnotation: `scheduler.alpha.${ORCH_DOMAIN}/tolerationsWhitelist`,
  },
};

const KUBERNETES: NamingTable = {
  flavor: 'kubernetes',
  apiGroupSuffix: 'k8s.io',
  domain: KUBE_DOMAIN,
  metaGroup: 'meta.k8s.io',
  acceptedMetaGroups: ['meta.k8s.io'],
  protobufMediaType: 'application/vnd.kubernetes.protobuf',
  openApiExtensionPrefix: 'x-kubernetes-',
  openApiExtensionPrefixes: ['x-kubernetes-'],
  gitVersionSuffix: '',
  openApiTitle: 'Kubernetes',
  schemaPrefix: 'io.k8s',
  systemNamespace: 'kube-system',
  publicNamespace: 'kube-public',
  nodeLeaseNamespace: 'kube-node-lease',
  namespaceFinalizer: 'kubernetes',
  apiServerFieldManager: 'kube-apiserver',
  identityLease: { namePrefix: 'kube-apiserver-', label: 'apiserver.kubernetes.io/identity', labelValue: 'kube-apiserver', endpointAnnotation: 'apiserver.kubernetes.io/endpoint' },
  clusterName: 'kubernetes',
  inClusterHost: 'kubernetes',
  apiServiceName: 'kubernetes',
  rootCaConfigMap: 'kube-root-ca.crt',
  clusterInfoKey: 'kubeconfig',
  clusterInfoJwsKey: 'token-secret',
  execInfoEnv: 'KUBERNETES_EXEC_INFO',
  apfHeaders: { flowSchemaUid: 'X-Kubernetes-PF-FlowSchema-UID', priorityLevelUid: 'X-Kubernetes-PF-PriorityLevel-UID' },
  initialEventsEndAnnotation: 'k8s.io/initial-events-end',
  initialEventsEndAnnotations: ['k8s.io/initial-events-end'],
  signers: {
    apiServerClient: `${KUBE_DOMAIN}/kube-apiserver-client`,
    apiServerClientNodeAgent: `${KUBE_DOMAIN}/kube-apiserver-client-kubelet`,
    nodeAgentServing: `${KUBE_DOMAIN}/kubelet-serving`,
    legacyUnknown: `${KUBE_DOMAIN}/legacy-unknown`,
  },
  secretTypes: {
    serviceAccountToken: `${KUBE_DOMAIN}/service-account-token`,
    dockercfg: `${KUBE_DOMAIN}/dockercfg`,
    dockerConfigJson: `${KUBE_DOMAIN}/dockerconfigjson`,
    basicAuth: `${KUBE_DOMAIN}/basic-auth`,
    sshAuth: `${KUBE_DOMAIN}/ssh-auth`,
    tls: `${KUBE_DOMAIN}/tls`,
    bootstrapToken: `bootstrap.${KUBE_DOMAIN}/token`,
  },
  labels: {
    serviceName: `${KUBE_DOMAIN}/service-name`,
    hostname: `${KUBE_DOMAIN}/hostname`,
    topologyZone: `topology.${KUBE_DOMAIN}/zone`,
    pdbV1beta1EmptySelectorMatch: `pdb.${KUBE_DOMAIN}/deprecated-v1beta1-empty-selector-match`,
    jobName: `batch.${KUBE_DOMAIN}/job-name`,
    jobControllerUid: `batch.${KUBE_DOMAIN}/controller-uid`,
    nodeRolePrefixes: [`node-role.${KUBE_DOMAIN}/`],
    nodeRoleLabels: [`${KUBE_DOMAIN}/role`],
  },
  annotations: {
    serviceAccountName: `${KUBE_DOMAIN}/service-account.name`,
    serviceAccountUid: `${KUBE_DOMAIN}/service-account.uid`,
    description: `${KUBE_DOMAIN}/description`,
    mirrorPod: `${KUBE_DOMAIN}/config.mirror`,
    defaultStorageClass: [`storageclass.${KUBE_DOMAIN}/is-default-class`, `storageclass.beta.${KUBE_DOMAIN}/is-default-class`],
    betaStorageClass: [`volume.beta.${KUBE_DOMAIN}/storage-class`],
    // The original writes these under k8s.io (apiserver/pkg/endpoints/handlers), not kubernetes.io.
    deprecatedApi: 'k8s.io/deprecated',
    removedRelease: 'k8s.io/removed-release',
    hpaV1: {
      metrics: `autoscaling.alpha.${KUBE_DOMAIN}/metrics`,
      currentMetrics: `autoscaling.alpha.${KUBE_DOMAIN}/current-metrics`,
      conditions: `autoscaling.alpha.${KUBE_DOMAIN}/conditions`,
      behavior: `autoscaling.alpha.${KUBE_DOMAIN}/behavior`,
    },
    apfAutoUpdateSpec: `apf.${KUBE_DOMAIN}/autoupdate-spec`,
  },
  podSecurity: {
    prefix: `pod-security.${KUBE_DOMAIN}/`,
    appArmorContainerPrefixes: [`container.apparmor.security.beta.${KUBE_DOMAIN}/`],
    seccompPodAnnotations: [`seccomp.security.alpha.${KUBE_DOMAIN}/pod`],
    seccompContainerPrefixes: [`container.seccomp.security.alpha.${KUBE_DOMAIN}/`],
    configGroups: ['pod-security.admission.config.k8s.io'],
  },
  nativeResourcePrefix: `${KUBE_DOMAIN}/`,
  admissionNames: {
    pvcProtectionFinalizer: `${KUBE_DOMAIN}/pvc-protection`,
    pvProtectionFinalizer: `${KUBE_DOMAIN}/pv-protection`,
    defaultIngressClass: [`ingressclass.${KUBE_DOMAIN}/is-default-class`],
    ingressClass: [`${KUBE_DOMAIN}/ingress.class`],
    nodeRestrictionLabelDomains: [`node-restriction.${KUBE_DOMAIN}`],
    reservedLabelDomains: [KUBE_DOMAIN, 'k8s.io'],
    nodeAgentLabels: nodeAgentLabels(KUBE_DOMAIN),
    nodeAgentLabelDomains: [`kubelet.${KUBE_DOMAIN}`, `node.${KUBE_DOMAIN}`],
    admissionConfigGroups: ['apiserver.config.k8s.io'],
    eventRateLimitConfigGroups: ['eventratelimit.admission.k8s.io'],
  },
  serviceAccountTokens: {
    defaultIssuer: 'https://kubernetes.default.svc.cluster.local',
    legacyIssuer: 'kubernetes/serviceaccount',
    legacyClaimPrefix: `${KUBE_DOMAIN}/serviceaccount/`,
    privateClaim: KUBE_DOMAIN,
    podNameExtra: `authentication.${KUBE_DOMAIN}/pod-name`,
    podUidExtra: `authentication.${KUBE_DOMAIN}/pod-uid`,
  },
  podAdmission: {
    enforceMountableSecrets: `${KUBE_DOMAIN}/enforce-mountable-secrets`,
    tokenMountPath: `/var/run/secrets/${KUBE_DOMAIN}/serviceaccount`,
    tokenVolumePrefix: 'kube-api-access',
    notReadyTaint: `node.${KUBE_DOMAIN}/not-ready`,
    unreachableTaint: `node.${KUBE_DOMAIN}/unreachable`,
    memoryPressureTaint: `node.${KUBE_DOMAIN}/memory-pressure`,
    nodeSelectorAnnotation: `scheduler.alpha.${KUBE_DOMAIN}/node-selector`,
    defaultTolerationsAnnotation: `scheduler.alpha.${KUBE_DOMAIN}/defaultTolerations`,
    tolerationsWhitelistAnnotation: `scheduler.alpha.${KUBE_DOMAIN}/tolerationsWhitelist`,
  },
};

export const NAMING_TABLES: Readonly<Record<ApiFlavor, NamingTable>> = { orch: ORCH, kubernetes: KUBERNETES };
