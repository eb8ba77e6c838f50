/**
 * The built-in signers, row by row of spec 2.6: each signer's subject, SAN and
 * usage rules (allowed and refused, with the original's messages), and what a
 * signed certificate carries (openssl verify against the CA; openssl x509
 * -text for EKU, KU, SAN, CA:FALSE; request extensions dropped), lifetimes
 * (cluster duration, expirationSeconds, backdating, capped at the CA's expiry).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { X509Certificate } from 'node:crypto';
import { x509 } from '../../src/pki/x509.ts';
import { names } from '../../src/naming/index.ts';
import { parseRequest } from '../../src/certificates/csr-request.ts';
import { builtInSigner, defaultSignerNameFromRequest, defaultSignerNameFromSpec, V1BETA1_DEFAULT_USAGES } from '../../src/certificates/signers/index.ts';
import { BACKDATE_MS, SigningAuthority, keyUsages, validity } from '../../src/certificates/signing-authority.ts';
import { signingDurationMs } from '../../src/controllers/csr-signing-controller.ts';
import { caOnDisk, makeRequest, opensslText, opensslVerify, type CaFiles, type RequestSpec } from './support.ts';

const S = names.signers;
const CLIENT = ['client auth', 'digital signature', 'key encipherment'];
const SERVING = ['digital signature', 'key encipherment', 'server auth'];
const YEAR_MS = 365 * 24 * 3600_000;

let ca: CaFiles;
let authority: SigningAuthority;
before(async () => {
  ca = await caOnDisk();
  authority = await SigningAuthority.load(ca.certFile, ca.keyFile);
});
after(async () => {
  await rm(ca.dir, { recursive: true, force: true });
});

async function check(signer: string, spec: RequestSpec, usages: string[]): Promise<string | undefined> {
  const req = await parseRequest(Buffer.from((await makeRequest(spec)).pem));
  return builtInSigner(signer)!.check(req, usages);
}

async function sign(spec: RequestSpec, usages: string[], ttlMs = YEAR_MS): Promise<string> {
  const req = await parseRequest(Buffer.from((await makeRequest(spec)).pem));
  return authority.sign(req, usages, ttlMs);
}

describe(`${S.apiServerClient}`, () => {
  it('allows any subject with client auth and the optional usages', async () => {
    assert.equal(await check(S.apiServerClient, { subject: 'CN=alice, O=dev, O=ops' }, CLIENT), undefined);
    assert.equal(await check(S.apiServerClient, { subject: 'CN=alice', dns: ['a.example'] }, ['client auth']), undefined);
  });
  it('refuses other usages and a missing client auth', async () => {
    assert.equal(await check(S.apiServerClient, { subject: 'CN=alice' }, ['client auth', 'server auth']), 'invalid usage for client certificate: server auth');
    assert.equal(await check(S.apiServerClient, { subject: 'CN=alice' }, ['digital signature']), 'missing required usage for client certificate: client auth');
  });
  it('signs a client certificate openssl accepts, with CA:FALSE and only SAN and key usages kept', async () => {
    const pem = await sign(
      { subject: 'CN=alice, O=dev', dns: ['alice.example'], extraExtensions: [new x509.BasicConstraintsExtension(true, 3, true)] },
      CLIENT,
    );
    const v = await opensslVerify(ca.certFile, pem, 'sslclient');
    assert.equal(v.code, 0, v.out);
    const text = await opensslText(pem);
    assert.match(text, /Subject: CN ?= ?alice, O ?= ?dev/);
    assert.match(text, /CA:FALSE/);
    assert.doesNotMatch(text, /CA:TRUE|pathlen/);
    assert.match(text, /X509v3 Key Usage: critical\s+Digital Signature, Key Encipherment/);
    assert.match(text, /X509v3 Extended Key Usage:\s+TLS Web Client Authentication\n/);
    assert.match(text, /DNS:alice\.example/);
    assert.match(text, /X509v3 Authority Key Identifier/);
  });
});

describe(`${S.apiServerClientNodeAgent}`, () => {
  const node = 'CN=system:node:n1, O=system:nodes';
  it('allows a node client request with exactly the client usages', async () => {
    assert.equal(await check(S.apiServerClientNodeAgent, { subject: node }, ['key encipherment', 'client auth', 'digital signature']), undefined);
  });
  it('refuses other organizations, user names, any subjectAltName and other usages', async () => {
    const rows: Array<[RequestSpec, string[], string]> = [
      [{ subject: 'CN=system:node:n1, O=other' }, CLIENT, 'subject organization is not system:nodes'],
      [{ subject: 'CN=system:node:n1, O=system:nodes, O=extra' }, CLIENT, 'subject organization is not system:nodes'],
      [{ subject: 'CN=n1, O=system:nodes' }, CLIENT, 'subject common name does not begin with system:node:'],
      [{ subject: node, dns: ['n1'] }, CLIENT, 'DNS subjectAltNames are not allowed'],
      [{ subject: node, emails: ['n1@example.com'] }, CLIENT, 'Email subjectAltNames are not allowed'],
      [{ subject: node, ips: ['10.0.0.1'] }, CLIENT, 'IP subjectAltNames are not allowed'],
      [{ subject: node, uris: ['spiffe://n1'] }, CLIENT, 'URI subjectAltNames are not allowed'],
      [{ subject: node }, ['client auth', 'digital signature'], 'usages did not match [client auth digital signature key encipherment]'],
      [{ subject: node }, [...CLIENT, 'server auth'], 'usages did not match [client auth digital signature key encipherment]'],
    ];
    for (const [spec, usages, message] of rows) assert.equal(await check(S.apiServerClientNodeAgent, spec, usages), message, JSON.stringify(spec));
  });
});

describe(`${S.nodeAgentServing}`, () => {
  const node = 'CN=system:node:n1, O=system:nodes';
  it('allows a node serving request with a DNS or IP name and exactly the serving usages', async () => {
    assert.equal(await check(S.nodeAgentServing, { subject: node, dns: ['n1.example'] }, SERVING), undefined);
    assert.equal(await check(S.nodeAgentServing, { subject: node, ips: ['10.0.0.1'] }, SERVING), undefined);
  });
  it('refuses no names, email or URI names, other subjects and usages', async () => {
    const rows: Array<[RequestSpec, string[], string]> = [
      [{ subject: node }, SERVING, 'DNS or IP subjectAltName is required'],
      [{ subject: node, dns: ['n1'], emails: ['n1@example.com'] }, SERVING, 'Email subjectAltNames are not allowed'],
      [{ subject: node, dns: ['n1'], uris: ['spiffe://n1'] }, SERVING, 'URI subjectAltNames are not allowed'],
      [{ subject: 'CN=system:node:n1, O=other', dns: ['n1'] }, SERVING, 'subject organization is not system:nodes'],
      [{ subject: 'CN=n1, O=system:nodes', dns: ['n1'] }, SERVING, 'subject common name does not begin with system:node:'],
      [{ subject: node, dns: ['n1'] }, CLIENT, 'usages did not match [digital signature key encipherment server auth]'],
    ];
    for (const [spec, usages, message] of rows) assert.equal(await check(S.nodeAgentServing, spec, usages), message, JSON.stringify(spec));
  });
  it('signs a serving certificate openssl accepts for a server, with its DNS and IP names', async () => {
    const pem = await sign({ subject: node, dns: ['n1.example'], ips: ['10.0.0.1'] }, SERVING);
    const v = await opensslVerify(ca.certFile, pem, 'sslserver');
    assert.equal(v.code, 0, v.out);
    const text = await opensslText(pem);
    assert.match(text, /CA:FALSE/);
    assert.match(text, /TLS Web Server Authentication/);
    assert.doesNotMatch(text, /TLS Web Client Authentication/);
    assert.match(text, /DNS:n1\.example, IP Address:10\.0\.0\.1/);
    const bad = await opensslVerify(ca.certFile, pem, 'sslclient');
    assert.notEqual(bad.code, 0, 'a serving certificate is not a client certificate');
  });
});

describe(`${S.legacyUnknown}`, () => {
  it('allows any usages, yet never issues a CA certificate', async () => {
    assert.equal(await check(S.legacyUnknown, { subject: 'CN=anything' }, ['cert sign', 'any']), undefined);
    const pem = await sign({ subject: 'CN=anything', extraExtensions: [new x509.BasicConstraintsExtension(true, undefined, true)] }, ['cert sign', 'any']);
    const text = await opensslText(pem);
    assert.match(text, /CA:FALSE/);
    assert.match(text, /Certificate Sign/);
    assert.match(text, /Any Extended Key Usage/);
    assert.equal((await opensslVerify(ca.certFile, pem)).code, 0);
  });
});

describe('signing', () => {
  it('orders extended usages as Go does and refuses unknown ones', () => {
    assert.deepEqual(keyUsages(['client auth', 'server auth', 'any']).extended, ['2.5.29.37.0', '1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2']);
    assert.throws(() => keyUsages(['client auth', 'bogus']), /unrecognized usage values: \["bogus"\]/);
  });

  it('gives min(cluster duration, expirationSeconds), never under 10 minutes', () => {
    assert.equal(signingDurationMs(YEAR_MS, undefined), YEAR_MS);
    assert.equal(signingDurationMs(YEAR_MS, 3600), 3_600_000);
    assert.equal(signingDurationMs(YEAR_MS, 2 * 365 * 24 * 3600), YEAR_MS);
    assert.equal(signingDurationMs(3_600_000, 7200), 3_600_000);
    assert.equal(signingDurationMs(YEAR_MS, 60), 600_000);
  });

  it('backdates by 5 minutes, the end too unless short-lived, and stops at the CA expiry', () => {
    const now = Date.UTC(2026, 0, 1);
    const far = now + 10 * YEAR_MS;
    assert.deepEqual(validity(now, YEAR_MS, far), { notBefore: now - BACKDATE_MS, notAfter: now + YEAR_MS - BACKDATE_MS });
    assert.deepEqual(validity(now, 3_600_000, far), { notBefore: now - BACKDATE_MS, notAfter: now + 3_600_000 });
    assert.deepEqual(validity(now, YEAR_MS, now + 3_600_000), { notBefore: now - BACKDATE_MS, notAfter: now + 3_600_000 });
    assert.throws(() => validity(now, YEAR_MS, now - 60_000), /refusing to sign a certificate that expired in the past/);
    assert.throws(() => validity(now, YEAR_MS, now - 3_600_000), /the signer has expired/);
  });

  it('signs for the requested lifetime, ending no later than a short-lived CA', async () => {
    const pem = await sign({ subject: 'CN=bob' }, ['client auth'], 3_600_000);
    const c = new X509Certificate(pem);
    const seconds = (Date.parse(c.validTo) - Date.parse(c.validFrom)) / 1000;
    assert.ok(seconds >= 3900 - 1 && seconds <= 3900 + 1, `validity ${seconds}s: 1 h plus the 5 min backdate`);
    const shortCa = await caOnDisk({ durationSeconds: 2 * 24 * 3600 });
    try {
      const a = await SigningAuthority.load(shortCa.certFile, shortCa.keyFile);
      const req = await parseRequest(Buffer.from((await makeRequest({ subject: 'CN=carol' })).pem));
      const leaf = new X509Certificate(await a.sign(req, ['client auth'], YEAR_MS));
      assert.equal(leaf.validTo, new X509Certificate(a.certificatePem).validTo);
    } finally {
      await rm(shortCa.dir, { recursive: true, force: true });
    }
  });
});

describe('v1beta1 default signer', () => {
  it('picks the node signers for node-shaped requests and legacy-unknown otherwise', async () => {
    const p = async (spec: RequestSpec) => parseRequest(Buffer.from((await makeRequest(spec)).pem));
    assert.equal(defaultSignerNameFromRequest(await p({ subject: 'CN=system:node:n1, O=system:nodes' }), CLIENT), S.apiServerClientNodeAgent);
    assert.equal(defaultSignerNameFromRequest(await p({ subject: 'CN=system:node:n1, O=system:nodes', dns: ['n1'] }), SERVING), S.nodeAgentServing);
    assert.equal(defaultSignerNameFromRequest(await p({ subject: 'CN=alice' }), CLIENT), S.legacyUnknown);
    assert.equal(defaultSignerNameFromRequest(undefined, CLIENT), S.legacyUnknown);
  });

  it('works synchronously from spec.request bytes, as a defaulting hook needs', async () => {
    const node = Buffer.from((await makeRequest({ subject: 'CN=system:node:n1, O=system:nodes' })).pem);
    assert.equal(defaultSignerNameFromSpec(node, CLIENT), S.apiServerClientNodeAgent);
    // With the v1beta1 default usages (no client auth) the same request is not a node client one.
    assert.equal(defaultSignerNameFromSpec(node, V1BETA1_DEFAULT_USAGES), S.legacyUnknown);
    assert.equal(defaultSignerNameFromSpec(Buffer.from('garbage'), CLIENT), S.legacyUnknown);
  });
});

describe('requests made by openssl', () => {
  it('an RSA serving request from openssl req is parsed, allowed and signed', async () => {
    const { mkdtemp, readFile } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const { run } = await import('./support.ts');
    const dir = await mkdtemp(join(tmpdir(), 'orch-openssl-req-'));
    try {
      const r = await run('openssl', [
        'req', '-new', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'k.pem'), '-out', join(dir, 'r.csr'),
        '-subj', '/O=system:nodes/CN=system:node:n2', '-addext', 'subjectAltName=DNS:n2.example,IP:10.0.0.2',
      ]);
      assert.equal(r.code, 0, r.stderr);
      const req = await parseRequest(await readFile(join(dir, 'r.csr')));
      assert.equal(req.commonName, 'system:node:n2');
      assert.deepEqual(req.organizations, ['system:nodes']);
      assert.deepEqual([req.dnsNames, req.ipAddresses], [['n2.example'], ['10.0.0.2']]);
      assert.equal(builtInSigner(S.nodeAgentServing)!.check(req, SERVING), undefined);
      const pem = await authority.sign(req, SERVING, YEAR_MS);
      const v = await opensslVerify(ca.certFile, pem, 'sslserver');
      assert.equal(v.code, 0, v.out);
      assert.match(await opensslText(pem), /Public-Key: \(2048 bit\)[\s\S]*DNS:n2\.example, IP Address:10\.0\.0\.2/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a tampered request is refused by the parser', async () => {
    const { pem } = await makeRequest({ subject: 'CN=x' });
    const der = Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
    der[der.length - 3]! ^= 0xff;
    const bad = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
    await assert.rejects(parseRequest(Buffer.from(bad)), /signature of the certificate request does not verify|asn1/);
    await assert.rejects(parseRequest(Buffer.from('junk')), /PEM block type must be CERTIFICATE REQUEST/);
  });
});
