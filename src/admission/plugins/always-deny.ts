/**
 * AlwaysDeny: refuses every write, as the original's (testing-only) plugin:
 * `admission control is denying all modifications`.
 */
import type { AdmissionPlugin } from '../types.ts';
import type { AdmissionPluginFactory } from '../plugin-table.ts';
import { admissionForbidden } from './pod-util.ts';

export function alwaysDeny(): AdmissionPlugin {
  const deny: AdmissionPlugin['admit'] = (attrs) => {
    throw admissionForbidden(attrs, 'admission control is denying all modifications');
  };
  return { name: 'AlwaysDeny', admit: deny, validate: deny };
}

export const alwaysDenyFactory: AdmissionPluginFactory = {
  name: 'AlwaysDeny',
  create: () => alwaysDeny(),
};
