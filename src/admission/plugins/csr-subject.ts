/**
 * The subject of a CertificateSigningRequest's spec.request, as the
 * original's certificates.ParseCSR reads it: the first PEM block must be a
 * CERTIFICATE REQUEST; the DER is then parsed for the subject. Used by
 * CertificateSubjectRestriction and NodeRestriction.
 */
import { x509 } from '../../pki/x509.ts';
import { pemBlocks } from '../../registry/strategies/csr-pem.ts';

export interface CsrSubject {
  readonly commonName: string;
  readonly organizations: readonly string[];
}

/** spec.request as JSON carries it (base64 of the PEM); a Uint8Array is taken as the PEM bytes. */
function pemBytes(request: unknown): Buffer {
  if (typeof request === 'string') return Buffer.from(request, 'base64');
  if (request instanceof Uint8Array) return Buffer.from(request);
  return Buffer.alloc(0);
}

/** The request's subject, or the parse error's text (Go's wording where known). */
export function parseCsrSubject(request: unknown): CsrSubject | { error: string } {
  const block = pemBlocks(pemBytes(request).toString('latin1'))[0];
  if (block === undefined || block.type !== 'CERTIFICATE REQUEST') return { error: 'PEM block type must be CERTIFICATE REQUEST' };
  try {
    const csr = new x509.Pkcs10CertificateRequest(block.bytes);
    const name = csr.subjectName;
    return { commonName: name.getField('CN')[0] ?? '', organizations: name.getField('O') };
  } catch (e) {
    return { error: `x509: malformed certificate request: ${e instanceof Error ? e.message : String(e)}` };
  }
}
