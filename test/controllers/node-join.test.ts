/**
 * A node joins (issue 15, item 4), end to end with real files, as the
 * original's join tools do it:
 *
 * 1. the admin creates a bootstrap token secret (authentication and signing)
 *    and the bindings a cluster set-up tool makes for its group;
 * 2. the joining client reads `cluster-info` anonymously without trusting
 *    the server yet, verifies the config map's JWS with the token, and only
 *    then writes the CA it carries to ca.crt;
 * 3. it authenticates with the bootstrap token (on the secure port and on the
 *    uWS listener where it runs) and creates a CSR for `system:node:<name>`
 *    with the node-agent client signer, its key in node.key;
 * 4. the request is auto-approved and signed; node.crt is written;
 * 5. the client then talks as the node with node.crt/node.key, trusting
 *    ca.crt, and the Node authorizer limits it;
 * 6. its serving-certificate CSR waits until the admin approves it, then is
 *    signed;
 * 7. the token expires and the token cleaner deletes it: it no longer
 *    authenticates.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { X509Certificate, webcrypto } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { compactVerify } from 'jose';
import { x509 } from '../../src/pki/x509.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { names } from '../../src/naming/index.ts';
import { JWS_KEY_PREFIX } from '../../src/controllers/bootstrap-signer.ts';
import { CSRS, RBAC, SECRETS_SYS, b64, sleep, tokenSecret, waitFor } from './support.ts';

const NODE = 'worker-1';
const TOKEN_ID = 'jo1n3d';
const TOKEN_SECRET = 'q8w7e6r5t4y3u2i1';
const TOKEN = `${TOKEN_ID}.${TOKEN_SECRET}`;
const GROUP = 'system:bootstrappers:workers';

let ts: TestServer;
let dir: string;
let expiresAt: number;

before(async () => {
  ts = await startTestServer(['--authorization-mode=Node,RBAC', '--enable-bootstrap-token-auth', '--controllers=*,bootstrapsigner,tokencleaner']);
  dir = await mkdtemp(path.join(os.tmpdir(), 'orch-join-'));
});
after(async () => {
  await ts?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  body: string;
  json<T>(): T;
}

/** One HTTPS request with explicit TLS material (what the joining client has at each step). */
function call(port: number, method: string, urlPath: string, tls: { ca?: Buffer; cert?: Buffer; key?: Buffer; token?: string; insecure?: boolean }, body?: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers: Record<string, string> = { accept: 'application/json' };
    if (tls.token !== undefined) headers['authorization'] = `Bearer ${tls.token}`;
    if (payload !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(payload.length);
    }
    const req = https.request(
      { host: '127.0.0.1', port, method, path: urlPath, headers, servername: 'localhost', ca: tls.ca, cert: tls.cert, key: tls.key, rejectUnauthorized: tls.insecure !== true, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          resolve({ status: res.statusCode ?? 0, body: text, json: <T>() => JSON.parse(text) as T });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

async function newKeyAndCsr(subject: string, dnsNames: string[]): Promise<{ keyPem: string; csrPem: string }> {
  const keys = await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
  const extensions = dnsNames.length > 0 ? [new x509.SubjectAlternativeNameExtension(dnsNames.map((value) => ({ type: 'dns' as const, value })))] : [];
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: subject, keys, signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' }, extensions });
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  const keyPem = `-----BEGIN PRIVATE KEY-----\n${pkcs8.toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END PRIVATE KEY-----\n`;
  return { keyPem, csrPem: csr.toString('pem') };
}

type Csr = { status?: { certificate?: string; conditions?: Array<{ type: string; reason?: string }> } };

describe('a node joins', () => {
  it('bootstrap token -> verified cluster-info -> CSR auto-approved and signed -> talks as the node -> serving CSR waits for the admin -> token expires and is cleaned', async () => {
    // 1. The admin's side: the token (valid for 25 s) and the set-up tool's bindings for its group.
    expiresAt = Math.floor((Date.now() + 25_000) / 1000) * 1000;
    const expiration = new Date(expiresAt).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const created = await ts.request('POST', SECRETS_SYS, tokenSecret(TOKEN_ID, TOKEN_SECRET, { 'usage-bootstrap-authentication': 'true', 'usage-bootstrap-signing': 'true', 'auth-extra-groups': GROUP, expiration }));
    assert.equal(created.status, 201, created.body);
    const rbacGroup = RBAC.split('/')[2];
    const certsGroup = CSRS.split('/')[2];
    for (const [name, role, group] of [
      ['node-bootstrapper', 'system:node-bootstrapper', GROUP],
      ['node-autoapprove-bootstrap', `system:${certsGroup}:certificatesigningrequests:nodeclient`, GROUP],
      ['node-autoapprove-certificate-rotation', `system:${certsGroup}:certificatesigningrequests:selfnodeclient`, 'system:nodes'],
    ] as const) {
      const res = await ts.request('POST', `${RBAC}/clusterrolebindings`, { metadata: { name }, roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: role }, subjects: [{ apiGroup: rbacGroup, kind: 'Group', name: group }] });
      assert.equal(res.status, 201, res.body);
    }

    // 2. cluster-info, read anonymously before the client trusts anything, verified with the token.
    const cmPath = `/api/v1/namespaces/${names.publicNamespace}/configmaps/cluster-info`;
    let data: Record<string, string> = {};
    await waitFor(async () => {
      const res = await call(ts.securePort, 'GET', cmPath, { insecure: true });
      data = res.status === 200 ? res.json<{ data: Record<string, string> }>().data : {};
      return data[JWS_KEY_PREFIX + TOKEN_ID] !== undefined;
    }, 'cluster-info signed with the token');
    const content = data[names.clusterInfoKey]!;
    const [header, , signature] = data[JWS_KEY_PREFIX + TOKEN_ID]!.split('.');
    const hmacKey = names.clusterInfoJwsKey === 'token' ? TOKEN : TOKEN_SECRET;
    await compactVerify(`${header}.${Buffer.from(content).toString('base64url')}.${signature}`, new TextEncoder().encode(hmacKey));
    // A forged cluster-info (another CA) would not verify.
    await assert.rejects(compactVerify(`${header}.${Buffer.from(content + ' ').toString('base64url')}.${signature}`, new TextEncoder().encode(hmacKey)));
    const caData = /certificate-authority-data: (\S+)/.exec(content)![1]!;
    await writeFile(path.join(dir, 'ca.crt'), Buffer.from(caData, 'base64'), { mode: 0o600 });
    const ca = await readFile(path.join(dir, 'ca.crt'));
    assert.equal(ca.toString(), ts.server.files.caCertPem);

    // 3. As the bootstrap token, over TLS verified with ca.crt: a node client CSR (on the uWS listener too, where it runs).
    const bootstrap = { ca, token: TOKEN };
    const who = await call(ts.securePort, 'GET', '/api/v1/namespaces/default/pods', bootstrap);
    assert.equal(who.status, 403, who.body);
    assert.match(who.body, new RegExp(`system:bootstrap:${TOKEN_ID}`));
    const client = await newKeyAndCsr(`CN=system:node:${NODE}, O=system:nodes`, []);
    await writeFile(path.join(dir, 'node.key'), client.keyPem, { mode: 0o600 });
    const csrName = `node-csr-${NODE}`;
    const port = ts.uwsPort ?? ts.securePort;
    const post = await call(port, 'POST', CSRS, bootstrap, {
      metadata: { name: csrName },
      spec: { request: b64(client.csrPem), signerName: names.signers.apiServerClientNodeAgent, usages: ['digital signature', 'key encipherment', 'client auth'] },
    });
    assert.equal(post.status, 201, post.body);
    assert.equal(post.json<{ spec: { username: string } }>().spec.username, `system:bootstrap:${TOKEN_ID}`);

    // 4. Approved by the controller, signed by the node-agent client signer.
    let csr: Csr = {};
    await waitFor(async () => {
      csr = (await call(port, 'GET', `${CSRS}/${csrName}`, bootstrap)).json<Csr>();
      return csr.status?.certificate !== undefined;
    }, 'the signed node certificate');
    assert.deepEqual(csr.status!.conditions!.map((c) => [c.type, c.reason]), [['Approved', 'AutoApproved']]);
    await writeFile(path.join(dir, 'node.crt'), Buffer.from(csr.status!.certificate!, 'base64'), { mode: 0o600 });
    const cert = new X509Certificate(await readFile(path.join(dir, 'node.crt')));
    assert.equal(cert.subject, `CN=system:node:${NODE}\nO=system:nodes`);
    assert.ok(cert.verify(new X509Certificate(ca).publicKey));

    // 5. As the node (client certificate on the secure port), limited by the Node authorizer.
    const asNode = { ca, cert: await readFile(path.join(dir, 'node.crt')), key: await readFile(path.join(dir, 'node.key')) };
    const nodeObj = await call(ts.securePort, 'POST', '/api/v1/nodes', asNode, { metadata: { name: NODE } });
    assert.equal(nodeObj.status, 201, nodeObj.body);
    assert.equal((await call(ts.securePort, 'GET', `/api/v1/nodes/${NODE}`, asNode)).status, 200);
    const secrets = await call(ts.securePort, 'GET', '/api/v1/namespaces/default/secrets', asNode);
    assert.equal(secrets.status, 403, secrets.body);
    assert.match(secrets.body, new RegExp(`system:node:${NODE}`));
    const other = await call(ts.securePort, 'GET', `/api/v1/namespaces/${names.systemNamespace}/secrets/bootstrap-token-${TOKEN_ID}`, asNode);
    assert.equal(other.status, 403, other.body);

    // 6. Its serving certificate request waits for a person.
    const serving = await newKeyAndCsr(`CN=system:node:${NODE}, O=system:nodes`, [`${NODE}.example`]);
    const servingName = `serving-${NODE}`;
    const sPost = await call(ts.securePort, 'POST', CSRS, asNode, {
      metadata: { name: servingName },
      spec: { request: b64(serving.csrPem), signerName: names.signers.nodeAgentServing, usages: ['digital signature', 'key encipherment', 'server auth'] },
    });
    assert.equal(sPost.status, 201, sPost.body);
    await sleep(1000);
    const pending = (await ts.request('GET', `${CSRS}/${servingName}`)).json<Csr & Record<string, unknown>>();
    assert.deepEqual(pending.status?.conditions ?? [], []);
    assert.equal(pending.status?.certificate, undefined);
    // The node cannot approve its own request.
    const selfApprove = await call(ts.securePort, 'PUT', `${CSRS}/${servingName}/approval`, asNode, { ...pending, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Self' }] } });
    assert.equal(selfApprove.status, 403, selfApprove.body);
    const approved = await ts.request('PUT', `${CSRS}/${servingName}/approval`, { ...pending, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'AdminApproved' }] } });
    assert.equal(approved.status, 200, approved.body);
    await waitFor(async () => (await call(ts.securePort, 'GET', `${CSRS}/${servingName}`, asNode)).json<Csr>().status?.certificate !== undefined, 'the serving certificate');

    // 7. The token expires: refused, then deleted by the token cleaner; the node keeps working with its certificate.
    await waitFor(async () => (await ts.request('GET', `${SECRETS_SYS}/bootstrap-token-${TOKEN_ID}`)).status === 404, 'the expired token deleted', 60_000);
    assert.ok(Date.now() >= expiresAt);
    assert.equal((await call(ts.securePort, 'GET', `${CSRS}/${csrName}`, bootstrap)).status, 401);
    assert.equal((await call(ts.securePort, 'GET', `/api/v1/nodes/${NODE}`, asNode)).status, 200);
    // And its signature leaves cluster-info.
    await waitFor(async () => (await ts.request('GET', cmPath)).json<{ data: Record<string, string> }>().data[JWS_KEY_PREFIX + TOKEN_ID] === undefined, 'the signature dropped');
  });
});
