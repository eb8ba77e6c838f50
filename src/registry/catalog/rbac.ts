/** rbac.authorization.<suffix>/v1: names are path segments (they may hold ':'), and a PUT may create. */
import type { ResourceTypeDef } from '../resource-type.ts';
import { clusterRoleBindingStrategy, roleBindingStrategy, roleStrategy } from '../strategies/rbac.ts';
import { apiGroup } from '../../naming/index.ts';

const rbacV1 = { group: apiGroup('rbac.authorization'), version: 'v1', nameRule: 'path-segment', allowCreateOnUpdate: true } as const;

export const rbacTypes: ResourceTypeDef[] = [
  { ...rbacV1, resource: 'clusterrolebindings', kind: 'ClusterRoleBinding', singularName: 'clusterrolebinding', namespaced: false, strategy: clusterRoleBindingStrategy },
  { ...rbacV1, resource: 'clusterroles', kind: 'ClusterRole', singularName: 'clusterrole', namespaced: false, strategy: roleStrategy },
  { ...rbacV1, resource: 'rolebindings', kind: 'RoleBinding', singularName: 'rolebinding', namespaced: true, strategy: roleBindingStrategy },
  { ...rbacV1, resource: 'roles', kind: 'Role', singularName: 'role', namespaced: true, strategy: roleStrategy },
];
