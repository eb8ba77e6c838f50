/**
 * CertificateApproval: approving or denying a CertificateSigningRequest
 * (UPDATE of its `approval` subresource) needs `approve` on the signer, as
 * the original's plugin (plugin/pkg/admission/certificates/approval). The
 * signer is the OLD object's, so a request cannot switch signer through the
 * approval endpoint to one the user may approve.
 */
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';
import type { AdmissionPluginFactory } from '../plugin-table.ts';
import type { Authorizer } from '../../authz/types.ts';
import { apiGroup } from '../../naming/index.ts';
import { admissionForbidden, record, str, userOf } from './admission-errors.ts';
import { isAuthorizedForSignerName } from './signer-authorization.ts';

export function isCsr(group: string, resource: string): boolean {
  return group === apiGroup('certificates') && resource === 'certificatesigningrequests';
}

export function certificateApproval(authorizer: () => Authorizer): AdmissionPlugin {
  return {
    name: 'CertificateApproval',
    handles: (rt, sub, op) => isCsr(rt.group, rt.resource) && sub === 'approval' && op === 'UPDATE',
    async validate(attrs: AdmissionAttributes): Promise<void> {
      const old = attrs.oldObject;
      if (old === null) throw admissionForbidden(attrs, 'expected type CertificateSigningRequest, got: <nil>');
      const signerName = str(record(old['spec'])['signerName']) ?? '';
      if (!(await isAuthorizedForSignerName(authorizer(), userOf(attrs), 'approve', signerName))) {
        throw admissionForbidden(attrs, `user not permitted to approve requests with signerName ${JSON.stringify(signerName)}`);
      }
    },
  };
}

export const certificateApprovalFactory: AdmissionPluginFactory = {
  name: 'CertificateApproval',
  create: (deps) => certificateApproval(deps.authorizer),
};
