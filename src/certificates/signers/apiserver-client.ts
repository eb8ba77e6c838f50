/**
 * `<domain>/<apiserver>-client`: any subject (the CertificateSubjectRestriction
 * admission plugin refuses system:masters), usages among digital signature,
 * key encipherment and client auth, client auth required
 * (validAPIServerClientUsages).
 */
import { names } from '../../naming/index.ts';
import type { SignerRules } from './types.ts';

export const apiServerClientSigner: SignerRules = {
  signerName: names.signers.apiServerClient,
  check(_req, usages) {
    let clientAuth = false;
    for (const u of usages) {
      if (u === 'client auth') clientAuth = true;
      else if (u !== 'digital signature' && u !== 'key encipherment') return `invalid usage for client certificate: ${u}`;
    }
    return clientAuth ? undefined : 'missing required usage for client certificate: client auth';
  },
};
