/**
 * A PKCS#10 request as the signers read it (Go's x509.CertificateRequest):
 * the subject (its raw Name, the common name, the organizations), the
 * subjectAltNames of its extensionRequest (DNS, email, IP, URI), and its
 * public key. Parsed with @peculiar/x509; the self-signature is checked.
 */
import { x509 } from '../pki/x509.ts';
import { pemBlocks } from '../registry/strategies/csr-pem.ts';

export interface ParsedRequest {
  readonly subjectName: x509.Name;
  /** The last CN, as Go's pkix.Name keeps it ('' when none). */
  readonly commonName: string;
  /** Every O value, in order. */
  readonly organizations: readonly string[];
  readonly dnsNames: readonly string[];
  readonly emailAddresses: readonly string[];
  readonly ipAddresses: readonly string[];
  readonly uris: readonly string[];
  /** SubjectPublicKeyInfo DER. */
  readonly publicKeySpki: ArrayBuffer;
}

/**
 * certificates.ParseCSR without the signature check: synchronous, for
 * defaulting (which runs in synchronous strategy hooks). Throws with the
 * original's texts.
 */
export function parseRequestUnverified(pem: Uint8Array): ParsedRequest & { readonly verify: () => Promise<boolean> } {
  const block = pemBlocks(Buffer.from(pem).toString('latin1'))[0];
  if (block === undefined || block.type !== 'CERTIFICATE REQUEST') throw new Error('PEM block type must be CERTIFICATE REQUEST');
  let req: x509.Pkcs10CertificateRequest;
  try {
    req = new x509.Pkcs10CertificateRequest(new Uint8Array(block.bytes));
  } catch (err) {
    throw new Error(`asn1: ${err instanceof Error ? err.message : String(err)}`);
  }
  const dnsNames: string[] = [];
  const emailAddresses: string[] = [];
  const ipAddresses: string[] = [];
  const uris: string[] = [];
  const san = req.extensions.find((e): e is x509.SubjectAlternativeNameExtension => e instanceof x509.SubjectAlternativeNameExtension);
  for (const n of san?.names.items ?? []) {
    if (n.type === 'dns') dnsNames.push(n.value);
    else if (n.type === 'email') emailAddresses.push(n.value);
    else if (n.type === 'ip') ipAddresses.push(n.value);
    else if (n.type === 'url') uris.push(n.value);
  }
  const cns = req.subjectName.getField('CN');
  return {
    subjectName: req.subjectName,
    commonName: cns.length > 0 ? cns[cns.length - 1]! : '',
    organizations: req.subjectName.getField('O'),
    dnsNames,
    emailAddresses,
    ipAddresses,
    uris,
    publicKeySpki: req.publicKey.rawData,
    verify: () => req.verify(),
  };
}

/** certificates.ParseCSR followed by CheckSignature: what the signers sign. */
export async function parseRequest(pem: Uint8Array): Promise<ParsedRequest> {
  const req = parseRequestUnverified(pem);
  if (!(await req.verify())) throw new Error('x509: signature of the certificate request does not verify');
  return req;
}
