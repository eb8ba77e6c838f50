/**
 * rbac.authorization.<suffix>/v1: roles, cluster roles and their bindings.
 * Field names, types, markers and proto numbers follow the original API; descriptions are ours.
 */
import { f, S, list, type StructDecl } from '../schema-dsl.ts';
import { meta, rbac } from './namespaces.ts';
import { apiGroup } from '../../naming/index.ts';

export const rbacTypes: readonly StructDecl[] = [
  rbac.kind('Role', 'Namespaced set of permissions.', {
    rules: f(list(rbac.ref('PolicyRule')), 'Permissions the role grants.', { listType: 'atomic', proto: 2 }),
  }),
  rbac.kind('ClusterRole', 'Cluster-wide set of permissions, also usable in namespaces through a RoleBinding.', {
    rules: f(list(rbac.ref('PolicyRule')), 'Permissions the role grants.', { listType: 'atomic', proto: 2 }),
    aggregationRule: f(rbac.ref('AggregationRule'), 'Selects cluster roles whose rules are merged into this one.', { proto: 3 }),
  }),
  rbac.struct('AggregationRule', 'How a cluster role is built from others.', {
    clusterRoleSelectors: f(list(meta.ref('LabelSelector')), 'Cluster roles whose rules are merged in; ORed.', { listType: 'atomic', proto: 1 }),
  }),
  rbac.kind('RoleBinding', 'Grants a Role or ClusterRole to subjects within one namespace.', {
    subjects: f(list(rbac.ref('Subject')), 'Users, groups and service accounts granted the role.', { listType: 'atomic', proto: 2 }),
    roleRef: f(rbac.ref('RoleRef'), 'The role granted; cannot change.', { required: true, proto: 3 }),
  }),
  rbac.kind('ClusterRoleBinding', 'Grants a ClusterRole to subjects across the cluster.', {
    subjects: f(list(rbac.ref('Subject')), 'Users, groups and service accounts granted the role.', { listType: 'atomic', proto: 2 }),
    roleRef: f(rbac.ref('RoleRef'), 'The cluster role granted; cannot change.', { required: true, proto: 3 }),
  }),
  rbac.struct('PolicyRule', 'Actions allowed on resources or non-resource URLs.', {
    verbs: f(list(S), 'Verbs allowed, or `*`.', { required: true, listType: 'atomic', proto: 1 }),
    apiGroups: f(list(S), 'API groups of the resources; empty string is the core group.', { listType: 'atomic', proto: 2 }),
    resources: f(list(S), 'Resources the rule applies to, or `*`.', { listType: 'atomic', proto: 3 }),
    resourceNames: f(list(S), 'Object names the rule is limited to.', { listType: 'atomic', proto: 4 }),
    nonResourceURLs: f(list(S), 'URL paths allowed, for cluster roles only.', { listType: 'atomic', proto: 5 }),
  }),
  rbac.struct('Subject', 'A user, group or service account.', {
    kind: f(S, 'User, Group or ServiceAccount.', { required: true, proto: 1 }),
    apiGroup: f(S, 'Group of the kind; empty for service accounts.', { proto: 2 }),
    name: f(S, 'Name of the subject.', { required: true, proto: 3 }),
    namespace: f(S, 'Namespace of a service account.', { proto: 4 }),
  }, { structType: 'atomic' }),
  rbac.struct('RoleRef', 'The role a binding grants.', {
    apiGroup: f(S, 'Group of the role.', { required: true, proto: 1 }),
    kind: f(S, 'Role or ClusterRole.', { required: true, proto: 2 }),
    name: f(S, 'Name of the role.', { required: true, proto: 3 }),
  }, { structType: 'atomic' }),
];
