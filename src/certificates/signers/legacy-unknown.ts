/**
 * `<domain>/legacy-unknown`: no restrictions (the original keeps it for
 * compatibility); such requests cannot be created through v1, only through
 * an older version. The CA bit and extensions other than subjectAltName and
 * key usage are dropped at signing, as for every built-in signer.
 */
import { names } from '../../naming/index.ts';
import type { SignerRules } from './types.ts';

export const legacyUnknownSigner: SignerRules = {
  signerName: names.signers.legacyUnknown,
  check: () => undefined,
};
