/** `<domain>/<node agent>-serving`: node serving certificates (ValidateKubeletServingCSR). */
import { names } from '../../naming/index.ts';
import { validateNodeServingRequest } from './node-rules.ts';
import type { SignerRules } from './types.ts';

export const nodeAgentServingSigner: SignerRules = {
  signerName: names.signers.nodeAgentServing,
  check: validateNodeServingRequest,
};
