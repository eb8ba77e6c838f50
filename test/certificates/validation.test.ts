/**
 * CSR validation as the original's validation_test.go tables: request bytes,
 * usages, signerName shapes and lengths, expirationSeconds, conditions, and
 * the update paths (/approval changes conditions only, /status the status
 * only, the main resource neither; stored oddities tolerated on update).
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { certificateSigningRequestStrategy as csrStrategy } from '../../src/registry/strategies/certificatesigningrequests.ts';
import type { KObject } from '../../src/registry/object.ts';
import { ctx, lines } from '../registry/strategies/helpers.ts';
import { names } from '../../src/naming/index.ts';
import { makeRequest } from './support.ts';

const b64 = (s: string): string => Buffer.from(s).toString('base64');
const RFC1123 =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

let request = '';
before(async () => {
  request = b64((await makeRequest({ subject: 'O=testing-org' })).pem);
});

function csr(spec: Record<string, unknown>, status?: Record<string, unknown>): KObject {
  const c: KObject = { kind: 'CertificateSigningRequest', metadata: { name: 'testcsr' }, spec: { request, signerName: 'example.com/valid-name', usages: ['key encipherment'], ...spec } };
  if (status) c['status'] = status;
  return c;
}

const validate = (c: KObject): string[] => lines(csrStrategy.validate!(c, ctx()));

describe('CSR create validation (the original table)', () => {
  const a = (n: number): string => 'a'.repeat(n);
  const maxFqdn = `${a(63)}.${a(63)}.${a(63)}.${a(61)}`;
  const maxSigner = `${maxFqdn}/${a(63)}.${a(253)}`;
  const rows: Array<[string, Record<string, unknown>, string[]]> = [
    ['absent request', { request: undefined }, ['spec.request: Invalid value: []byte(nil): PEM block type must be CERTIFICATE REQUEST']],
    ['empty request', { request: '' }, ['spec.request: Invalid value: []byte{}: PEM block type must be CERTIFICATE REQUEST']],
    ['invalid request', { request: b64('invalid data') }, ['spec.request: Invalid value: []byte{0x69, 0x6e, 0x76, 0x61, 0x6c, 0x69, 0x64, 0x20, 0x64, 0x61, 0x74, 0x61}: PEM block type must be CERTIFICATE REQUEST']],
    ['no usages', { usages: [] }, ['spec.usages: Required value']],
    ['no signerName', { signerName: '' }, ['spec.signerName: Required value']],
    ["signerName without '/'", { signerName: 'an-invalid-signer-name' }, ['spec.signerName: Invalid value: "an-invalid-signer-name": must be a fully qualified domain and path of the form \'example.com/signer-name\'']],
    ["signerName with two '/'", { signerName: 'an-invalid-signer-name.com/something/else' }, ['spec.signerName: Invalid value: "an-invalid-signer-name.com/something/else": must be a fully qualified domain and path of the form \'example.com/signer-name\'']],
    ['domain not fully qualified', { signerName: 'example/some-signer-name' }, ['spec.signerName: Invalid value: "example": should be a domain with at least two segments separated by dots']],
    ['empty path', { signerName: 'example.com/' }, [`spec.signerName: Invalid value: "": validating label "": ${RFC1123}`]],
    ['path ends with a symbol', { signerName: 'example.com/something-' }, [`spec.signerName: Invalid value: "something-": validating label "something-": ${RFC1123}`]],
    ['path is a symbol', { signerName: 'example.com/-' }, [`spec.signerName: Invalid value: "-": validating label "-": ${RFC1123}`]],
    ["path without '.'", { signerName: 'example.com/some-signer-name' }, []],
    ['longer path with a short domain', { signerName: `abc.io/${a(253)}.${a(253)}` }, []],
    ['domain label over 63', { signerName: `${a(66)}.example.io/valid-path` }, [`spec.signerName: Invalid value: "${a(66)}.example.io": validating label "${a(66)}": must be no more than 63 characters`]],
    ['max length signerName', { signerName: maxSigner }, []],
    ['legacy signer through v1', { signerName: names.signers.legacyUnknown }, [`spec.signerName: Invalid value: "${names.signers.legacyUnknown}": the legacy signerName is not allowed via this API version`]],
    ['expirationSeconds 599', { expirationSeconds: 599 }, ['spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 600 seconds (10 minutes)']],
    ['expirationSeconds 600', { expirationSeconds: 600 }, []],
  ];
  for (const [name, spec, want] of rows) {
    it(name, () => assert.deepEqual(validate(csr(spec)), want));
  }

  it('signerName over the total length', () => {
    const errs = validate(csr({ signerName: `${maxSigner}.toolong` }));
    assert.deepEqual(errs, [`spec.signerName: Too long: may not be more than ${maxSigner.length} bytes`]);
  });

  it('unknown and duplicate usages', () => {
    const errs = validate(csr({ usages: ['unknown', 'unknown'] }));
    assert.equal(errs.length, 3);
    assert.match(errs[0]!, /^spec\.usages\[0\]: Unsupported value: "unknown": supported values: "any", "cert sign", /);
    assert.match(errs[1]!, /^spec\.usages\[1\]: Unsupported value: "unknown"/);
    assert.equal(errs[2], 'spec.usages[1]: Duplicate value: "unknown"');
  });

  it('conditions: type required, status values, Approved/Denied exclusive, unique types', () => {
    const conds = (c: unknown[]): string[] => validate(csr({}, { conditions: c }));
    assert.deepEqual(conds([{ type: '', status: 'True' }]), ['status.conditions[0].type: Required value']);
    assert.deepEqual(conds([{ type: 'Approved' }]), ['status.conditions[0].status: Required value']);
    assert.deepEqual(conds([{ type: 'Approved', status: 'Unknown' }]), ['status.conditions[0].status: Unsupported value: "Unknown": supported values: "True"']);
    assert.deepEqual(conds([{ type: 'Failed', status: 'False' }]), ['status.conditions[0].status: Unsupported value: "False": supported values: "True"']);
    assert.deepEqual(conds([{ type: 'Custom', status: 'Maybe' }]), ['status.conditions[0].status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown"']);
    assert.deepEqual(conds([{ type: 'Custom', status: 'Unknown' }]), []);
    assert.deepEqual(conds([{ type: 'Denied', status: 'True' }, { type: 'Approved', status: 'True' }]), ['status.conditions[1].type: Invalid value: "Approved": Approved and Denied conditions are mutually exclusive']);
    assert.deepEqual(conds([{ type: 'Custom', status: 'True' }, { type: 'Custom', status: 'False' }]), ['status.conditions[1].type: Duplicate value: "Custom"']);
  });

  it('status.certificate: CERTIFICATE blocks only, no headers', () => {
    const cert = (pem: string): string[] => validate(csr({}, { certificate: b64(pem) }));
    assert.deepEqual(cert('junk'), ['status.certificate: Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block']);
    assert.deepEqual(cert('-----BEGIN CERTIFICATE-----\nProc-Type: 4,ENCRYPTED\n\nAAAA\n-----END CERTIFICATE-----\n'), ['status.certificate: Invalid value: "<certificate data>": no PEM block headers are permitted']);
    assert.deepEqual(cert('-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n'), ['status.certificate: Invalid value: "<certificate data>": only CERTIFICATE PEM blocks are allowed, found "PRIVATE KEY"']);
  });
});

describe('CSR updates', () => {
  it('tolerate stored oddities (duplicate or unknown usages, the legacy signer) when the update keeps them', () => {
    const old = csr({ usages: ['unknown', 'unknown'], signerName: names.signers.legacyUnknown });
    const next = structuredClone(old);
    next.metadata.labels = { a: 'b' };
    assert.deepEqual(lines(csrStrategy.validateUpdate!(next, old, ctx())), []);
  });

  it('/approval changes the conditions only: spec, metadata and certificate stay', () => {
    const old = csr({});
    old.metadata.labels = { keep: 'me' };
    const next = structuredClone(old);
    next.metadata.labels = { changed: 'yes' };
    next['spec'] = { ...(next['spec'] as object), usages: ['server auth'] };
    next['status'] = { conditions: [{ type: 'Approved', status: 'True', reason: 'OK' }], certificate: b64('x') };
    csrStrategy.prepareForUpdate!(next, old, ctx('approval'));
    assert.deepEqual(next.metadata.labels, { keep: 'me' });
    assert.deepEqual((next['spec'] as { usages: string[] }).usages, ['key encipherment']);
    const status = next['status'] as { conditions: Array<{ type: string }>; certificate?: string };
    assert.equal(status.certificate, undefined);
    assert.deepEqual(status.conditions.map((c) => c.type), ['Approved']);
    assert.deepEqual(lines(csrStrategy.validateUpdate!(next, old, ctx('approval'))), []);
  });

  it('no removal of Approved, Denied or Failed, on any path', () => {
    const old = csr({}, { conditions: [{ type: 'Approved', status: 'True' }, { type: 'Failed', status: 'True' }] });
    const next = csr({}, { conditions: [] });
    const errs = lines(csrStrategy.validateUpdate!(next, old, ctx('approval')));
    assert.deepEqual(errs, ['status.conditions: Forbidden: updates may not remove a condition of type "Approved"', 'status.conditions: Forbidden: updates may not remove a condition of type "Failed"']);
  });

  it('the main resource cannot set a certificate or approve', () => {
    const old = csr({});
    const next = csr({}, { conditions: [{ type: 'Approved', status: 'True' }] });
    assert.deepEqual(lines(csrStrategy.validateUpdate!(next, old, ctx())), ['status.conditions: Forbidden: updates may not add a condition of type "Approved"']);
  });
});
