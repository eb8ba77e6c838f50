/**
 * The CSR workflow against a real server (RBAC on): a request is created
 * pending, approved through /approval, signed by the server's controller with
 * the data dir's CA for min(1 year, expirationSeconds); the requester then
 * calls the server with its new certificate and is known by its common name
 * (the secure port; the uWS listener cannot see client certificates, so
 * there the same connection is anonymous). A request the signer's rules
 * refuse gets a Failed condition; a denied one is never signed.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import { readFile } from 'node:fs/promises';
import { X509Certificate } from 'node:crypto';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { apiGroup, names } from '../../src/naming/index.ts';
import { makeRequest, opensslText, opensslVerify } from './support.ts';

const CSRS = `/apis/${apiGroup('certificates')}/v1/certificatesigningrequests`;
const CLIENT = ['client auth', 'digital signature', 'key encipherment'];

interface Csr {
  metadata: { name: string; labels?: Record<string, string> };
  spec: { username?: string; signerName: string };
  status?: { certificate?: string; conditions?: Array<{ type: string; status: string; reason?: string; message?: string }> };
}

let ts: TestServer;
before(async () => {
  ts = await startTestServer(['--authorization-mode=Node,RBAC', '--leader-elect-lease-duration=3s', '--leader-elect-renew-deadline=2s', '--leader-elect-retry-period=200ms']);
});
after(async () => {
  await ts.stop();
});

async function createCsr(name: string, subject: string, signerName: string, usages: string[], extra: Record<string, unknown> = {}) {
  const req = await makeRequest({ subject });
  const res = await ts.request('POST', CSRS, { apiVersion: `${apiGroup('certificates')}/v1`, kind: 'CertificateSigningRequest', metadata: { name }, spec: { request: Buffer.from(req.pem).toString('base64'), signerName, usages, ...extra } });
  assert.equal(res.status, 201, res.body);
  return { csr: res.json<Csr>(), keyPem: req.keyPem };
}

async function setCondition(name: string, type: 'Approved' | 'Denied'): Promise<void> {
  const cur = (await ts.request('GET', `${CSRS}/${name}`)).json<Csr>();
  cur.status = { conditions: [{ type, status: 'True', reason: `Test${type}`, message: 'by the test' }] };
  const res = await ts.request('PUT', `${CSRS}/${name}/approval`, cur);
  assert.equal(res.status, 200, res.body);
}

async function waitFor(name: string, pred: (c: Csr) => boolean, what: string): Promise<Csr> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const c = (await ts.request('GET', `${CSRS}/${name}`)).json<Csr>();
    if (pred(c)) return c;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(c.status)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function get(port: number, path: string, cert: string, key: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    void readFile(ts.server.files.caCertPath).then((ca) => {
      const req = https.request({ host: '127.0.0.1', port, path, method: 'GET', ca, cert, key, servername: 'localhost', agent: false, headers: { accept: 'application/json' } }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    }, reject);
  });
}

describe('CSR signing end to end', () => {
  it('signs an approved client request; the certificate authenticates its subject on the secure port', async () => {
    const { csr, keyPem } = await createCsr('alice', 'CN=alice, O=dev', names.signers.apiServerClient, CLIENT, { expirationSeconds: 3600 });
    assert.equal(csr.spec.username, 'admin', 'the requester is recorded');
    assert.equal(csr.status?.certificate, undefined);
    await setCondition('alice', 'Approved');
    const signed = await waitFor('alice', (c) => (c.status?.certificate ?? '') !== '', 'the certificate');
    const pem = Buffer.from(signed.status!.certificate!, 'base64').toString();
    const v = await opensslVerify(ts.server.files.caCertPath, pem, 'sslclient');
    assert.equal(v.code, 0, v.out);
    assert.match(await opensslText(pem), /CA:FALSE/);
    const x = new X509Certificate(pem);
    const seconds = (Date.parse(x.validTo) - Date.parse(x.validFrom)) / 1000;
    assert.ok(Math.abs(seconds - 3900) <= 1, `lifetime ${seconds}s: expirationSeconds 3600 plus the 5 minute backdate`);
    assert.deepEqual(signed.status!.conditions!.map((c) => c.type), ['Approved']);

    // The new certificate: RBAC names the user from its CN (nothing bound yet, so 403 naming alice).
    const denied = await get(ts.securePort, '/api/v1/namespaces/default/configmaps', pem, keyPem);
    assert.equal(denied.status, 403, denied.body);
    assert.match(denied.body, /User \\"alice\\" cannot list resource \\"configmaps\\"/);
    const bind = await ts.request('POST', `/apis/${apiGroup('rbac.authorization')}/v1/clusterrolebindings`, {
      metadata: { name: 'alice-view' },
      roleRef: { apiGroup: apiGroup('rbac.authorization'), kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'User', apiGroup: apiGroup('rbac.authorization'), name: 'alice' }],
    });
    assert.equal(bind.status, 201, bind.body);
    const deadline = Date.now() + 15_000;
    let allowed = await get(ts.securePort, '/api/v1/namespaces/default/configmaps', pem, keyPem);
    while (allowed.status !== 200 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      allowed = await get(ts.securePort, '/api/v1/namespaces/default/configmaps', pem, keyPem);
    }
    assert.equal(allowed.status, 200, allowed.body);
    // The group from O=dev is carried too: a group binding would work the same way (x509 authenticator).

    if (ts.uwsPort !== null) {
      // uWS cannot see the peer certificate: the same request is anonymous there.
      const anon = await get(ts.uwsPort, '/api/v1/namespaces/default/configmaps', pem, keyPem);
      assert.equal(anon.status, 403, anon.body);
      assert.match(anon.body, /system:anonymous/);
    }
  });

  it('records the signer refusing a request as Failed (SignerValidationFailure), without a certificate', async () => {
    await createCsr('not-a-node', 'CN=alice', names.signers.apiServerClientNodeAgent, CLIENT);
    await setCondition('not-a-node', 'Approved');
    const failed = await waitFor('not-a-node', (c) => (c.status?.conditions ?? []).some((x) => x.type === 'Failed'), 'the Failed condition');
    const cond = failed.status!.conditions!.find((c) => c.type === 'Failed')!;
    assert.equal(cond.status, 'True');
    assert.equal(cond.reason, 'SignerValidationFailure');
    assert.equal(cond.message, 'subject organization is not system:nodes');
    assert.equal(failed.status!.certificate, undefined);
  });

  it('never signs a denied request, nor a pending one, nor one for a signer it does not run', async () => {
    await createCsr('denied', 'CN=bob', names.signers.apiServerClient, CLIENT);
    await setCondition('denied', 'Denied');
    await createCsr('pending', 'CN=carol', names.signers.apiServerClient, CLIENT);
    await createCsr('custom', 'CN=dave', 'example.com/custom', CLIENT);
    await setCondition('custom', 'Approved');
    // A request approved after them is signed: by then the controller has seen them all.
    await createCsr('after', 'CN=erin, O=dev', names.signers.apiServerClient, CLIENT);
    await setCondition('after', 'Approved');
    await waitFor('after', (c) => (c.status?.certificate ?? '') !== '', 'the later certificate');
    for (const name of ['denied', 'pending', 'custom']) {
      const c = (await ts.request('GET', `${CSRS}/${name}`)).json<Csr>();
      assert.equal(c.status?.certificate, undefined, name);
      assert.ok(!(c.status?.conditions ?? []).some((x) => x.type === 'Failed'), name);
    }
  });

  it('the lease names this server as the controller manager', async () => {
    const res = await ts.request('GET', `/apis/${apiGroup('coordination')}/v1/namespaces/${names.systemNamespace}/leases/kube-controller-manager`);
    assert.equal(res.status, 200, res.body);
    assert.equal(res.json<{ spec: { holderIdentity: string } }>().spec.holderIdentity, ts.server.elected.elector!.identity);
  });
});
