/**
 * The RBAC objects as the evaluator reads them (rbac.authorization.<suffix>/v1),
 * reduced to what decisions need. Parsing from stored JSON lives in
 * parse.ts; nothing here knows about storage.
 */

/** A PolicyRule as stored: every list may be absent. */
export interface PolicyRule {
  readonly verbs: readonly string[];
  readonly apiGroups?: readonly string[] | undefined;
  readonly resources?: readonly string[] | undefined;
  readonly resourceNames?: readonly string[] | undefined;
  readonly nonResourceURLs?: readonly string[] | undefined;
}

export type SubjectKind = 'User' | 'Group' | 'ServiceAccount';

export interface Subject {
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string | undefined;
  readonly apiGroup?: string | undefined;
}

export interface RoleRef {
  readonly apiGroup: string;
  readonly kind: string;
  readonly name: string;
}

export interface RoleRecord {
  /** '' for a ClusterRole. */
  readonly namespace: string;
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly rules: readonly PolicyRule[];
  /** ClusterRoles only: the label selectors of an aggregated role (raw objects). */
  readonly aggregationSelectors: readonly unknown[] | null;
}

export interface BindingRecord {
  /** '' for a ClusterRoleBinding. */
  readonly namespace: string;
  readonly name: string;
  readonly roleRef: RoleRef;
  readonly subjects: readonly Subject[];
}

/** The four RBAC resources, as the index names them. */
export type RbacResource = 'roles' | 'clusterroles' | 'rolebindings' | 'clusterrolebindings';
export const RBAC_RESOURCES: readonly RbacResource[] = ['clusterroles', 'roles', 'clusterrolebindings', 'rolebindings'];

/** The user name a ServiceAccount subject stands for (serviceaccount.MakeUsername). */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}
