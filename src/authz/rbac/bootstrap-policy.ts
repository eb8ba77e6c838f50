/**
 * The default policy the server reconciles at start, after the original's
 * bootstrap policy (plugin/pkg/auth/authorizer/rbac/bootstrappolicy:
 * policy.go, controller_policy.go, namespace_policy.go): the user-facing
 * roles (cluster-admin, admin, edit, view and their aggregation), discovery
 * and basic access for every user, health and version for everyone, the
 * node, bootstrapper and certificate roles, and the roles of the controllers
 * later parts of the server run. Group names of this flavor come from the
 * naming table.
 */
import { apiGroup, names } from '../../naming/index.ts';
import { GROUP_AUTHENTICATED, GROUP_MASTERS, GROUP_UNAUTHENTICATED } from '../../authn/types.ts';
import type { PolicyRule, Subject } from './types.ts';

export const GROUP_SERVICE_ACCOUNTS = 'system:serviceaccounts';
export const GROUP_NODES = 'system:nodes';
export const GROUP_MONITORING = 'system:monitoring';
export const USER_KUBE_PROXY = 'system:kube-proxy';
export const USER_CONTROLLER_MANAGER = 'system:kube-controller-manager';
export const USER_SCHEDULER = 'system:kube-scheduler';

const RBAC = apiGroup('rbac.authorization');
const AUTHN = apiGroup('authentication');
const AUTHZ = apiGroup('authorization');
const CERTS = apiGroup('certificates');
const COORD = apiGroup('coordination');
const EVENTS = apiGroup('events');
const DISCOVERY = apiGroup('discovery');
const NETWORKING = apiGroup('networking');
const STORAGE = apiGroup('storage');
const NODE = apiGroup('node');
const CORE = '';

/** `rbac.authorization.<domain>/autoupdate`: "false" leaves a default object as the admin changed it. */
export const AUTOUPDATE_ANNOTATION = `rbac.authorization.${names.domain}/autoupdate`;
/** `<domain>/bootstrapping: rbac-defaults` on every default object. */
export const BOOTSTRAPPING_LABEL = `${names.domain}/bootstrapping`;
export const BOOTSTRAPPING_VALUE = 'rbac-defaults';
export const AGGREGATE_TO_ADMIN = `${RBAC}/aggregate-to-admin`;
export const AGGREGATE_TO_EDIT = `${RBAC}/aggregate-to-edit`;
export const AGGREGATE_TO_VIEW = `${RBAC}/aggregate-to-view`;

export interface DefaultRole {
  readonly namespace: string;
  readonly name: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly rules: readonly PolicyRule[];
  /** matchLabels of each aggregation selector (ClusterRoles only). */
  readonly aggregateFrom?: readonly Readonly<Record<string, string>>[];
}

export interface DefaultBinding {
  readonly namespace: string;
  readonly name: string;
  readonly roleRef: { readonly kind: 'Role' | 'ClusterRole'; readonly name: string };
  readonly subjects: readonly Subject[];
}

// ---- rule builders, as the original's NewRule(...).Groups(...).Resources(...) ----

function r(verbs: string | readonly string[], groups: string | readonly string[], resources: string | readonly string[], resourceNames?: readonly string[]): PolicyRule {
  const list = (x: string | readonly string[]): string[] => (typeof x === 'string' ? [x] : [...x]);
  return { verbs: list(verbs), apiGroups: list(groups), resources: list(resources), ...(resourceNames !== undefined ? { resourceNames: [...resourceNames] } : {}) };
}

function urls(verbs: readonly string[], paths: readonly string[]): PolicyRule {
  return { verbs: [...verbs], nonResourceURLs: [...paths] };
}

const READ = ['get', 'list', 'watch'];
const READ_WRITE = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];
const WRITE = ['create', 'update', 'patch', 'delete', 'deletecollection'];
const EVENT_RULE = r(['create', 'update', 'patch'], [CORE, EVENTS], 'events');

function user(name: string): Subject {
  return { kind: 'User', apiGroup: RBAC, name };
}
function group(name: string): Subject {
  return { kind: 'Group', apiGroup: RBAC, name };
}
function serviceAccount(namespace: string, name: string): Subject {
  return { kind: 'ServiceAccount', name, namespace };
}

// ---- cluster roles (policy.go) ----

function clusterRoles(): DefaultRole[] {
  const nodeclient = `system:${CERTS}:certificatesigningrequests:nodeclient`;
  const selfnodeclient = `system:${CERTS}:certificatesigningrequests:selfnodeclient`;
  const approver = (suffix: string, signer: string): DefaultRole => ({
    namespace: '',
    name: `system:${CERTS}:${suffix}`,
    rules: [r('approve', CERTS, 'signers', [signer])],
  });
  const signerLeaf = (s: string): string => s.slice(s.indexOf('/') + 1);
  return [
    {
      namespace: '',
      name: 'cluster-admin',
      rules: [r('*', '*', '*'), urls(['*'], ['*'])],
    },
    { namespace: '', name: 'admin', rules: [], aggregateFrom: [{ [AGGREGATE_TO_ADMIN]: 'true' }] },
    { namespace: '', name: 'edit', labels: { [AGGREGATE_TO_ADMIN]: 'true' }, rules: [], aggregateFrom: [{ [AGGREGATE_TO_EDIT]: 'true' }] },
    { namespace: '', name: 'view', labels: { [AGGREGATE_TO_EDIT]: 'true' }, rules: [], aggregateFrom: [{ [AGGREGATE_TO_VIEW]: 'true' }] },
    {
      namespace: '',
      name: 'system:aggregate-to-admin',
      labels: { [AGGREGATE_TO_ADMIN]: 'true' },
      rules: [r('create', AUTHZ, 'localsubjectaccessreviews'), r(READ_WRITE, RBAC, ['roles', 'rolebindings'])],
    },
    {
      namespace: '',
      name: 'system:aggregate-to-edit',
      labels: { [AGGREGATE_TO_EDIT]: 'true' },
      rules: [
        // Edit reads secrets and may exec into pods: it can act as any service account in the namespace.
        r(READ, CORE, ['pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward', 'secrets', 'services/proxy']),
        r('impersonate', CORE, 'serviceaccounts'),
        r(WRITE, CORE, ['pods', 'pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward']),
        r('create', CORE, 'pods/eviction'),
        r(WRITE, CORE, ['replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/proxy', 'persistentvolumeclaims', 'configmaps', 'secrets', 'events']),
        r('create', CORE, 'serviceaccounts/token'),
        r(WRITE, 'apps', ['statefulsets', 'statefulsets/scale', 'daemonsets', 'deployments', 'deployments/scale', 'deployments/rollback', 'replicasets', 'replicasets/scale']),
        r(WRITE, 'autoscaling', 'horizontalpodautoscalers'),
        r(WRITE, 'batch', ['jobs', 'cronjobs']),
        r(WRITE, 'extensions', ['daemonsets', 'deployments', 'deployments/scale', 'deployments/rollback', 'ingresses', 'replicasets', 'replicasets/scale', 'replicationcontrollers/scale', 'networkpolicies']),
        r(WRITE, 'policy', 'poddisruptionbudgets'),
        r(WRITE, NETWORKING, ['ingresses', 'networkpolicies']),
        r(READ_WRITE, COORD, 'leases'),
      ],
    },
    {
      namespace: '',
      name: 'system:aggregate-to-view',
      labels: { [AGGREGATE_TO_VIEW]: 'true' },
      rules: [
        r(READ, CORE, ['pods', 'replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/status', 'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'configmaps']),
        r(READ, CORE, ['limitranges', 'resourcequotas', 'bindings', 'events', 'pods/status', 'resourcequotas/status', 'namespaces/status', 'replicationcontrollers/status', 'pods/log']),
        // Namespaces are readable but not writable by view.
        r(READ, CORE, 'namespaces'),
        r(READ, DISCOVERY, 'endpointslices'),
        r(READ, 'apps', ['controllerrevisions', 'statefulsets', 'statefulsets/status', 'statefulsets/scale', 'daemonsets', 'daemonsets/status', 'deployments', 'deployments/status', 'deployments/scale', 'replicasets', 'replicasets/status', 'replicasets/scale']),
        r(READ, 'autoscaling', ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
        r(READ, 'batch', ['jobs', 'cronjobs', 'cronjobs/status', 'jobs/status']),
        r(READ, 'extensions', ['daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'ingresses', 'ingresses/status', 'replicasets', 'replicasets/scale', 'replicasets/status', 'replicationcontrollers/scale', 'networkpolicies']),
        r(READ, 'policy', ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
        r(READ, NETWORKING, ['ingresses', 'ingresses/status', 'networkpolicies']),
      ],
    },
    {
      namespace: '',
      name: 'system:monitoring',
      rules: [urls(['get'], ['/metrics', '/metrics/slis', '/livez', '/readyz', '/healthz', '/livez/*', '/readyz/*', '/healthz/*'])],
    },
    {
      namespace: '',
      name: 'system:discovery',
      rules: [urls(['get'], ['/livez', '/readyz', '/healthz', '/version', '/version/', '/openapi', '/openapi/*', '/api', '/api/*', '/apis', '/apis/*'])],
    },
    {
      namespace: '',
      name: 'system:public-info-viewer',
      rules: [urls(['get'], ['/livez', '/readyz', '/healthz', '/version', '/version/'])],
    },
    {
      namespace: '',
      name: 'system:basic-user',
      rules: [r('create', AUTHZ, ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']), r('create', AUTHN, 'selfsubjectreviews')],
    },
    {
      namespace: '',
      name: 'system:auth-delegator',
      rules: [r('create', AUTHN, 'tokenreviews'), r('create', AUTHZ, 'subjectaccessreviews')],
    },
    {
      namespace: '',
      name: 'system:kubelet-api-admin',
      rules: [r(READ, CORE, 'nodes'), r('proxy', CORE, 'nodes'), r('*', CORE, ['nodes/proxy', 'nodes/metrics', 'nodes/stats', 'nodes/log'])],
    },
    {
      namespace: '',
      name: 'system:node-bootstrapper',
      rules: [r(['create', 'get', 'list', 'watch'], CERTS, 'certificatesigningrequests')],
    },
    {
      namespace: '',
      name: 'system:node',
      rules: [
        r('create', AUTHN, 'tokenreviews'),
        r('create', AUTHZ, ['subjectaccessreviews', 'localsubjectaccessreviews']),
        r(READ, CORE, 'services'),
        r(['create', 'get', 'list', 'watch'], CORE, 'nodes'),
        r(['update', 'patch'], CORE, 'nodes/status'),
        r(['update', 'patch'], CORE, 'nodes'),
        r(['create', 'update', 'patch'], CORE, 'events'),
        r(READ, CORE, 'pods'),
        r(['create', 'delete'], CORE, 'pods'),
        r(['update', 'patch'], CORE, 'pods/status'),
        r('create', CORE, 'pods/eviction'),
        r(READ, CORE, ['secrets', 'configmaps']),
        r('get', CORE, ['persistentvolumeclaims', 'persistentvolumes']),
        r('get', CORE, 'endpoints'),
        r(['create', 'get', 'list', 'watch'], CERTS, 'certificatesigningrequests'),
        r(['get', 'create', 'update', 'patch', 'delete'], COORD, 'leases'),
        r('get', STORAGE, 'volumeattachments'),
        r('create', CORE, 'serviceaccounts/token'),
        r(['get', 'update', 'patch'], CORE, 'persistentvolumeclaims/status'),
        r(READ, STORAGE, 'csidrivers'),
        r(['get', 'create', 'update', 'patch', 'delete'], STORAGE, 'csinodes'),
        r(READ, NODE, 'runtimeclasses'),
      ],
    },
    {
      namespace: '',
      name: 'system:node-proxier',
      rules: [r(['list', 'watch'], CORE, ['services', 'endpoints']), r(READ, CORE, 'nodes'), EVENT_RULE, r(['list', 'watch'], DISCOVERY, 'endpointslices')],
    },
    {
      namespace: '',
      name: 'system:kube-controller-manager',
      rules: [
        EVENT_RULE,
        r('create', COORD, 'leases'),
        r(['get', 'update'], COORD, 'leases', ['kube-controller-manager']),
        r('create', CORE, ['secrets', 'serviceaccounts']),
        r('delete', CORE, 'secrets'),
        r('get', CORE, ['namespaces', 'secrets', 'serviceaccounts', 'configmaps']),
        r('update', CORE, ['secrets', 'serviceaccounts']),
        r('create', AUTHN, 'tokenreviews'),
        r('create', AUTHZ, 'subjectaccessreviews'),
        r(['list', 'watch'], '*', '*'),
        r('create', CORE, 'serviceaccounts/token'),
      ],
    },
    {
      namespace: '',
      name: 'system:kube-scheduler',
      rules: [
        EVENT_RULE,
        r('create', COORD, 'leases'),
        r(['get', 'update'], COORD, 'leases', ['kube-scheduler']),
        r(READ, CORE, 'nodes'),
        r(['get', 'list', 'watch', 'delete'], CORE, 'pods'),
        r('create', CORE, ['pods/binding', 'bindings']),
        r(['patch', 'update'], CORE, 'pods/status'),
        r(READ, CORE, ['replicationcontrollers', 'services']),
        r(READ, ['apps', 'extensions'], 'replicasets'),
        r(READ, 'apps', 'statefulsets'),
        r(READ, 'policy', 'poddisruptionbudgets'),
        r(READ, CORE, ['persistentvolumeclaims', 'persistentvolumes']),
        r('create', AUTHN, 'tokenreviews'),
        r('create', AUTHZ, 'subjectaccessreviews'),
        r(READ, STORAGE, 'csinodes'),
        r(READ, CORE, 'namespaces'),
        r(READ, STORAGE, 'csidrivers'),
        r(READ, STORAGE, 'csistoragecapacities'),
      ],
    },
    { namespace: '', name: 'system:kube-dns', rules: [r(['list', 'watch'], CORE, ['endpoints', 'services'])] },
    {
      namespace: '',
      name: 'system:volume-scheduler',
      rules: [r(['get', 'list', 'watch', 'update', 'patch'], CORE, 'persistentvolumes'), r(READ, STORAGE, 'storageclasses'), r(['get', 'list', 'watch', 'update', 'patch'], CORE, 'persistentvolumeclaims')],
    },
    { namespace: '', name: nodeclient, rules: [r('create', CERTS, 'certificatesigningrequests/nodeclient')] },
    { namespace: '', name: selfnodeclient, rules: [r('create', CERTS, 'certificatesigningrequests/selfnodeclient')] },
    approver(`${signerLeaf(names.signers.apiServerClient)}-approver`, names.signers.apiServerClient),
    approver(`${signerLeaf(names.signers.apiServerClientNodeAgent)}-approver`, names.signers.apiServerClientNodeAgent),
    approver(`${signerLeaf(names.signers.nodeAgentServing)}-approver`, names.signers.nodeAgentServing),
    approver(`${signerLeaf(names.signers.legacyUnknown)}-approver`, names.signers.legacyUnknown),
    {
      namespace: '',
      name: 'system:service-account-issuer-discovery',
      rules: [urls(['get'], ['/.well-known/openid-configuration', '/openid/v1/jwks'])],
    },
  ];
}

// ---- controller roles (controller_policy.go), each bound to its service account in the system namespace ----

function controllerRoles(): DefaultRole[] {
  const c = (name: string, rules: PolicyRule[]): DefaultRole => ({ namespace: '', name: `system:controller:${name}`, rules });
  const s = names.signers;
  return [
    c('certificate-controller', [
      r(['get', 'list', 'watch', 'delete'], CERTS, 'certificatesigningrequests'),
      r('update', CERTS, ['certificatesigningrequests/status', 'certificatesigningrequests/approval']),
      r('approve', CERTS, 'signers', [s.apiServerClientNodeAgent]),
      r('sign', CERTS, 'signers', [s.legacyUnknown, s.apiServerClient, s.apiServerClientNodeAgent, s.nodeAgentServing]),
      r('create', AUTHZ, 'subjectaccessreviews'),
      EVENT_RULE,
    ]),
    c('clusterrole-aggregation-controller', [r(['escalate', 'get', 'list', 'watch', 'update', 'patch'], RBAC, 'clusterroles')]),
    c('cronjob-controller', [
      r(['get', 'list', 'watch', 'update'], 'batch', 'cronjobs'),
      r(['get', 'list', 'watch', 'create', 'update', 'delete', 'patch'], 'batch', 'jobs'),
      r('update', 'batch', 'cronjobs/status'),
      r('update', 'batch', 'cronjobs/finalizers'),
      r(['list', 'delete'], CORE, 'pods'),
      EVENT_RULE,
    ]),
    c('daemon-set-controller', [
      r(READ, ['extensions', 'apps'], 'daemonsets'),
      r('update', ['extensions', 'apps'], 'daemonsets/status'),
      r('update', ['extensions', 'apps'], 'daemonsets/finalizers'),
      r(['list', 'watch'], CORE, 'nodes'),
      r(['list', 'watch', 'create', 'delete', 'patch'], CORE, 'pods'),
      r('create', CORE, 'pods/binding'),
      r(['get', 'list', 'watch', 'create', 'delete', 'update', 'patch'], 'apps', 'controllerrevisions'),
      EVENT_RULE,
    ]),
    c('deployment-controller', [
      r(['get', 'list', 'watch', 'update'], ['extensions', 'apps'], 'deployments'),
      r('update', ['extensions', 'apps'], 'deployments/status'),
      r('update', ['extensions', 'apps'], 'deployments/finalizers'),
      r(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'], ['extensions', 'apps'], 'replicasets'),
      r(['get', 'list', 'watch', 'update'], CORE, 'pods'),
      EVENT_RULE,
    ]),
    c('disruption-controller', [
      r(READ, ['extensions', 'apps'], 'deployments'),
      r(READ, ['extensions', 'apps'], 'replicasets'),
      r(READ, CORE, 'replicationcontrollers'),
      r(READ, 'policy', 'poddisruptionbudgets'),
      r(READ, 'apps', 'statefulsets'),
      r('update', 'policy', 'poddisruptionbudgets/status'),
      r(['patch', 'update'], CORE, 'pods/status'),
      r('get', '*', '*/scale'),
      EVENT_RULE,
    ]),
    c('endpoint-controller', [
      r(READ, CORE, ['services', 'pods']),
      r(['get', 'list', 'create', 'update', 'delete'], CORE, 'endpoints'),
      r('create', CORE, 'endpoints/restricted'),
      EVENT_RULE,
    ]),
    c('endpointslice-controller', [
      r(READ, CORE, ['services', 'pods', 'nodes']),
      r('update', CORE, 'services/finalizers'),
      r(['get', 'list', 'create', 'update', 'delete'], DISCOVERY, 'endpointslices'),
      EVENT_RULE,
    ]),
    c('endpointslicemirroring-controller', [
      r(READ, CORE, ['services', 'endpoints']),
      r('update', CORE, 'services/finalizers'),
      r('update', CORE, 'endpoints/finalizers'),
      r(['get', 'list', 'create', 'update', 'delete'], DISCOVERY, 'endpointslices'),
      EVENT_RULE,
    ]),
    c('generic-garbage-collector', [r(['get', 'list', 'watch', 'patch', 'update', 'delete'], '*', '*'), EVENT_RULE]),
    c('horizontal-pod-autoscaler', [
      r(READ, 'autoscaling', 'horizontalpodautoscalers'),
      r('update', 'autoscaling', 'horizontalpodautoscalers/status'),
      r(['get', 'update'], '*', '*/scale'),
      r('list', CORE, 'pods'),
      r('list', `metrics.${names.apiGroupSuffix}`, 'pods'),
      r(READ, `custom.metrics.${names.apiGroupSuffix}`, '*'),
      r(READ, `external.metrics.${names.apiGroupSuffix}`, '*'),
      EVENT_RULE,
    ]),
    c('job-controller', [
      r(['get', 'list', 'watch', 'update', 'patch'], 'batch', 'jobs'),
      r('update', 'batch', 'jobs/status'),
      r('update', 'batch', 'jobs/finalizers'),
      r(['list', 'watch', 'create', 'delete', 'patch'], CORE, 'pods'),
      EVENT_RULE,
    ]),
    c('namespace-controller', [
      r(['get', 'list', 'watch', 'delete'], CORE, 'namespaces'),
      r('update', CORE, ['namespaces/finalize', 'namespaces/status']),
      r(['get', 'list', 'watch', 'delete', 'deletecollection'], '*', '*'),
    ]),
    c('node-controller', [
      r(['get', 'list', 'watch', 'update', 'delete', 'patch'], CORE, 'nodes'),
      r(['patch', 'update'], CORE, 'nodes/status'),
      r(['patch', 'update'], CORE, 'pods/status'),
      r(['get', 'list', 'watch', 'delete'], CORE, 'pods'),
      EVENT_RULE,
    ]),
    c('persistent-volume-binder', [
      r(['get', 'list', 'watch', 'update', 'create', 'delete'], CORE, 'persistentvolumes'),
      r('update', CORE, 'persistentvolumes/status'),
      r(['get', 'list', 'watch', 'update'], CORE, 'persistentvolumeclaims'),
      r('update', CORE, 'persistentvolumeclaims/status'),
      r(['list', 'watch', 'get', 'create', 'delete'], CORE, 'pods'),
      r(READ, STORAGE, 'storageclasses'),
      r(['list', 'watch'], CORE, 'nodes'),
      r('watch', CORE, 'events'),
      EVENT_RULE,
    ]),
    c('pod-garbage-collector', [r(['list', 'watch', 'delete'], CORE, 'pods'), r(READ, CORE, 'nodes'), r('patch', CORE, 'pods/status')]),
    c('pv-protection-controller', [r(['get', 'list', 'watch', 'update'], CORE, 'persistentvolumes'), EVENT_RULE]),
    c('pvc-protection-controller', [r(['get', 'list', 'watch', 'update'], CORE, 'persistentvolumeclaims'), r(['list', 'watch', 'get'], CORE, 'pods'), EVENT_RULE]),
    c('replicaset-controller', [
      r(['get', 'list', 'watch', 'update'], ['apps', 'extensions'], 'replicasets'),
      r('update', ['apps', 'extensions'], 'replicasets/status'),
      r('update', ['apps', 'extensions'], 'replicasets/finalizers'),
      r(['list', 'watch', 'patch', 'create', 'delete'], CORE, 'pods'),
      EVENT_RULE,
    ]),
    c('replication-controller', [
      r(['get', 'list', 'watch', 'update'], CORE, 'replicationcontrollers'),
      r('update', CORE, 'replicationcontrollers/status'),
      r('update', CORE, 'replicationcontrollers/finalizers'),
      r(['list', 'watch', 'patch', 'create', 'delete'], CORE, 'pods'),
      EVENT_RULE,
    ]),
    c('resourcequota-controller', [r(['list', 'watch'], '*', '*'), r('update', CORE, 'resourcequotas/status'), EVENT_RULE]),
    c('root-ca-cert-publisher', [r(['create', 'update'], CORE, 'configmaps'), EVENT_RULE]),
    c('service-account-controller', [r('create', CORE, 'serviceaccounts'), EVENT_RULE]),
    c('service-controller', [r(READ, CORE, 'services'), r(['patch', 'update'], CORE, 'services/status'), r(['list', 'watch'], CORE, 'nodes'), EVENT_RULE]),
    c('statefulset-controller', [
      r(['list', 'watch'], CORE, 'pods'),
      r(READ, 'apps', 'statefulsets'),
      r('update', 'apps', 'statefulsets/status'),
      r('update', 'apps', 'statefulsets/finalizers'),
      r(['get', 'create', 'delete', 'update', 'patch'], CORE, 'pods'),
      r(['get', 'list', 'watch', 'create', 'delete', 'update', 'patch'], 'apps', 'controllerrevisions'),
      r(['get', 'create'], CORE, 'persistentvolumeclaims'),
      EVENT_RULE,
    ]),
    c('ttl-after-finished-controller', [r(['get', 'list', 'watch', 'delete'], 'batch', 'jobs'), EVENT_RULE]),
    c('ttl-controller', [r(['update', 'patch', 'list', 'watch'], CORE, 'nodes'), EVENT_RULE]),
  ];
}

// ---- namespaced roles (namespace_policy.go) ----

function namespaceRoles(): DefaultRole[] {
  const sys = names.systemNamespace;
  const pub = names.publicNamespace;
  return [
    {
      namespace: sys,
      name: 'extension-apiserver-authentication-reader',
      rules: [r(READ, CORE, 'configmaps', ['extension-apiserver-authentication'])],
    },
    { namespace: sys, name: 'system:controller:bootstrap-signer', rules: [r(READ, CORE, 'secrets')] },
    { namespace: sys, name: 'system:controller:token-cleaner', rules: [r(['delete', 'get', 'list', 'watch'], CORE, 'secrets'), EVENT_RULE] },
    {
      namespace: pub,
      name: 'system:controller:bootstrap-signer',
      rules: [r(READ, CORE, 'configmaps'), r('update', CORE, 'configmaps', ['cluster-info']), EVENT_RULE],
    },
  ];
}

export function defaultRoles(): DefaultRole[] {
  return [...clusterRoles(), ...controllerRoles(), ...namespaceRoles()];
}

export function defaultBindings(): DefaultBinding[] {
  const sys = names.systemNamespace;
  const crb = (name: string, role: string, subjects: Subject[]): DefaultBinding => ({ namespace: '', name, roleRef: { kind: 'ClusterRole', name: role }, subjects });
  const bindings: DefaultBinding[] = [
    crb('cluster-admin', 'cluster-admin', [group(GROUP_MASTERS)]),
    crb('system:monitoring', 'system:monitoring', [group(GROUP_MONITORING)]),
    crb('system:discovery', 'system:discovery', [group(GROUP_AUTHENTICATED)]),
    crb('system:basic-user', 'system:basic-user', [group(GROUP_AUTHENTICATED)]),
    crb('system:public-info-viewer', 'system:public-info-viewer', [group(GROUP_AUTHENTICATED), group(GROUP_UNAUTHENTICATED)]),
    crb('system:node-proxier', 'system:node-proxier', [user(USER_KUBE_PROXY)]),
    crb('system:kube-controller-manager', 'system:kube-controller-manager', [user(USER_CONTROLLER_MANAGER)]),
    crb('system:kube-dns', 'system:kube-dns', [serviceAccount(sys, 'kube-dns')]),
    crb('system:kube-scheduler', 'system:kube-scheduler', [user(USER_SCHEDULER)]),
    crb('system:volume-scheduler', 'system:volume-scheduler', [user(USER_SCHEDULER)]),
    // Nodes are authorized by the Node mode; the binding exists without subjects, as in the original.
    crb('system:node', 'system:node', []),
    crb('system:service-account-issuer-discovery', 'system:service-account-issuer-discovery', [group(GROUP_SERVICE_ACCOUNTS)]),
  ];
  for (const role of controllerRoles()) {
    const sa = role.name.slice('system:controller:'.length);
    bindings.push(crb(role.name, role.name, [serviceAccount(sys, sa)]));
  }
  const rb = (namespace: string, name: string, role: string, subjects: Subject[]): DefaultBinding => ({ namespace, name, roleRef: { kind: 'Role', name: role }, subjects });
  bindings.push(
    rb(sys, 'system::extension-apiserver-authentication-reader', 'extension-apiserver-authentication-reader', [user(USER_CONTROLLER_MANAGER), user(USER_SCHEDULER)]),
    rb(sys, 'system:controller:bootstrap-signer', 'system:controller:bootstrap-signer', [serviceAccount(sys, 'bootstrap-signer')]),
    rb(sys, 'system:controller:token-cleaner', 'system:controller:token-cleaner', [serviceAccount(sys, 'token-cleaner')]),
    rb(names.publicNamespace, 'system:controller:bootstrap-signer', 'system:controller:bootstrap-signer', [serviceAccount(sys, 'bootstrap-signer')]),
  );
  return bindings;
}
