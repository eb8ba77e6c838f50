/**
 * Chain-building rules on synthetic certificates, for cases real test
 * certificates cannot easily show (version-1 CAs, name constraints, insecure
 * signature algorithms, runaway chains). Signatures "verify" when the issuer
 * is the one the synthetic child names.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { CertPool, verifyClientCertificate } from '../../src/authn/chain-verify.ts';
import { KEY_USAGE_CERT_SIGN, type ParsedCertificate } from '../../src/authn/certificate.ts';

const NOW = Date.UTC(2030, 0, 1);
const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const enc = new TextEncoder();
let n = 0;

function cert(subject: string, issuer: string, over: Partial<ParsedCertificate> = {}): ParsedCertificate {
  const id = ++n;
  const c: ParsedCertificate = {
    der: enc.encode(`cert-${id}`),
    version: 3,
    serialHex: id.toString(16).padStart(2, '0'),
    rawIssuer: enc.encode(issuer),
    rawSubject: enc.encode(subject),
    rawSubjectPublicKeyInfo: enc.encode(`key-${id}`),
    notBefore: NOW - 1000,
    notAfter: NOW + 1000,
    commonName: subject,
    organizations: [],
    basicConstraints: undefined,
    keyUsage: 0,
    extKeyUsage: [],
    hasSubjectAltName: false,
    hasNameConstraints: false,
    hasUnhandledCriticalExtension: false,
    insecureSignatureAlgorithm: undefined,
    publicKey,
    isSignedBy: (parent) => Buffer.from(parent.rawSubject).toString() === issuer,
    ...over,
  };
  return c;
}

const CA = { basicConstraints: { isCA: true, maxPathLen: -1 } };

function verify(leaf: ParsedCertificate, intermediates: ParsedCertificate[], roots: ParsedCertificate[]) {
  return verifyClientCertificate(leaf, intermediates, new CertPool(roots), NOW);
}

describe('chain verification rules', () => {
  it('builds leaf -> intermediate -> root', () => {
    const root = cert('root', 'root', CA);
    const inter = cert('inter', 'root', CA);
    const leaf = cert('leaf', 'inter');
    const r = verify(leaf, [inter], [root]);
    assert.ok(r.ok);
    assert.deepEqual(r.chains.map((c) => c.map((x) => x.commonName)), [['leaf', 'inter', 'root']]);
  });

  it('refuses a version-1 intermediate without basic constraints', () => {
    const root = cert('root', 'root', CA);
    const inter = cert('inter', 'root', { version: 1 });
    const r = verify(cert('leaf', 'inter'), [inter], [root]);
    assert.deepEqual(r, { ok: false, message: 'x509: certificate is not authorized to sign other certificates' });
  });

  it('accepts a version-1 root, as Go does', () => {
    const root = cert('root', 'root', { version: 1 });
    assert.ok(verify(cert('leaf', 'root'), [], [root]).ok);
  });

  it('refuses a CA whose key usage does not include certificate signing', () => {
    const root = cert('root', 'root', { ...CA, keyUsage: 1 });
    const r = verify(cert('leaf', 'root'), [], [root]);
    assert.deepEqual(r, {
      ok: false,
      message:
        'x509: certificate signed by unknown authority (possibly because of "x509: invalid signature: parent certificate cannot sign this kind of certificate" while trying to verify candidate authority certificate "root")',
    });
    assert.ok(verify(cert('leaf', 'root'), [], [cert('root', 'root', { ...CA, keyUsage: KEY_USAGE_CERT_SIGN })]).ok);
  });

  it('refuses insecure signature algorithms', () => {
    const root = cert('root', 'root', CA);
    const r = verify(cert('leaf', 'root', { insecureSignatureAlgorithm: 'SHA1-RSA' }), [], [root]);
    assert.ok(!r.ok && r.message.includes('possibly because of "x509: cannot verify signature: insecure algorithm SHA1-RSA"'));
  });

  it('fails closed when a name-constrained CA would have to judge a subject alternative name', () => {
    const root = cert('root', 'root', { ...CA, hasNameConstraints: true });
    assert.ok(verify(cert('leaf', 'root'), [], [root]).ok, 'no SAN: nothing to constrain');
    const r = verify(cert('leaf', 'root', { hasSubjectAltName: true }), [], [root]);
    assert.ok(!r.ok && r.message.startsWith('x509: a root or intermediate certificate is not authorized to sign for this name'));
  });

  it('refuses an expired CA in the chain', () => {
    const root = cert('root', 'root', { ...CA, notAfter: NOW - 1 });
    const r = verify(cert('leaf', 'root'), [], [root]);
    assert.ok(!r.ok && r.message.startsWith('x509: certificate has expired or is not yet valid: current time 2030-01-01T00:00:00Z is after'));
  });

  it('stops on cross-signing loops and bounds the signature checks', () => {
    // a and b sign each other; neither reaches a root.
    const a = cert('a', 'b', CA);
    const b = cert('b', 'a', CA);
    assert.deepEqual(verify(cert('leaf', 'a'), [a, b], [cert('root', 'root', CA)]), {
      ok: false,
      message: 'x509: certificate signed by unknown authority',
    });
    // Many same-named intermediates whose signatures never match.
    const decoys = Array.from({ length: 150 }, () => cert('inter', 'root', { ...CA, isSignedBy: () => false }));
    const leaf = cert('leaf', 'inter', { isSignedBy: () => false });
    assert.deepEqual(verify(leaf, decoys, [cert('root', 'root', CA)]), {
      ok: false,
      message: 'x509: signature check attempts limit reached while verifying certificate chain',
    });
  });
});
