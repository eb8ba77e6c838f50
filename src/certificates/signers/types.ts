/** What each built-in signer decides about a request before it signs (pkg/controller/certificates/signer). */
import type { ParsedRequest } from '../csr-request.ts';

export interface SignerRules {
  readonly signerName: string;
  /**
   * Why this signer refuses the request (recorded as a Failed condition,
   * reason SignerValidationFailure, with this message), or undefined.
   */
  check(req: ParsedRequest, usages: readonly string[]): string | undefined;
}
