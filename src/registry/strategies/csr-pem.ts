/**
 * The checks the original applies to the bytes of a CertificateSigningRequest:
 * spec.request must be a PEM "CERTIFICATE REQUEST" whose PKCS#10 signature
 * verifies with its own public key, and status.certificate, when set, must
 * be CERTIFICATE PEM blocks without headers, each an X.509 certificate.
 * Errors carry the texts of Go's parsers where we know them.
 *
 * Verification is synchronous (node:crypto), because validation hooks are.
 */
import { X509Certificate, createPublicKey, verify } from 'node:crypto';

export interface PemBlock {
  type: string;
  headers: Record<string, string>;
  bytes: Buffer;
}

/**
 * The PEM blocks in `text`, in order, as Go's pem.Decode finds them: a
 * BEGIN line at the start or after a newline, optional `Key: value` header
 * lines, base64 content, and the matching END line. Text between blocks is
 * skipped, and so is a block whose content is not base64.
 */
export function pemBlocks(text: string): PemBlock[] {
  const out: PemBlock[] = [];
  const re = /(?:^|\n)-----BEGIN ([^\n-][^\n]*?)-----\r?\n([\s\S]*?)\n?-----END \1-----/g;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    // Leading lines with a colon are headers, as pem.Decode reads them.
    const lines = m[2]!.split('\n');
    const headers: Record<string, string> = {};
    while (lines.length > 0 && lines[0]!.includes(':')) {
      const line = lines.shift()!;
      const i = line.indexOf(':');
      headers[line.slice(0, i).trim()] = line.slice(i + 1).trim();
    }
    const body = lines.join('\n');
    const compact = body.replace(/[\r\n\t ]/g, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 !== 0) continue;
    out.push({ type: m[1]!, headers, bytes: Buffer.from(compact, 'base64') });
  }
  return out;
}

// ---- a minimal DER reader ----

class Asn1Error extends Error {}

interface Tlv {
  tag: number;
  /** Offset of the tag byte. */
  start: number;
  /** Offset of the contents. */
  body: number;
  /** Offset just past the contents. */
  end: number;
}

function readTlv(buf: Buffer, at: number, limit: number): Tlv {
  if (at + 2 > limit) throw new Asn1Error('asn1: syntax error: data truncated');
  const tag = buf[at]!;
  let len = buf[at + 1]!;
  let body = at + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4 || body + n > limit) throw new Asn1Error('asn1: syntax error: data truncated');
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + buf[body + i]!;
    body += n;
  }
  if (body + len > limit) throw new Asn1Error('asn1: syntax error: data truncated');
  return { tag, start: at, body, end: body + len };
}

function expect(t: Tlv, tag: number): Tlv {
  if (t.tag !== tag) throw new Asn1Error("asn1: structure error: tags don't match");
  return t;
}

function oidString(bytes: Buffer): string {
  const parts: number[] = [];
  let v = 0;
  for (let i = 0; i < bytes.length; i++) {
    v = v * 128 + (bytes[i]! & 0x7f);
    if (!(bytes[i]! & 0x80)) {
      if (parts.length === 0) parts.push(v < 80 ? Math.floor(v / 40) : 2, v < 80 ? v % 40 : v - 80);
      else parts.push(v);
      v = 0;
    }
  }
  return parts.join('.');
}

/** Signature algorithm OID -> the digest node:crypto verifies with (null: the key decides, Ed25519). */
const SIGNATURE_ALGORITHMS: Record<string, { hash: string | null; family: 'rsa' | 'ecdsa' | 'ed25519' }> = {
  '1.2.840.113549.1.1.5': { hash: 'sha1', family: 'rsa' },
  '1.2.840.113549.1.1.11': { hash: 'sha256', family: 'rsa' },
  '1.2.840.113549.1.1.12': { hash: 'sha384', family: 'rsa' },
  '1.2.840.113549.1.1.13': { hash: 'sha512', family: 'rsa' },
  '1.2.840.10045.4.1': { hash: 'sha1', family: 'ecdsa' },
  '1.2.840.10045.4.3.2': { hash: 'sha256', family: 'ecdsa' },
  '1.2.840.10045.4.3.3': { hash: 'sha384', family: 'ecdsa' },
  '1.2.840.10045.4.3.4': { hash: 'sha512', family: 'ecdsa' },
  '1.3.101.112': { hash: null, family: 'ed25519' },
};

const VERIFY_FAILURE: Record<'rsa' | 'ecdsa' | 'ed25519', string> = {
  rsa: 'crypto/rsa: verification error',
  ecdsa: 'x509: ECDSA verification failure',
  ed25519: 'x509: Ed25519 verification failure',
};

/** Parses a DER PKCS#10 request and checks its self-signature; the error text, or undefined when good. */
export function checkCertificateRequestDer(der: Buffer): string | undefined {
  try {
    const outer = expect(readTlv(der, 0, der.length), 0x30);
    if (outer.end !== der.length) return 'asn1: syntax error: trailing data';
    const info = expect(readTlv(der, outer.body, outer.end), 0x30);
    const alg = expect(readTlv(der, info.end, outer.end), 0x30);
    const sig = expect(readTlv(der, alg.end, outer.end), 0x03);
    // CertificationRequestInfo: version, subject, subjectPKInfo, attributes.
    const version = expect(readTlv(der, info.body, info.end), 0x02);
    const subject = expect(readTlv(der, version.end, info.end), 0x30);
    const spki = expect(readTlv(der, subject.end, info.end), 0x30);
    const oid = expect(readTlv(der, alg.body, alg.end), 0x06);
    const algorithm = SIGNATURE_ALGORITHMS[oidString(der.subarray(oid.body, oid.end))];
    if (!algorithm) return 'x509: cannot verify signature: algorithm unimplemented';
    if (sig.end - sig.body < 1 || der[sig.body] !== 0) return 'asn1: structure error: invalid bit string';
    let key;
    try {
      key = createPublicKey({ key: der.subarray(spki.start, spki.end), format: 'der', type: 'spki' });
    } catch {
      return 'x509: unsupported public key type';
    }
    const tbs = der.subarray(info.start, info.end);
    const signature = der.subarray(sig.body + 1, sig.end);
    let ok = false;
    try {
      ok = verify(algorithm.hash, tbs, key, signature);
    } catch {
      ok = false;
    }
    return ok ? undefined : VERIFY_FAILURE[algorithm.family];
  } catch (e) {
    if (e instanceof Asn1Error) return e.message;
    throw e;
  }
}

/** certificates.ParseCSR followed by CheckSignature, on the PEM bytes of spec.request. */
export function checkCertificateRequestPem(pem: Buffer): string | undefined {
  const block = pemBlocks(pem.toString('latin1'))[0];
  if (block === undefined || block.type !== 'CERTIFICATE REQUEST') return 'PEM block type must be CERTIFICATE REQUEST';
  return checkCertificateRequestDer(block.bytes);
}

/** validateCertificate for status.certificate: one or more clean CERTIFICATE blocks. */
export function checkIssuedCertificates(pem: Buffer): string | undefined {
  if (pem.length === 0) return undefined;
  const blocks = pemBlocks(pem.toString('latin1'));
  for (const block of blocks) {
    if (block.type !== 'CERTIFICATE') return `only CERTIFICATE PEM blocks are allowed, found ${JSON.stringify(block.type)}`;
    if (Object.keys(block.headers).length > 0) return 'no PEM block headers are permitted';
    try {
      new X509Certificate(block.bytes);
    } catch {
      return 'x509: malformed certificate';
    }
  }
  return blocks.length === 0 ? 'must contain at least one CERTIFICATE PEM block' : undefined;
}
