/** `<domain>/<apiserver>-client-<node agent>`: node client certificates (ValidateKubeletClientCSR). */
import { names } from '../../naming/index.ts';
import { validateNodeClientRequest } from './node-rules.ts';
import type { SignerRules } from './types.ts';

export const apiServerClientNodeAgentSigner: SignerRules = {
  signerName: names.signers.apiServerClientNodeAgent,
  check: validateNodeClientRequest,
};
