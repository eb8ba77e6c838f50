/**
 * CertificateApproval, CertificateSigning and CertificateSubjectRestriction
 * with the original's test cases (plugin/pkg/admission/certificates/...):
 * the authorizer is asked for `approve`/`sign` on `signers` named by the
 * signer, then by its domain wildcard; an authorizer error refuses.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiGroup, names } from '../../src/naming/index.ts';
import type { KObject } from '../../src/registry/object.ts';
import type { Authorizer, AuthorizationAttributes } from '../../src/authz/types.ts';
import { certificateApproval } from '../../src/admission/plugins/certificate-approval.ts';
import { certificateSigning } from '../../src/admission/plugins/certificate-signing.ts';
import { certificateSubjectRestriction } from '../../src/admission/plugins/certificate-subject-restriction.ts';
import { attrs, b64, csrPem, rt, run } from './misc-support.ts';

const csrs = rt(apiGroup('certificates'), 'v1', 'certificatesigningrequests');
const USER = { name: 'ignored', groups: [] };

/** The original's fakeAuthorizer: allows exactly `verb` on signers named `allowedName`. */
function fakeAuthorizer(verb: string, allowedName: string, fail = false): Authorizer & { seen: AuthorizationAttributes[] } {
  const seen: AuthorizationAttributes[] = [];
  return {
    name: 'fake',
    seen,
    authorize(a) {
      seen.push(a);
      if (fail) throw new Error('forced error');
      const ok = a.verb === verb && a.apiGroup === apiGroup('certificates') && a.apiVersion === '*' && a.resource === 'signers' && a.name === allowedName && a.isResourceRequest;
      return { decision: ok ? 'allow' : 'deny', reason: '' };
    },
  };
}

const csr = (signerName: string, status: Record<string, unknown> = {}): KObject => ({
  apiVersion: `${apiGroup('certificates')}/v1`,
  kind: 'CertificateSigningRequest',
  metadata: { name: 'csr' },
  spec: { signerName },
  status,
});

test('CertificateApproval: the original cases', async () => {
  const cases: Array<{ name: string; allowedName: string; old: KObject | null; next?: KObject; fail?: boolean; allowed: boolean }> = [
    { name: 'wrong type', allowedName: '', old: null, allowed: false },
    { name: 'reject requests if looking up permissions fails', allowedName: 'abc.com/xyz', old: csr('abc.com/xyz'), fail: true, allowed: false },
    { name: 'should allow request if user is authorized for specific signerName', allowedName: 'abc.com/xyz', old: csr('abc.com/xyz'), allowed: true },
    { name: 'should allow request if user is authorized with wildcard', allowedName: 'abc.com/*', old: csr('abc.com/xyz'), allowed: true },
    { name: 'should deny request if user does not have permission for this signerName', allowedName: 'notabc.com/xyz', old: csr('abc.com/xyz'), allowed: false },
    {
      name: 'should deny request if user attempts to update signerName to a new value they *do* have permission to approve for',
      allowedName: 'allowed.com/xyz',
      old: csr('notallowed.com/xyz'),
      next: csr('allowed.com/xyz'),
      allowed: false,
    },
  ];
  for (const c of cases) {
    const plugin = certificateApproval(() => fakeAuthorizer('approve', c.allowedName, c.fail));
    const err = await run(plugin, attrs({ rt: csrs, op: 'UPDATE', sub: 'approval', name: 'csr', obj: c.next ?? c.old, old: c.old, user: USER }));
    assert.equal(err === undefined, c.allowed, c.name);
    if (err) assert.equal(err.code, 403, c.name);
  }
  const denied = await run(certificateApproval(() => fakeAuthorizer('approve', 'x/y')), attrs({ rt: csrs, op: 'UPDATE', sub: 'approval', name: 'csr', obj: csr('abc.com/xyz'), old: csr('abc.com/xyz'), user: USER }));
  assert.equal(denied?.message, `certificatesigningrequests.${apiGroup('certificates')} "csr" is forbidden: user not permitted to approve requests with signerName "abc.com/xyz"`);
  const p = certificateApproval(() => fakeAuthorizer('approve', ''));
  assert.equal(p.handles!(csrs, '', 'UPDATE'), false);
  assert.equal(p.handles!(csrs, 'status', 'UPDATE'), false);
  assert.equal(p.handles!(csrs, 'approval', 'UPDATE'), true);
});

test('CertificateApproval asks for the exact signer, then its domain wildcard', async () => {
  const authz = fakeAuthorizer('approve', 'nothing');
  await run(certificateApproval(() => authz), attrs({ rt: csrs, op: 'UPDATE', sub: 'approval', name: 'csr', obj: csr('example.com/my-signer'), old: csr('example.com/my-signer'), user: USER }));
  assert.deepEqual(authz.seen.map((a) => a.name), ['example.com/my-signer', 'example.com/*']);
});

test('CertificateSigning: the original cases', async () => {
  const cert = { certificate: b64('data') };
  const cases: Array<{ name: string; allowedName: string; old: KObject | null; next: KObject | null; fail?: boolean; allowed: boolean }> = [
    { name: 'wrong type', allowedName: '', old: null, next: null, allowed: false },
    { name: "allowed if the 'certificate' and conditions field has not changed", allowedName: '', old: csr('', cert), next: csr('', cert), fail: true, allowed: true },
    { name: 'deny request if authz lookup fails on certificate change', allowedName: 'abc.com/xyz', old: csr('abc.com/xyz'), next: csr('abc.com/xyz', cert), fail: true, allowed: false },
    {
      name: 'deny request if authz lookup fails on condition change',
      allowedName: 'abc.com/xyz',
      old: csr('abc.com/xyz'),
      next: csr('abc.com/xyz', { conditions: [{ type: 'Failed', status: 'True' }] }),
      fail: true,
      allowed: false,
    },
    { name: 'allow request if user is authorized for specific signerName', allowedName: 'abc.com/xyz', old: csr('abc.com/xyz'), next: csr('abc.com/xyz', cert), allowed: true },
    { name: 'allow request if user is authorized with wildcard', allowedName: 'abc.com/*', old: csr('abc.com/xyz'), next: csr('abc.com/xyz', cert), allowed: true },
    { name: 'should deny request if user does not have permission for this signerName', allowedName: 'notabc.com/xyz', old: csr('abc.com/xyz'), next: csr('abc.com/xyz', cert), allowed: false },
    {
      name: 'should deny request if user attempts to update signerName to a new value they *do* have permission to sign for',
      allowedName: 'allowed.com/xyz',
      old: csr('notallowed.com/xyz'),
      next: csr('allowed.com/xyz', cert),
      allowed: false,
    },
  ];
  for (const c of cases) {
    const plugin = certificateSigning(() => fakeAuthorizer('sign', c.allowedName, c.fail));
    const err = await run(plugin, attrs({ rt: csrs, op: 'UPDATE', sub: 'status', name: 'csr', obj: c.next, old: c.old, user: USER }));
    assert.equal(err === undefined, c.allowed, c.name);
  }
  const denied = await run(certificateSigning(() => fakeAuthorizer('sign', 'x/y')), attrs({ rt: csrs, op: 'UPDATE', sub: 'status', name: 'csr', obj: csr('abc.com/xyz', cert), old: csr('abc.com/xyz'), user: USER }));
  assert.equal(denied?.message, `certificatesigningrequests.${apiGroup('certificates')} "csr" is forbidden: user not permitted to sign requests with signerName "abc.com/xyz"`);
});

test('CertificateSubjectRestriction: the original cases', async () => {
  const masters = b64(await csrPem('O=system:masters'));
  const admin = b64(await csrPem('O=system:admin'));
  const group = apiGroup('certificates');
  const client = names.signers.apiServerClient;
  const req = (request: string, signerName: string): KObject => ({ apiVersion: `${group}/v1`, kind: 'CertificateSigningRequest', metadata: {}, spec: { request, signerName } });
  const plugin = certificateSubjectRestriction();
  const cases: Array<{ name: string; a: Parameters<typeof attrs>[0]; wantErr: string }> = [
    { name: 'ignored resource', a: { rt: rt('', 'v1', 'configmaps'), op: 'CREATE' }, wantErr: '' },
    { name: 'ignored subresource', a: { rt: csrs, sub: 'approval', op: 'CREATE' }, wantErr: '' },
    { name: 'some other signer', a: { rt: csrs, op: 'CREATE', obj: req(masters, names.signers.apiServerClientNodeAgent) }, wantErr: '' },
    {
      name: 'invalid request',
      a: { rt: csrs, op: 'CREATE', name: 'bear', obj: req(b64('this is not a CSR'), client) },
      wantErr: `certificatesigningrequests.${group} "bear" is forbidden: failed to parse CSR: PEM block type must be CERTIFICATE REQUEST`,
    },
    { name: 'some other group', a: { rt: csrs, op: 'CREATE', obj: req(admin, client) }, wantErr: '' },
    {
      name: 'request for system:masters',
      a: { rt: csrs, op: 'CREATE', name: 'pooh', obj: req(masters, client) },
      wantErr: `certificatesigningrequests.${group} "pooh" is forbidden: use of ${client} signer with system:masters group is not allowed`,
    },
  ];
  for (const c of cases) {
    const err = await run(plugin, attrs(c.a));
    assert.equal(err?.message ?? '', c.wantErr, c.name);
  }
});
