import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { X509Authenticator, type X509AuthenticatorOptions } from '../../src/authn/x509.ts';
import { parseCertificate, type ParsedCertificate } from '../../src/authn/certificate.ts';
import type { AuthResult } from '../../src/authn/types.ts';
import { EKU, issue, x509, type Issued } from './support/pki.ts';
import { fakeRequest } from './support/request.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

interface Pki {
  root: Issued;
  inter: Issued;
  alice: Issued; // CN=alice, O=dev, O=ops, clientAuth, issued by inter
  direct: Issued; // issued by root, no EKU
  anyEku: Issued;
  serverOnly: Issued;
  expired: Issued;
  notYet: Issued;
  shortLived: Issued; // notAfter in one hour
  noCN: Issued;
  otherRoot: Issued;
  fromOther: Issued;
  impostorRoot: Issued; // same name as root, different key
  fromImpostor: Issued;
  signedByLeaf: Issued; // issued by alice, who is no CA
  pathRoot: Issued; // pathLen 0
  pathInter: Issued;
  pathLeaf: Issued;
  criticalUnknown: Issued;
  serverInter: Issued; // CA limited to serverAuth
  underServerInter: Issued;
}

let pki: Pki;

before(async () => {
  const now = Date.now();
  const root = await issue({ subject: 'CN=root-ca', ca: true });
  const inter = await issue({ subject: 'CN=intermediate-ca', ca: true, issuer: root });
  const alice = await issue({ subject: 'CN=alice, O=dev, O=ops', issuer: inter, eku: [EKU.clientAuth] });
  const otherRoot = await issue({ subject: 'CN=other-ca', ca: true });
  const impostorRoot = await issue({ subject: 'CN=root-ca', ca: true });
  const pathRoot = await issue({ subject: 'CN=path-root', ca: true, pathLength: 0 });
  const pathInter = await issue({ subject: 'CN=path-inter', ca: true, issuer: pathRoot });
  const serverInter = await issue({ subject: 'CN=server-inter', ca: true, issuer: root, eku: [EKU.serverAuth] });
  pki = {
    root,
    inter,
    alice,
    direct: await issue({ subject: 'CN=bob, O=qa', issuer: root }),
    anyEku: await issue({ subject: 'CN=carol', issuer: root, eku: [EKU.any] }),
    serverOnly: await issue({ subject: 'CN=web.example', issuer: root, eku: [EKU.serverAuth] }),
    expired: await issue({ subject: 'CN=old', issuer: root, eku: [EKU.clientAuth], notBefore: new Date(now - 10 * DAY), notAfter: new Date(now - DAY) }),
    notYet: await issue({ subject: 'CN=future', issuer: root, notBefore: new Date(now + DAY), notAfter: new Date(now + 10 * DAY) }),
    shortLived: await issue({ subject: 'CN=brief', issuer: root, notAfter: new Date(now + HOUR) }),
    noCN: await issue({ subject: 'O=nobody', issuer: root }),
    otherRoot,
    fromOther: await issue({ subject: 'CN=mallory', issuer: otherRoot, eku: [EKU.clientAuth] }),
    impostorRoot,
    fromImpostor: await issue({ subject: 'CN=mallory', issuer: impostorRoot }),
    signedByLeaf: await issue({ subject: 'CN=eve', issuer: alice }),
    pathRoot,
    pathInter,
    pathLeaf: await issue({ subject: 'CN=deep', issuer: pathInter }),
    criticalUnknown: await issue({
      subject: 'CN=odd',
      issuer: root,
      extraExtensions: [new x509.Extension('1.3.6.1.4.1.99999.1', true, new Uint8Array([0x05, 0x00]))],
    }),
    serverInter,
    underServerInter: await issue({ subject: 'CN=dave', issuer: serverInter, eku: [EKU.clientAuth] }),
  };
});

function authenticator(extra: Partial<X509AuthenticatorOptions> = {}): X509Authenticator {
  return new X509Authenticator({ clientCA: [pki.root.der, pki.pathRoot.der], ...extra });
}

function auth(a: X509Authenticator, ...chain: Issued[]): AuthResult {
  return a.authenticate(fakeRequest({ peerCertificates: chain.map((c) => c.der) })) as AuthResult;
}

function invalidMessage(result: AuthResult): string {
  assert.equal(result.kind, 'invalid', `expected invalid, got ${JSON.stringify(result)}`);
  return (result as { message: string }).message;
}

describe('x509 client certificate authenticator', () => {
  it('has no opinion without a client certificate', () => {
    const a = authenticator();
    assert.deepEqual(a.authenticate(fakeRequest()), { kind: 'none' });
    assert.deepEqual(a.authenticate(fakeRequest({ peerCertificates: [] })), { kind: 'none' });
  });

  it('maps CN to the user name and every O to groups, through an intermediate', () => {
    const result = auth(authenticator(), pki.alice, pki.inter);
    assert.deepEqual(result, { kind: 'user', user: { name: 'alice', groups: ['dev', 'ops'] }, method: 'x509' });
  });

  it('accepts a certificate without extended key usage, or with "any"', () => {
    const a = authenticator();
    assert.deepEqual(auth(a, pki.direct), { kind: 'user', user: { name: 'bob', groups: ['qa'] }, method: 'x509' });
    assert.equal(auth(a, pki.anyEku).kind, 'user');
  });

  it('rejects a chain missing its intermediate as signed by an unknown authority', () => {
    assert.equal(invalidMessage(auth(authenticator(), pki.alice)), 'x509: certificate signed by unknown authority');
  });

  it('rejects a certificate from another CA', () => {
    assert.equal(invalidMessage(auth(authenticator(), pki.fromOther)), 'x509: certificate signed by unknown authority');
  });

  it('names the candidate authority whose signature did not match, as Go does', () => {
    assert.equal(
      invalidMessage(auth(authenticator(), pki.fromImpostor)),
      'x509: certificate signed by unknown authority (possibly because of "x509: ECDSA verification failure" while trying to verify candidate authority certificate "root-ca")',
    );
  });

  it('rejects an expired certificate and one not yet valid', () => {
    const a = authenticator();
    assert.match(invalidMessage(auth(a, pki.expired)), /^x509: certificate has expired or is not yet valid: current time \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ is after \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.match(invalidMessage(auth(a, pki.notYet)), /^x509: certificate has expired or is not yet valid: current time \S+ is before \S+$/);
  });

  it('rejects a certificate usable only for server authentication', () => {
    assert.equal(invalidMessage(auth(authenticator(), pki.serverOnly)), 'x509: certificate specifies an incompatible key usage');
  });

  it('applies an intermediate CA\'s extended key usage limits to what it issued', () => {
    assert.equal(
      invalidMessage(auth(authenticator(), pki.underServerInter, pki.serverInter)),
      'x509: certificate specifies an incompatible key usage',
    );
  });

  it('refuses a certificate signed by a non-CA certificate', () => {
    assert.equal(
      invalidMessage(auth(authenticator(), pki.signedByLeaf, pki.alice, pki.inter)),
      'x509: certificate signed by unknown authority (possibly because of "x509: invalid signature: parent certificate cannot sign this kind of certificate" while trying to verify candidate authority certificate "alice")',
    );
  });

  it('enforces path length constraints', () => {
    assert.equal(invalidMessage(auth(authenticator(), pki.pathLeaf, pki.pathInter)), 'x509: too many intermediates for path length constraint');
  });

  it('refuses certificates with unknown critical extensions', () => {
    assert.equal(invalidMessage(auth(authenticator(), pki.criticalUnknown)), 'x509: unhandled critical extension');
  });

  it('has no opinion on a verified certificate without a common name', () => {
    assert.deepEqual(auth(authenticator(), pki.noCN), { kind: 'none' });
  });

  it('rejects bytes that are not a certificate', () => {
    const result = authenticator().authenticate(fakeRequest({ peerCertificates: [new Uint8Array([0x30, 0x03, 0x02, 0x01, 0x01])] }));
    assert.match(invalidMessage(result as AuthResult), /^x509: malformed certificate/);
  });

  it('ignores junk certificates offered alongside a good chain', () => {
    assert.equal(auth(authenticator(), pki.alice, pki.fromOther, pki.inter).kind, 'user');
  });

  it('trusts a leaf that is itself in the CA bundle only if it may be used for client auth', () => {
    const a = new X509Authenticator({ clientCA: [pki.direct.der, pki.serverOnly.der] });
    assert.equal(auth(a, pki.direct).kind, 'user');
    assert.equal(invalidMessage(auth(a, pki.serverOnly)), 'x509: certificate specifies an incompatible key usage');
  });

  it('refuses to start with an empty or unparsable CA bundle', () => {
    assert.throws(() => new X509Authenticator({ clientCA: [] }), /no certificates/);
    assert.throws(() => new X509Authenticator({ clientCA: [new Uint8Array([1, 2, 3])] }), /client CA certificate 1: x509: malformed certificate/);
  });
});

describe('x509 verification cache', () => {
  function counting(): { parse: (der: Uint8Array) => ParsedCertificate; count: () => number } {
    let n = 0;
    return {
      parse: (der) => {
        n++;
        return parseCertificate(der);
      },
      count: () => n,
    };
  }

  it('answers a repeated chain without parsing or verifying it again', () => {
    const c = counting();
    const a = authenticator({ parseCertificate: c.parse });
    const afterRoots = c.count();
    const first = auth(a, pki.alice, pki.inter);
    assert.equal(c.count() - afterRoots, 2);
    const second = auth(a, pki.alice, pki.inter);
    assert.equal(c.count() - afterRoots, 2, 'second request must hit the cache');
    assert.deepEqual(second, first);
  });

  it('keys the cache on the whole presented chain, not the leaf alone', () => {
    const c = counting();
    const a = authenticator({ parseCertificate: c.parse });
    assert.equal(auth(a, pki.alice).kind, 'invalid');
    assert.equal(auth(a, pki.alice, pki.inter).kind, 'user');
  });

  it('stops using a cached identity once the certificate expires', () => {
    let now = Date.now();
    const c = counting();
    const a = authenticator({ parseCertificate: c.parse, now: () => now });
    assert.equal(auth(a, pki.shortLived).kind, 'user');
    const parses = c.count();
    now += 30 * 60_000;
    assert.equal(auth(a, pki.shortLived).kind, 'user');
    assert.equal(c.count(), parses, 'still cached half an hour later');
    now += 31 * 60_000;
    assert.match(invalidMessage(auth(a, pki.shortLived)), /has expired or is not yet valid: current time .* is after/);
    assert.equal(c.count(), parses + 1, 'verified again after notAfter');
  });

  it('remembers failures only briefly', () => {
    let now = Date.now();
    const c = counting();
    const a = authenticator({ parseCertificate: c.parse, now: () => now, failureTtlMs: 5_000 });
    auth(a, pki.fromOther);
    const parses = c.count();
    auth(a, pki.fromOther);
    assert.equal(c.count(), parses, 'failure cached');
    now += 5_001;
    assert.equal(auth(a, pki.fromOther).kind, 'invalid');
    assert.equal(c.count(), parses + 1, 'failure re-verified after its TTL');
  });

  it('lets a certificate that was not yet valid succeed once it is', () => {
    let now = Date.now();
    const a = authenticator({ now: () => now, failureTtlMs: 1_000 });
    assert.equal(auth(a, pki.notYet).kind, 'invalid');
    now += 2 * DAY;
    assert.deepEqual(auth(a, pki.notYet), { kind: 'user', user: { name: 'future', groups: [] }, method: 'x509' });
  });

  it('is bounded: the least recently used chain is evicted', () => {
    const c = counting();
    const a = authenticator({ parseCertificate: c.parse, cacheSize: 1 });
    auth(a, pki.direct);
    auth(a, pki.anyEku);
    const parses = c.count();
    auth(a, pki.direct);
    assert.equal(c.count(), parses + 1, 'evicted entry is verified again');
  });
});

describe('X509Authenticator.fromFile', () => {
  it('loads every certificate of a PEM bundle, skipping other blocks', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'x509-'));
    try {
      const file = join(dir, 'ca.pem');
      const junk = '-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n';
      await writeFile(file, `${junk}${pki.otherRoot.pem}\n${pki.root.pem}\n`);
      const a = await X509Authenticator.fromFile(file);
      assert.equal(auth(a, pki.alice, pki.inter).kind, 'user');
      assert.equal(auth(a, pki.fromOther).kind, 'user');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('fails start-up on a missing file or a bundle without certificates', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'x509-'));
    try {
      await assert.rejects(X509Authenticator.fromFile(join(dir, 'missing.pem')), /unable to load client CA file/);
      const empty = join(dir, 'empty.pem');
      await writeFile(empty, 'no certificates here\n');
      await assert.rejects(X509Authenticator.fromFile(empty), /unable to load client CA file ".*empty\.pem": data does not contain any valid RSA or ECDSA certificates/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
