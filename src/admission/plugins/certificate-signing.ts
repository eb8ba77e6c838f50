/**
 * CertificateSigning: changing a CertificateSigningRequest's
 * status.certificate or status.conditions through the `status` subresource
 * needs `sign` on the signer (the old object's), as the original's plugin
 * (plugin/pkg/admission/certificates/signing, v1.32: conditions too, so only
 * the signer may mark a request Failed).
 */
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';
import type { AdmissionPluginFactory } from '../plugin-table.ts';
import type { Authorizer } from '../../authz/types.ts';
import { jsonEqual } from '../../registry/object.ts';
import { admissionForbidden, record, str, userOf } from './admission-errors.ts';
import { isAuthorizedForSignerName } from './signer-authorization.ts';
import { isCsr } from './certificate-approval.ts';

/** Empty and absent lists compare equal, as Semantic.DeepEqual treats nil and empty slices here. */
function conditions(v: unknown): unknown {
  return Array.isArray(v) && v.length > 0 ? v : null;
}

export function certificateSigning(authorizer: () => Authorizer): AdmissionPlugin {
  return {
    name: 'CertificateSigning',
    handles: (rt, sub, op) => isCsr(rt.group, rt.resource) && sub === 'status' && op === 'UPDATE',
    async validate(attrs: AdmissionAttributes): Promise<void> {
      const old = attrs.oldObject;
      const csr = attrs.object;
      if (old === null || csr === null) throw admissionForbidden(attrs, 'expected type CertificateSigningRequest, got: <nil>');
      const oldStatus = record(old['status']);
      const status = record(csr['status']);
      const sameCert = (str(oldStatus['certificate']) ?? '') === (str(status['certificate']) ?? '');
      if (sameCert && jsonEqual(conditions(oldStatus['conditions']), conditions(status['conditions']))) return;
      const signerName = str(record(old['spec'])['signerName']) ?? '';
      if (!(await isAuthorizedForSignerName(authorizer(), userOf(attrs), 'sign', signerName))) {
        throw admissionForbidden(attrs, `user not permitted to sign requests with signerName ${JSON.stringify(signerName)}`);
      }
    },
  };
}

export const certificateSigningFactory: AdmissionPluginFactory = {
  name: 'CertificateSigning',
  create: (deps) => certificateSigning(deps.authorizer),
};
