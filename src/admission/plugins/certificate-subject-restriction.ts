/**
 * CertificateSubjectRestriction: a CertificateSigningRequest for the API
 * server client signer may not ask for the `system:masters` organization
 * (spec 7), as the original's plugin
 * (plugin/pkg/admission/certificates/subjectrestriction).
 */
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';
import type { AdmissionPluginFactory } from '../plugin-table.ts';
import { names } from '../../naming/index.ts';
import { GROUP_MASTERS } from '../../authn/types.ts';
import { admissionForbidden, record } from './admission-errors.ts';
import { isCsr } from './certificate-approval.ts';
import { parseCsrSubject } from './csr-subject.ts';

export function certificateSubjectRestriction(): AdmissionPlugin {
  return {
    name: 'CertificateSubjectRestriction',
    handles: (rt, sub, op) => isCsr(rt.group, rt.resource) && sub === '' && op === 'CREATE',
    validate(attrs: AdmissionAttributes): void {
      const csr = attrs.object;
      if (csr === null) throw admissionForbidden(attrs, 'expected type CertificateSigningRequest, got: <nil>');
      const spec = record(csr['spec']);
      const signer = names.signers.apiServerClient;
      if (spec['signerName'] !== signer) return;
      const subject = parseCsrSubject(spec['request']);
      if ('error' in subject) throw admissionForbidden(attrs, `failed to parse CSR: ${subject.error}`);
      if (subject.organizations.includes(GROUP_MASTERS)) {
        throw admissionForbidden(attrs, `use of ${signer} signer with ${GROUP_MASTERS} group is not allowed`);
      }
    },
  };
}

export const certificateSubjectRestrictionFactory: AdmissionPluginFactory = {
  name: 'CertificateSubjectRestriction',
  create: () => certificateSubjectRestriction(),
};
