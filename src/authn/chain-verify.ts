/**
 * Client certificate chain verification, following Go's crypto/x509
 * Certificate.Verify (which the original relies on) closely enough that the
 * same certificates pass and fail, with the same error texts: chains are
 * built from the leaf through the presented intermediates to a root of the
 * client CA bundle; every certificate must be within its validity window,
 * allow client authentication if it restricts extended key usages, and every
 * issuer must be a CA allowed to sign certificates. Signatures are checked by
 * OpenSSL through node:crypto.
 *
 * Not carried over: name constraints are not evaluated. Client certificates
 * rarely carry subject alternative names, and when a constrained CA would
 * have to judge one, verification fails instead of silently accepting.
 */
import { goQuote } from '../selectors/go-format.ts';
import { equalBytes } from './der.ts';
import { KEY_USAGE_CERT_SIGN, OID, type ParsedCertificate } from './certificate.ts';

/** Go bounds signature checks per verification so crafted bundles cannot burn CPU. */
const MAX_SIGNATURE_CHECKS = 100;

export type VerifyResult =
  | { readonly ok: true; readonly chains: readonly (readonly ParsedCertificate[])[] }
  | { readonly ok: false; readonly message: string };

/** The trust anchors (the client CA bundle), indexed by subject for issuer lookup. */
export class CertPool {
  private readonly bySubject = new Map<string, ParsedCertificate[]>();
  readonly certificates: readonly ParsedCertificate[];

  constructor(certificates: readonly ParsedCertificate[]) {
    this.certificates = certificates;
    for (const cert of certificates) {
      const key = subjectKey(cert.rawSubject);
      const list = this.bySubject.get(key);
      if (list === undefined) this.bySubject.set(key, [cert]);
      else list.push(cert);
    }
  }

  /** Certificates whose subject is `child`'s issuer, byte for byte (Go compares raw names). */
  potentialParents(child: ParsedCertificate): readonly ParsedCertificate[] {
    return this.bySubject.get(subjectKey(child.rawIssuer)) ?? [];
  }

  contains(cert: ParsedCertificate): boolean {
    return (this.bySubject.get(subjectKey(cert.rawSubject)) ?? []).some((c) => equalBytes(c.der, cert.der));
  }
}

function subjectKey(raw: Uint8Array): string {
  return Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('base64');
}

type CertType = 'leaf' | 'intermediate' | 'root';

/** Go's time.RFC3339 in UTC. */
function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const MSG = {
  unhandledCritical: 'x509: unhandled critical extension',
  nameMismatch: 'x509: issuer name does not match subject from issuing certificate',
  incompatibleUsage: 'x509: certificate specifies an incompatible key usage',
  notAuthorizedToSign: 'x509: certificate is not authorized to sign other certificates',
  tooManyIntermediates: 'x509: too many intermediates for path length constraint',
  nameConstraints:
    'x509: a root or intermediate certificate is not authorized to sign for this name: name constraints are not supported by this server',
  constraintViolation: 'x509: invalid signature: parent certificate cannot sign this kind of certificate',
  signatureLimit: 'x509: signature check attempts limit reached while verifying certificate chain',
} as const;

/** Checks `c` as a candidate to append to `chain` (Go's Certificate.isValid). */
function checkCandidate(c: ParsedCertificate, type: CertType, chain: readonly ParsedCertificate[], now: number): string | undefined {
  if (c.hasUnhandledCriticalExtension) return MSG.unhandledCritical;
  const child = chain[chain.length - 1];
  if (child !== undefined && !equalBytes(child.rawIssuer, c.rawSubject)) return MSG.nameMismatch;
  // Go's Before/After: both ends of the window are inclusive.
  if (now < c.notBefore) {
    return `x509: certificate has expired or is not yet valid: current time ${rfc3339(now)} is before ${rfc3339(c.notBefore)}`;
  }
  if (now > c.notAfter) {
    return `x509: certificate has expired or is not yet valid: current time ${rfc3339(now)} is after ${rfc3339(c.notAfter)}`;
  }
  // A certificate listing extended key usages must list client auth or "any";
  // applied down the whole chain, so a CA restricted to server auth cannot
  // issue client certificates.
  if (c.extKeyUsage.length > 0 && !c.extKeyUsage.some((u) => u === OID.ekuAny || u === OID.ekuClientAuth)) {
    return MSG.incompatibleUsage;
  }
  if (type !== 'leaf' && c.hasNameConstraints) {
    const leaf = chain[0];
    if (c.hasSubjectAltName || (leaf !== undefined && leaf.hasSubjectAltName)) return MSG.nameConstraints;
  }
  if (type === 'intermediate' && (c.basicConstraints === undefined || !c.basicConstraints.isCA)) {
    return MSG.notAuthorizedToSign;
  }
  if (c.basicConstraints !== undefined && c.basicConstraints.maxPathLen >= 0 && chain.length - 1 > c.basicConstraints.maxPathLen) {
    return MSG.tooManyIntermediates;
  }
  return undefined;
}

/** Go's Certificate.CheckSignatureFrom: may `parent` sign, and did it sign `child`? */
function checkSignatureFrom(child: ParsedCertificate, parent: ParsedCertificate): string | undefined {
  const bc = parent.basicConstraints;
  if ((parent.version === 3 && bc === undefined) || (bc !== undefined && !bc.isCA)) return MSG.constraintViolation;
  if (parent.keyUsage !== 0 && (parent.keyUsage & KEY_USAGE_CERT_SIGN) === 0) return MSG.constraintViolation;
  if (child.insecureSignatureAlgorithm !== undefined) {
    return `x509: cannot verify signature: insecure algorithm ${child.insecureSignatureAlgorithm}`;
  }
  if (child.isSignedBy(parent)) return undefined;
  switch (parent.publicKey.asymmetricKeyType) {
    case 'rsa':
    case 'rsa-pss':
      return 'crypto/rsa: verification error';
    case 'ec':
      return 'x509: ECDSA verification failure';
    case 'ed25519':
      return 'x509: Ed25519 verification failure';
    default:
      return 'x509: signature verification failure';
  }
}

/** Go's loop guard: the same subject and key already in the chain (cross-signing cycles). */
function alreadyInChain(candidate: ParsedCertificate, chain: readonly ParsedCertificate[]): boolean {
  return chain.some((c) => equalBytes(c.rawSubject, candidate.rawSubject) && equalBytes(c.rawSubjectPublicKeyInfo, candidate.rawSubjectPublicKeyInfo));
}

function unknownAuthority(hint: { message: string; cert: ParsedCertificate } | undefined): string {
  let s = 'x509: certificate signed by unknown authority';
  if (hint !== undefined) {
    const c = hint.cert;
    const name = c.commonName !== '' ? c.commonName : c.organizations[0] ?? `serial:${BigInt('0x' + (c.serialHex || '0')).toString()}`;
    s += ` (possibly because of ${goQuote(hint.message)} while trying to verify candidate authority certificate ${goQuote(name)})`;
  }
  return s;
}

interface BuildState {
  signatureChecks: number;
  readonly roots: CertPool;
  readonly intermediates: readonly ParsedCertificate[];
  readonly now: number;
}

function buildChains(chain: readonly ParsedCertificate[], state: BuildState): VerifyResult {
  const c = chain[chain.length - 1]!;
  const chains: ParsedCertificate[][] = [];
  let hint: { message: string; cert: ParsedCertificate } | undefined;
  let error: string | undefined;

  const consider = (type: 'root' | 'intermediate', candidate: ParsedCertificate): void => {
    if (alreadyInChain(candidate, chain)) return;
    if (++state.signatureChecks > MAX_SIGNATURE_CHECKS) {
      error = MSG.signatureLimit;
      return;
    }
    const sigErr = checkSignatureFrom(c, candidate);
    if (sigErr !== undefined) {
      hint ??= { message: sigErr, cert: candidate };
      return;
    }
    const invalid = checkCandidate(candidate, type, chain, state.now);
    if (invalid !== undefined) {
      error = invalid;
      return;
    }
    if (type === 'root') {
      chains.push([...chain, candidate]);
      return;
    }
    const sub = buildChains([...chain, candidate], state);
    if (sub.ok) chains.push(...sub.chains.map((x) => [...x]));
    else error = sub.message;
  };

  for (const root of state.roots.potentialParents(c)) consider('root', root);
  for (const inter of state.intermediates) {
    if (equalBytes(inter.rawSubject, c.rawIssuer)) consider('intermediate', inter);
  }
  if (chains.length > 0) return { ok: true, chains };
  return { ok: false, message: error ?? unknownAuthority(hint) };
}

/**
 * Verifies `leaf` for client authentication at time `now` (epoch ms), using
 * `intermediates` (the rest of the presented chain) to reach `roots`.
 */
export function verifyClientCertificate(
  leaf: ParsedCertificate,
  intermediates: readonly ParsedCertificate[],
  roots: CertPool,
  now: number,
): VerifyResult {
  const leafErr = checkCandidate(leaf, 'leaf', [], now);
  if (leafErr !== undefined) return { ok: false, message: leafErr };
  if (roots.contains(leaf)) return { ok: true, chains: [[leaf]] };
  return buildChains([leaf], { signatureChecks: 0, roots, intermediates, now });
}
