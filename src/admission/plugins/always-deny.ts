/**
 * AlwaysDeny: refuses every write, as the original's (testing-only) plugin:
 * `admission control is denying all modifications`.
 *
 * Except the server's own writes (bootstrap namespaces, the default RBAC
 * policy, its controllers): the original's post-start hooks keep retrying
 * against the denial while the server serves, but here those writes are part
 * of start-up, so denying them would stop the server from starting at all.
 */
import { names } from '../../naming/index.ts';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';
import type { AdmissionPluginFactory } from '../plugin-table.ts';
import { admissionForbidden } from './pod-util.ts';

const SERVER_USERS = new Set([
  'system:apiserver',
  `system:serviceaccount:${names.systemNamespace}:namespace-controller`,
  `system:serviceaccount:${names.systemNamespace}:service-account-controller`,
]);

export function alwaysDeny(): AdmissionPlugin {
  const deny = (attrs: AdmissionAttributes): void => {
    if (attrs.user === undefined || SERVER_USERS.has(attrs.user.name)) return;
    throw admissionForbidden(attrs, 'admission control is denying all modifications');
  };
  return { name: 'AlwaysDeny', admit: deny, validate: deny };
}

export const alwaysDenyFactory: AdmissionPluginFactory = {
  name: 'AlwaysDeny',
  create: () => alwaysDeny(),
};
