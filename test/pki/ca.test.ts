/**
 * CertificateAuthority: what it builds is checked with node:crypto (OpenSSL),
 * independently of the @peculiar/x509 code that built it; @peculiar/x509 is
 * used here only to read extensions node:crypto does not expose and to make
 * CSRs.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createPrivateKey, generateKeyPairSync, webcrypto, X509Certificate } from 'node:crypto';
import { CertificateAuthority, CLOCK_SKEW_SECONDS } from '../../src/pki/ca.ts';
import { generatePemKeyPair } from '../../src/pki/keys.ts';
import { x509 } from '../../src/pki/x509.ts';
import type { CertificateUsage } from '../../src/pki/usages.ts';

const DAY = 24 * 3600;

function extensions(pem: string) {
  const cert = new x509.X509Certificate(pem);
  return {
    cert,
    basic: cert.getExtension(x509.BasicConstraintsExtension),
    keyUsage: cert.getExtension(x509.KeyUsagesExtension),
    ski: cert.getExtension(x509.SubjectKeyIdentifierExtension),
    aki: cert.getExtension(x509.AuthorityKeyIdentifierExtension),
  };
}

function assertNear(actual: number, expected: number, toleranceMs: number, what: string) {
  assert.ok(Math.abs(actual - expected) <= toleranceMs, `${what}: ${new Date(actual).toISOString()} vs ${new Date(expected).toISOString()}`);
}

async function clientCert(ca: CertificateAuthority, usages: CertificateUsage[] = ['digital signature', 'client auth']) {
  const { publicKeyPem } = await generatePemKeyPair('ecdsa-p256');
  return ca.issue({ publicKey: publicKeyPem, subject: { commonName: 'alice', organizations: ['dev', 'ops'] }, usages, durationSeconds: DAY });
}

describe('CertificateAuthority.create', () => {
  it('is a self-signed ten-year CA named orch-ca with keyCertSign, cRLSign and a key id', async () => {
    const before = Date.now();
    const ca = await CertificateAuthority.create();
    const cert = new X509Certificate(ca.certificatePem);
    assert.equal(cert.subject, 'CN=orch-ca');
    assert.equal(cert.issuer, 'CN=orch-ca');
    assert.equal(cert.ca, true);
    assert.ok(cert.checkIssued(cert) && cert.verify(cert.publicKey), 'self-signed');
    assertNear(Date.parse(cert.validFrom), before - CLOCK_SKEW_SECONDS * 1000, 2000, 'notBefore');
    assertNear(Date.parse(cert.validTo), before + 3650 * DAY * 1000, 2000, 'notAfter');
    const ext = extensions(ca.certificatePem);
    assert.equal(ext.basic?.ca, true);
    assert.equal(ext.basic?.critical, true);
    assert.equal(ext.keyUsage?.usages, x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign);
    assert.match(ext.ski?.keyId ?? '', /^[0-9a-f]{40}$/);
    assert.equal(cert.publicKey.asymmetricKeyType, 'ec');
    assert.equal(cert.publicKey.asymmetricKeyDetails?.namedCurve, 'prime256v1');
  });

  it('exports a PKCS#8 key that loads back into a CA issuing verifiable certificates', async () => {
    const ca = await CertificateAuthority.create();
    const keyPem = ca.exportPrivateKeyPem();
    assert.match(keyPem, /^-----BEGIN PRIVATE KEY-----\n/);
    const loaded = await CertificateAuthority.load(ca.certificatePem, keyPem);
    const leaf = new X509Certificate(await clientCert(loaded));
    assert.ok(ca.hasIssued(leaf));
    assert.ok(leaf.checkIssued(ca.certificate) && leaf.verify(ca.certificate.publicKey));
  });

  it('refuses to load a key that is not the certificate\'s', async () => {
    const a = await CertificateAuthority.create();
    const b = await CertificateAuthority.create();
    await assert.rejects(CertificateAuthority.load(a.certificatePem, b.exportPrivateKeyPem()), /does not match/);
  });

  it('re-signed from the same key, still verifies what the old certificate issued', async () => {
    const ca = await CertificateAuthority.create();
    const leaf = new X509Certificate(await clientCert(ca));
    const again = await CertificateAuthority.selfSign(ca.exportPrivateKeyPem());
    assert.notEqual(again.certificatePem, ca.certificatePem);
    assert.ok(again.hasIssued(leaf));
  });

  it('works with an RSA key, including one in PKCS#1 form written by other tools', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pkcs1 = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
    assert.match(pkcs1, /BEGIN RSA PRIVATE KEY/);
    const ca = await CertificateAuthority.selfSign(pkcs1);
    const loaded = await CertificateAuthority.load(ca.certificatePem, pkcs1);
    const leaf = new X509Certificate(await clientCert(loaded));
    assert.ok(ca.hasIssued(leaf));
    assert.equal(ca.certificate.publicKey.asymmetricKeyType, 'rsa');
  });

  it('does not log its private key', async () => {
    const { inspect } = await import('node:util');
    const ca = await CertificateAuthority.create();
    const shown = inspect(ca, { depth: 5 }) + JSON.stringify(ca);
    assert.doesNotMatch(shown, /PRIVATE KEY/);
  });
});

describe('CertificateAuthority.issue', () => {
  it('issues a client certificate with the subject, usages, key id and validity asked for', async () => {
    const ca = await CertificateAuthority.create();
    const before = Date.now();
    const pem = await clientCert(ca);
    const cert = new X509Certificate(pem);
    assert.ok(cert.checkIssued(ca.certificate), 'checkIssued');
    assert.ok(cert.verify(ca.certificate.publicKey), 'signature');
    assert.equal(cert.subject, 'O=dev\nO=ops\nCN=alice');
    assert.equal(cert.issuer, 'CN=orch-ca');
    assert.equal(cert.ca, false);
    assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.2']);
    assert.equal(cert.subjectAltName, undefined);
    assertNear(Date.parse(cert.validFrom), before - CLOCK_SKEW_SECONDS * 1000, 2000, 'notBefore in the past');
    assertNear(Date.parse(cert.validTo), before + DAY * 1000, 2000, 'notAfter = now + duration');
    const ext = extensions(pem);
    assert.equal(ext.aki?.keyId, extensions(ca.certificatePem).ski?.keyId);
    assert.equal(ext.keyUsage?.usages, x509.KeyUsageFlags.digitalSignature);
    assert.equal(ext.keyUsage?.critical, true);
    assert.equal(ext.basic?.ca, false);
    assert.equal(ext.ski, null, 'leaf certificates need no subject key id');
  });

  it('uses a fresh positive 128-bit serial each time', async () => {
    const ca = await CertificateAuthority.create();
    const serials = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const serial = new X509Certificate(await clientCert(ca)).serialNumber;
      assert.match(serial, /^[0-7][0-9A-F]{31}$/, 'positive, 16 bytes, minimal encoding');
      assert.notEqual(serial.slice(0, 2), '00');
      serials.add(serial);
    }
    assert.equal(serials.size, 5);
  });

  it('puts DNS and IP SANs (v4 and v6) in a server certificate', async () => {
    const ca = await CertificateAuthority.create();
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const pem = await ca.issue({
      publicKey,
      subject: { commonName: 'orch-apiserver' },
      usages: ['digital signature', 'key encipherment', 'server auth'],
      dnsNames: ['localhost', 'orch.default.svc'],
      ipAddresses: ['127.0.0.1', '::1'],
      durationSeconds: DAY,
    });
    const cert = new X509Certificate(pem);
    assert.equal(cert.subjectAltName, 'DNS:localhost, DNS:orch.default.svc, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
    assert.equal(cert.checkHost('orch.default.svc'), 'orch.default.svc');
    assert.equal(cert.checkIP('::1'), '::1');
    assert.equal(cert.checkIP('10.0.0.1'), undefined);
    assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.1']);
    assert.equal(extensions(pem).keyUsage?.usages, x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment);
  });

  it('accepts the public key as a WebCrypto CryptoKey', async () => {
    const ca = await CertificateAuthority.create();
    const pair = await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-384' }, true, ['sign', 'verify']);
    const cert = new X509Certificate(await ca.issue({ publicKey: pair.publicKey, subject: { commonName: 'p384' }, usages: ['client auth'], durationSeconds: DAY }));
    assert.ok(ca.hasIssued(cert));
    assert.equal(cert.publicKey.asymmetricKeyDetails?.namedCurve, 'secp384r1');
  });

  it('issues for a PKCS#10 CSR, certifying the CSR\'s key', async () => {
    const ca = await CertificateAuthority.create();
    const keys = await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
    const csr = await x509.Pkcs10CertificateRequestGenerator.create({
      name: 'CN=ignored-by-the-signer',
      keys,
      signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
    });
    const pem = await ca.issue({ csr: csr.toString('pem'), subject: { commonName: 'node-1', organizations: ['system:nodes'] }, usages: ['client auth'], durationSeconds: DAY });
    const cert = new X509Certificate(pem);
    assert.ok(ca.hasIssued(cert));
    assert.equal(cert.subject, 'O=system:nodes\nCN=node-1');
    const privateKey = createPrivateKey({ key: Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)), format: 'der', type: 'pkcs8' });
    assert.ok(cert.checkPrivateKey(privateKey), 'certifies the CSR key');
  });

  it('rejects a CSR whose signature does not verify', async () => {
    const ca = await CertificateAuthority.create();
    const keys = await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
    const other = await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
    // A request for one key signed with another: no proof of possession.
    const csr = await x509.Pkcs10CertificateRequestGenerator.create({
      name: 'CN=mallory',
      keys: { publicKey: keys.publicKey, privateKey: other.privateKey },
      signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
    });
    await assert.rejects(
      ca.issue({ csr: csr.toString('pem'), subject: { commonName: 'mallory' }, usages: ['client auth'], durationSeconds: DAY }),
      /CSR signature/,
    );
  });

  it('honours an explicit notBefore and caps notAfter at the CA\'s expiry', async () => {
    const ca = await CertificateAuthority.create({ durationSeconds: 10 * DAY });
    const { publicKeyPem } = await generatePemKeyPair('ecdsa-p256');
    const notBefore = new Date(Math.floor(Date.now() / 1000) * 1000 - 3600_000);
    const short = new X509Certificate(await ca.issue({ publicKey: publicKeyPem, subject: { commonName: 'a' }, usages: ['client auth'], notBefore, durationSeconds: 2 * DAY }));
    assert.equal(Date.parse(short.validFrom), notBefore.getTime());
    assert.equal(Date.parse(short.validTo), notBefore.getTime() + 2 * DAY * 1000);
    const long = new X509Certificate(await ca.issue({ publicKey: publicKeyPem, subject: { commonName: 'a' }, usages: ['client auth'], durationSeconds: 365 * DAY }));
    assert.equal(long.validTo, ca.certificate.validTo);
  });

  it('issues an intermediate CA that can itself issue verifiable certificates', async () => {
    const root = await CertificateAuthority.create();
    const { privateKeyPem, publicKeyPem } = await generatePemKeyPair('ecdsa-p256');
    const pem = await root.issue({ publicKey: publicKeyPem, subject: { commonName: 'orch-intermediate' }, usages: [], durationSeconds: 30 * DAY, isCA: true });
    const ext = extensions(pem);
    assert.equal(ext.basic?.ca, true);
    assert.equal(ext.keyUsage?.usages, x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign);
    assert.ok(ext.ski);
    const intermediate = await CertificateAuthority.load(pem, privateKeyPem);
    const leafPem = await clientCert(intermediate);
    assert.equal(extensions(leafPem).aki?.keyId, ext.ski?.keyId);
    assert.ok(intermediate.hasIssued(new X509Certificate(leafPem)));
    assert.ok(root.hasIssued(intermediate.certificate));
  });

  it('refuses weak keys, unknown usages, bad names and non-positive durations', async () => {
    const ca = await CertificateAuthority.create();
    const weak = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey;
    const good = (await generatePemKeyPair('ecdsa-p256')).publicKeyPem;
    const base = { subject: { commonName: 'x' }, usages: ['client auth'] as CertificateUsage[], durationSeconds: DAY };
    await assert.rejects(ca.issue({ ...base, publicKey: weak }), /at least 2048/);
    await assert.rejects(ca.issue({ ...base, publicKey: good, usages: ['world domination' as CertificateUsage] }), /unknown certificate usage/);
    await assert.rejects(ca.issue({ ...base, publicKey: good, dnsNames: ['10.0.0.1'] }), /invalid DNS name/);
    await assert.rejects(ca.issue({ ...base, publicKey: good, ipAddresses: ['not-an-ip'] }), /invalid IP/);
    await assert.rejects(ca.issue({ ...base, publicKey: good, durationSeconds: 0 }), /durationSeconds/);
  });
});
