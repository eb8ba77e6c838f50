/**
 * Certificates out of a PEM bundle (the --client-ca-file format). Blocks of
 * other types (keys, parameters) are skipped, as the original's
 * cert.ParseCertsPEM skips them; a bundle with no certificate is an error.
 */

const BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export class PemError extends Error {}

/** DER of every CERTIFICATE block, in file order. */
export function certificatesFromPem(text: string): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const m of text.matchAll(BLOCK)) {
    if (m[1] !== 'CERTIFICATE') continue;
    const body = (m[2] ?? '').replace(/\s+/g, '');
    // Buffer.from(..., 'base64') ignores junk; a corrupted bundle should fail loudly instead.
    if (!BASE64.test(body) || body.length % 4 !== 0) {
      throw new PemError(`certificate block ${out.length + 1} is not valid base64`);
    }
    out.push(new Uint8Array(Buffer.from(body, 'base64')));
  }
  if (out.length === 0) throw new PemError('data does not contain any valid RSA or ECDSA certificates');
  return out;
}
