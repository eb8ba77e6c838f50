/**
 * kubectl's typed CSR commands against the kubernetes flavor (kubectl has
 * certificates.k8s.io compiled in): `kubectl certificate approve` then the
 * controller signs (kubernetes.io/kube-apiserver-client-kubelet for a node),
 * `kubectl get csr` shows Approved,Issued; `kubectl certificate deny` leaves a
 * Denied request unsigned.
 */
import '../support/kubernetes-flavor.ts';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { makeRequest, opensslText, opensslVerify } from './support.ts';

let ts: TestServer;
before(async () => {
  ts = await startTestServer([
    // The auto-approver would approve the admin's node client request itself: this test approves by hand.
    '--controllers=*,-csrapproving',
    '--leader-elect-lease-duration=3s', '--leader-elect-renew-deadline=2s', '--leader-elect-retry-period=200ms']);
});
after(async () => {
  await ts.stop();
});

async function create(name: string, subject: string, signerName: string, usages: string[]): Promise<void> {
  const req = await makeRequest({ subject });
  const yaml = [
    'apiVersion: certificates.k8s.io/v1',
    'kind: CertificateSigningRequest',
    `metadata: { name: ${name} }`,
    'spec:',
    `  request: ${Buffer.from(req.pem).toString('base64')}`,
    `  signerName: ${signerName}`,
    `  usages: [${usages.map((u) => JSON.stringify(u)).join(', ')}]`,
    '',
  ].join('\n');
  const r = await ts.kubectl(['create', '-f', '-'], { input: yaml });
  assert.equal(r.code, 0, r.stderr);
}

describe('kubectl certificate approve / deny (kubernetes flavor)', () => {
  it('approve: the node client certificate is issued', async () => {
    await create('node-n1', 'CN=system:node:n1, O=system:nodes', 'kubernetes.io/kube-apiserver-client-kubelet', ['digital signature', 'key encipherment', 'client auth']);
    const pending = await ts.kubectl(['get', 'csr', 'node-n1']);
    assert.match(pending.stdout, /node-n1\s+\S+\s+kubernetes\.io\/kube-apiserver-client-kubelet\s+admin\s+<none>\s+Pending/);
    const approve = await ts.kubectl(['certificate', 'approve', 'node-n1']);
    assert.equal(approve.code, 0, approve.stderr);
    assert.match(approve.stdout, /certificatesigningrequest\.certificates\.k8s\.io\/node-n1 approved/);
    const deadline = Date.now() + 30_000;
    let cert = '';
    while (cert === '' && Date.now() < deadline) {
      cert = (await ts.kubectl(['get', 'csr', 'node-n1', '-o', 'jsonpath={.status.certificate}'])).stdout.trim();
      if (cert === '') await new Promise((r) => setTimeout(r, 200));
    }
    assert.notEqual(cert, '', 'the certificate appears');
    const pem = Buffer.from(cert, 'base64').toString();
    assert.equal((await opensslVerify(ts.server.files.caCertPath, pem, 'sslclient')).code, 0);
    const text = await opensslText(pem);
    assert.match(text, /Subject: CN ?= ?system:node:n1, O ?= ?system:nodes/);
    assert.match(text, /CA:FALSE/);
    assert.doesNotMatch(text, /Subject Alternative Name/);
    const listed = await ts.kubectl(['get', 'csr', 'node-n1']);
    assert.match(listed.stdout, /Approved,Issued/);
    const reason = await ts.kubectl(['get', 'csr', 'node-n1', '-o', 'jsonpath={.status.conditions[0].reason}']);
    assert.equal(reason.stdout, 'KubectlApprove');
  });

  it('deny: the request stays unsigned, and approving it afterwards is refused', async () => {
    await create('bob', 'CN=bob', 'kubernetes.io/kube-apiserver-client', ['client auth']);
    const deny = await ts.kubectl(['certificate', 'deny', 'bob']);
    assert.equal(deny.code, 0, deny.stderr);
    assert.match(deny.stdout, /certificatesigningrequest\.certificates\.k8s\.io\/bob denied/);
    const listed = await ts.kubectl(['get', 'csr', 'bob']);
    assert.match(listed.stdout, /\bDenied\b/);
    const approve = await ts.kubectl(['certificate', 'approve', 'bob']);
    assert.notEqual(approve.code, 0, 'kubectl refuses to approve a denied request');
    assert.match(approve.stderr, /is already Denied/);
    const cert = await ts.kubectl(['get', 'csr', 'bob', '-o', 'jsonpath={.status.certificate}']);
    assert.equal(cert.stdout.trim(), '');
  });
});
