/**
 * The built-in signers by name (getCSRVerificationFuncForSignerName), and the
 * v1beta1 default signer a request's content implies (DefaultSignerNameFromSpec).
 */
import { names } from '../../naming/index.ts';
import { parseRequestUnverified, type ParsedRequest } from '../csr-request.ts';
import { apiServerClientSigner } from './apiserver-client.ts';
import { apiServerClientNodeAgentSigner } from './apiserver-client-node-agent.ts';
import { nodeAgentServingSigner } from './node-agent-serving.ts';
import { legacyUnknownSigner } from './legacy-unknown.ts';
import { validateNodeClientRequest, validateNodeServingRequest } from './node-rules.ts';
import type { SignerRules } from './types.ts';

export type { SignerRules } from './types.ts';

export const BUILT_IN_SIGNERS: readonly SignerRules[] = [apiServerClientSigner, apiServerClientNodeAgentSigner, nodeAgentServingSigner, legacyUnknownSigner];

export function builtInSigner(signerName: string): SignerRules | undefined {
  return BUILT_IN_SIGNERS.find((s) => s.signerName === signerName);
}

/**
 * certificates/v1beta1's default signerName: a node client request goes to
 * the node client signer, a node serving request to the serving signer, any
 * other (or an unparsable one) to legacy-unknown.
 */
export function defaultSignerNameFromRequest(req: ParsedRequest | undefined, usages: readonly string[]): string {
  if (req === undefined) return names.signers.legacyUnknown;
  if (validateNodeClientRequest(req, usages) === undefined) return names.signers.apiServerClientNodeAgent;
  if (validateNodeServingRequest(req, usages) === undefined) return names.signers.nodeAgentServing;
  return names.signers.legacyUnknown;
}

/** The v1beta1 usages default (SetDefaults_CertificateSigningRequestSpec). */
export const V1BETA1_DEFAULT_USAGES: readonly string[] = ['digital signature', 'key encipherment'];

/**
 * DefaultSignerNameFromSpec, synchronous for a strategy's defaulting hook:
 * the request's PEM (spec.request decoded) and the (defaulted) usages.
 */
export function defaultSignerNameFromSpec(requestPem: Uint8Array, usages: readonly string[]): string {
  let req: ParsedRequest | undefined;
  try {
    req = parseRequestUnverified(requestPem);
  } catch {
    req = undefined;
  }
  return defaultSignerNameFromRequest(req, usages);
}
