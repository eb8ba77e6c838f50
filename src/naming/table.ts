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
  /** The exec credential plugin's environment variable. */
  readonly execInfoEnv: string;
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
  };
  /** Resource names in this namespace are native (not extended) resources. */
  readonly nativeResourcePrefix: string;
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
}

const KUBE_DOMAIN = 'kubernetes.io';

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
  clusterName: 'orch',
  inClusterHost: 'orch',
  apiServiceName: 'kubernetes',
  rootCaConfigMap: 'orch-root-ca.crt',
  clusterInfoKey: 'orchconfig',
  execInfoEnv: 'ORCH_EXEC_INFO',
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
  },
  nativeResourcePrefix: 'orch.io/',
  serviceAccountTokens: {
    defaultIssuer: 'https://orch.default.svc.cluster.local',
    legacyIssuer: 'orch/serviceaccount',
    legacyClaimPrefix: 'orch.io/serviceaccount/',
    privateClaim: 'orch.io',
    podNameExtra: 'authentication.orch.io/pod-name',
    podUidExtra: 'authentication.orch.io/pod-uid',
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
  clusterName: 'kubernetes',
  inClusterHost: 'kubernetes',
  apiServiceName: 'kubernetes',
  rootCaConfigMap: 'kube-root-ca.crt',
  clusterInfoKey: 'kubeconfig',
  execInfoEnv: 'KUBERNETES_EXEC_INFO',
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
  },
  nativeResourcePrefix: `${KUBE_DOMAIN}/`,
  serviceAccountTokens: {
    defaultIssuer: 'https://kubernetes.default.svc.cluster.local',
    legacyIssuer: 'kubernetes/serviceaccount',
    legacyClaimPrefix: `${KUBE_DOMAIN}/serviceaccount/`,
    privateClaim: KUBE_DOMAIN,
    podNameExtra: `authentication.${KUBE_DOMAIN}/pod-name`,
    podUidExtra: `authentication.${KUBE_DOMAIN}/pod-uid`,
  },
};

export const NAMING_TABLES: Readonly<Record<ApiFlavor, NamingTable>> = { orch: ORCH, kubernetes: KUBERNETES };
