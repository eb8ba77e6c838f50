/** CertificateSigningRequests (spec 2.6): identity from the request, PKCS#10 checks, usages, signer, conditions, subresources. */
import 'reflect-metadata';
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { certificateSigningRequestStrategy as csrStrategy } from '../../../src/registry/strategies/certificatesigningrequests.ts';
import { checkCertificateRequestPem, checkIssuedCertificates } from '../../../src/registry/strategies/csr-pem.ts';
import { NOW, ctx, lines } from './helpers.ts';
import type { KObject } from '../../../src/registry/object.ts';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

let ecRequestPem = '';
let rsaRequestPem = '';
let certificatePem = '';

before(async () => {
  const ec = await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
  ecRequestPem = (await x509.Pkcs10CertificateRequestGenerator.create({ name: 'CN=alice', keys: ec, signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' } })).toString('pem');
  const rsa = await webcrypto.subtle.generateKey(
    { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
    true,
    ['sign', 'verify'],
  );
  rsaRequestPem = (await x509.Pkcs10CertificateRequestGenerator.create({ name: 'CN=bob', keys: rsa, signingAlgorithm: { name: 'RSASSA-PKCS1-v1_5' } })).toString('pem');
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01', name: 'CN=ca', notBefore: new Date('2025-01-01'), notAfter: new Date('2026-01-01'),
    keys: ec, signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
  });
  certificatePem = cert.toString('pem');
});

const b64 = (s: string | Buffer): string => Buffer.from(s).toString('base64');

function csr(spec: Record<string, unknown> = {}): KObject {
  return {
    kind: 'CertificateSigningRequest',
    metadata: { name: 'alice' },
    spec: { request: b64(ecRequestPem), signerName: 'orch.io/orch-apiserver-client', usages: ['client auth', 'digital signature'], ...spec },
  };
}

function created(spec: Record<string, unknown> = {}): KObject {
  const c = csr(spec);
  csrStrategy.defaults?.(c);
  csrStrategy.prepareForCreate?.(c, ctx());
  return c;
}

describe('request bytes', () => {
  it('verify ECDSA and RSA requests', () => {
    assert.equal(checkCertificateRequestPem(Buffer.from(ecRequestPem)), undefined);
    assert.equal(checkCertificateRequestPem(Buffer.from(rsaRequestPem)), undefined);
    assert.equal(checkCertificateRequestPem(Buffer.from(`some text before\n${ecRequestPem}`)), undefined);
  });

  it('refuse a non-request PEM or a bad signature', () => {
    assert.equal(checkCertificateRequestPem(Buffer.from('hello')), 'PEM block type must be CERTIFICATE REQUEST');
    assert.equal(checkCertificateRequestPem(Buffer.from(certificatePem)), 'PEM block type must be CERTIFICATE REQUEST');
    const der = Buffer.from(ecRequestPem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
    der[der.length - 3] ^= 0xff;
    const tampered = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
    assert.equal(checkCertificateRequestPem(Buffer.from(tampered)), 'x509: ECDSA verification failure');
  });

  it('check issued certificates', () => {
    assert.equal(checkIssuedCertificates(Buffer.from(certificatePem)), undefined);
    assert.equal(checkIssuedCertificates(Buffer.from(`chain:\n${certificatePem}${certificatePem}`)), undefined);
    assert.equal(checkIssuedCertificates(Buffer.from('junk')), 'must contain at least one CERTIFICATE PEM block');
    assert.equal(checkIssuedCertificates(Buffer.from(ecRequestPem)), 'only CERTIFICATE PEM blocks are allowed, found "CERTIFICATE REQUEST"');
  });
});

describe('csr create', () => {
  it('records the requester and clears status', () => {
    const c = csr({ username: 'mallory', groups: ['system:masters'] });
    c['status'] = { conditions: [{ type: 'Approved', status: 'True' }] };
    csrStrategy.defaults?.(c);
    csrStrategy.prepareForCreate?.(c, ctx());
    const spec = c['spec'] as Record<string, unknown>;
    assert.equal(spec['username'], 'alice');
    assert.equal(spec['uid'], 'u-1');
    assert.deepEqual(spec['groups'], ['dev', 'system:authenticated']);
    assert.deepEqual(c['status'], {});
    assert.deepEqual(csrStrategy.validate!(c, ctx()), []);
  });

  it('requires a valid request, usages and a signer', () => {
    const errs = csrStrategy.validate!(created({ request: b64('nope'), usages: [], signerName: '' }), ctx());
    assert.deepEqual(errs.map((e) => e.field), ['spec.request', 'spec.usages', 'spec.signerName']);
    assert.equal(errs[0]!.message, 'Invalid value: []byte{0x6e, 0x6f, 0x70, 0x65}: PEM block type must be CERTIFICATE REQUEST');
    assert.equal(errs[1]!.message, 'Required value');
    assert.equal(errs[2]!.message, 'Required value');
  });

  it('refuses unknown and duplicate usages', () => {
    const errs = lines(csrStrategy.validate!(created({ usages: ['client auth', 'teleport', 'client auth'] }), ctx()));
    assert.match(errs[0]!, /^spec\.usages\[1\]: Unsupported value: "teleport": supported values: "any", "cert sign", "client auth", /);
    assert.equal(errs[1], 'spec.usages[2]: Duplicate value: "client auth"');
  });

  it('refuses the legacy signer, malformed signers and short lifetimes', () => {
    assert.deepEqual(lines(csrStrategy.validate!(created({ signerName: 'orch.io/legacy-unknown' }), ctx())), [
      'spec.signerName: Invalid value: "orch.io/legacy-unknown": the legacy signerName is not allowed via this API version',
    ]);
    assert.deepEqual(lines(csrStrategy.validate!(created({ signerName: 'mysigner' }), ctx())), [
      "spec.signerName: Invalid value: \"mysigner\": must be a fully qualified domain and path of the form 'example.com/signer-name'",
    ]);
    assert.deepEqual(lines(csrStrategy.validate!(created({ signerName: 'example/signer' }), ctx())), [
      'spec.signerName: Invalid value: "example": should be a domain with at least two segments separated by dots',
    ]);
    assert.deepEqual(lines(csrStrategy.validate!(created({ expirationSeconds: 599 }), ctx())), [
      'spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 600 seconds (10 minutes)',
    ]);
    assert.deepEqual(csrStrategy.validate!(created({ expirationSeconds: 600 }), ctx()), []);
  });
});

describe('csr updates', () => {
  const approved = [{ type: 'Approved', status: 'True', reason: 'AutoApproved' }];

  it('keep spec and status on the main resource', () => {
    const old = created();
    const next = structuredClone(old);
    (next['spec'] as Record<string, unknown>)['usages'] = ['server auth'];
    next['status'] = { conditions: approved };
    next.metadata.labels = { a: 'b' };
    csrStrategy.defaults?.(next);
    csrStrategy.prepareForUpdate?.(next, old, ctx());
    assert.deepEqual(next['spec'], old['spec']);
    assert.deepEqual(next['status'], old['status']);
    assert.deepEqual(csrStrategy.validateUpdate!(next, old, ctx()), []);
  });

  it('approve through /approval, with timestamps and a True default', () => {
    const old = created();
    const next = structuredClone(old);
    next['status'] = { conditions: [{ type: 'Approved', reason: 'ok' }], certificate: b64(certificatePem) };
    csrStrategy.defaults?.(next);
    csrStrategy.prepareForUpdate?.(next, old, ctx('approval'));
    assert.deepEqual(next['status'], { conditions: [{ type: 'Approved', reason: 'ok', status: 'True', lastUpdateTime: NOW, lastTransitionTime: NOW }] });
    assert.deepEqual(csrStrategy.validateUpdate!(next, old, ctx('approval')), []);
  });

  it('refuse approval through /status, and both Approved and Denied', () => {
    const old = created();
    const viaStatus = structuredClone(old);
    viaStatus['status'] = { conditions: approved };
    csrStrategy.defaults?.(viaStatus);
    csrStrategy.prepareForUpdate?.(viaStatus, old, ctx('status'));
    assert.deepEqual(lines(csrStrategy.validateUpdate!(viaStatus, old, ctx('status'))), ['status.conditions: Forbidden: updates may not add a condition of type "Approved"']);
    const both = structuredClone(old);
    both['status'] = { conditions: [...approved, { type: 'Denied', status: 'True' }] };
    const errs = lines(csrStrategy.validateUpdate!(both, old, ctx('approval')));
    assert.deepEqual(errs, ['status.conditions[1].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive']);
  });

  it('refuse duplicate condition types and non-True approvals', () => {
    const old = created();
    const dup = structuredClone(old);
    dup['status'] = { conditions: [{ type: 'Failed', status: 'True' }, { type: 'Failed', status: 'True' }] };
    assert.deepEqual(lines(csrStrategy.validateUpdate!(dup, old, ctx('status'))), ['status.conditions[1].type: Duplicate value: "Failed"']);
    const falseApproval = structuredClone(old);
    falseApproval['status'] = { conditions: [{ type: 'Approved', status: 'False' }] };
    assert.deepEqual(lines(csrStrategy.validateUpdate!(falseApproval, old, ctx('approval'))), [
      'status.conditions[0].status: Unsupported value: "False": supported values: "True"',
    ]);
  });

  it('let /status set the certificate once, and only /status', () => {
    const old = created();
    old['status'] = { conditions: approved };
    const issued = structuredClone(old);
    (issued['status'] as Record<string, unknown>)['certificate'] = b64(certificatePem);
    csrStrategy.defaults?.(issued);
    csrStrategy.prepareForUpdate?.(issued, old, ctx('status'));
    assert.deepEqual(csrStrategy.validateUpdate!(issued, old, ctx('status')), []);
    const again = structuredClone(issued);
    (again['status'] as Record<string, unknown>)['certificate'] = b64(`${certificatePem}${certificatePem}`);
    assert.deepEqual(lines(csrStrategy.validateUpdate!(again, issued, ctx('status'))), [
      'status.certificate: Forbidden: updates may not modify existing certificate content',
    ]);
    const garbage = structuredClone(old);
    (garbage['status'] as Record<string, unknown>)['certificate'] = b64('garbage');
    assert.deepEqual(lines(csrStrategy.validateUpdate!(garbage, old, ctx('status'))), [
      'status.certificate: Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block',
    ]);
  });
});
