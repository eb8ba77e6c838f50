/**
 * The proof that the files work: real TLS handshakes on loopback between the
 * generated serving certificate and admin client certificate, seen from
 * Node's TLS, the uWebSockets.js listener, kubectl (Go TLS) and Python's ssl
 * module (OpenSSL, as python3-kubernetes uses it). kubectl and python3 are
 * optional on a machine: their tests skip when the binary is missing.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import uWS from '@trufflesuite/uws-js-unofficial';
import { CertificateAuthority } from '../../src/pki/ca.ts';
import { ensureDataDir, type DataDirFiles } from '../../src/pki/data-dir.ts';
import { generatePemKeyPair } from '../../src/pki/keys.ts';

const VERSION = JSON.stringify({ major: '1', minor: '32', gitVersion: 'v1.32.0-orch-test', platform: 'linux/amd64' });

function hasBinary(name: string): boolean {
  return spawnSync(name, ['--version'], { stdio: 'ignore' }).error === undefined
    || spawnSync(name, ['version', '--client'], { stdio: 'ignore' }).error === undefined;
}
const KUBECTL = hasBinary('kubectl');
const PYTHON = hasBinary('python3');

interface Reply {
  status: number;
  body: string;
  /** Whether the client verified the server against the CA it was given. */
  serverVerified: boolean;
}

function get(port: number, options: https.RequestOptions): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port, path: '/version', agent: false, ...options }, (res) => {
      const serverVerified = (res.socket as TLSSocket).authorized;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, serverVerified }));
    });
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error('request timed out')));
    req.end();
  });
}

function run(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  // Asynchronous on purpose: the servers under test run on this event loop.
  return new Promise((resolve) => {
    execFile(file, args, { env, timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

describe('TLS with the data dir credentials', () => {
  let root: string;
  let files: DataDirFiles;
  let certServer: https.Server;
  let certPort: number;
  let uwsListen: uWS.us_listen_socket | undefined;
  let uwsPort: number;
  /** Client certificate CNs the certificate listener saw, in order. */
  const seenClients: string[] = [];

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'orch-pki-tls-'));
    const dir = join(root, 'data');
    // Certificates first (the listeners need them), then again with the real
    // ports, as a server that binds port 0 would do.
    files = await ensureDataDir({ dir, securePort: 6443, uwsPort: 6444 });

    certServer = https.createServer(
      { cert: files.servingCertPem, key: files.servingKeyPem, ca: files.caCertPem, requestCert: true, rejectUnauthorized: false },
      (req, res) => {
        const socket = req.socket as TLSSocket;
        if (!socket.authorized) {
          res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ kind: 'Status', code: 401, reason: String(socket.authorizationError) }));
          return;
        }
        const cn = socket.getPeerCertificate().subject.CN;
        seenClients.push(Array.isArray(cn) ? cn.join('+') : (cn ?? ''));
        res.writeHead(200, { 'content-type': 'application/json' }).end(VERSION);
      },
    );
    await new Promise<void>((resolve) => certServer.listen(0, '127.0.0.1', resolve));
    certPort = (certServer.address() as AddressInfo).port;

    const app = uWS.SSLApp({ key_file_name: files.servingKeyPath, cert_file_name: files.servingCertPath });
    app.any('/*', (res, req) => {
      const ok = req.getHeader('authorization') === `Bearer ${files.adminToken}`;
      res.writeStatus(ok ? '200 OK' : '401 Unauthorized').writeHeader('content-type', 'application/json').end(ok ? VERSION : '{"kind":"Status","code":401}');
    });
    uwsPort = await new Promise<number>((resolve, reject) =>
      app.listen('127.0.0.1', 0, (listen) => {
        if (!listen) return reject(new Error('uWS could not listen'));
        uwsListen = listen;
        resolve(uWS.us_socket_local_port(listen));
      }),
    );

    const rewritten = await ensureDataDir({ dir, securePort: certPort, uwsPort });
    assert.deepEqual(rewritten.written.sort(), ['admin-token.kubeconfig', 'admin.kubeconfig']);
  });

  after(async () => {
    if (uwsListen) uWS.us_listen_socket_close(uwsListen);
    certServer?.closeAllConnections();
    await new Promise<void>((resolve) => (certServer ? certServer.close(() => resolve()) : resolve()));
    await rm(root, { recursive: true, force: true });
  });

  it('Node TLS: mutual authentication with the admin certificate', async () => {
    const reply = await get(certPort, {
      ca: files.caCertPem,
      cert: await readFile(files.adminCertPath),
      key: await readFile(files.adminKeyPath),
      servername: 'localhost',
    });
    assert.equal(reply.status, 200, reply.body);
    assert.equal(reply.serverVerified, true);
    assert.equal(seenClients.at(-1), 'admin');
  });

  it('Node TLS: the server certificate is valid for its in-cluster name and not for others', async () => {
    const ok = await get(certPort, { ca: files.caCertPem, servername: 'orch.default.svc', headers: { host: 'orch.default.svc' } });
    assert.equal(ok.serverVerified, true);
    await assert.rejects(get(certPort, { ca: files.caCertPem, servername: 'elsewhere.example' }), { code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
  });

  it('Node TLS: a client trusting another CA refuses the server', async () => {
    const other = await CertificateAuthority.create();
    // Which code depends on whether the server sends its CA along with the leaf.
    await assert.rejects(get(certPort, { ca: other.certificatePem, servername: 'localhost' }), (err: NodeJS.ErrnoException) =>
      /^(SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE)$/.test(err.code ?? ''),
    );
  });

  it('Node TLS: the server does not authenticate no certificate, or one from another CA', async () => {
    assert.equal((await get(certPort, { ca: files.caCertPem, servername: 'localhost' })).status, 401);
    const other = await CertificateAuthority.create();
    const { privateKeyPem, publicKeyPem } = await generatePemKeyPair('ecdsa-p256');
    const forged = await other.issue({ publicKey: publicKeyPem, subject: { commonName: 'admin', organizations: ['system:masters'] }, usages: ['client auth'], durationSeconds: 3600 });
    const reply = await get(certPort, { ca: files.caCertPem, servername: 'localhost', cert: forged, key: privateKeyPem });
    assert.equal(reply.status, 401);
  });

  it('uWebSockets.js: serves TLS with the same files and accepts the admin token', async () => {
    const ok = await get(uwsPort, { ca: files.caCertPem, servername: 'localhost', headers: { authorization: `Bearer ${files.adminToken}` } });
    assert.equal(ok.status, 200);
    assert.equal(ok.serverVerified, true);
    assert.equal((await get(uwsPort, { ca: files.caCertPem, servername: 'localhost' })).status, 401);
  });

  it('kubectl parses admin.kubeconfig', { skip: !KUBECTL && 'kubectl not on PATH' }, async () => {
    const { code, stdout, stderr } = await run('kubectl', ['--kubeconfig', files.adminKubeconfigPath, 'config', 'view', '--raw', '-o', 'json'], { ...process.env, HOME: root });
    assert.equal(code, 0, stderr);
    const config = JSON.parse(stdout) as {
      'current-context': string;
      clusters: Array<{ name: string; cluster: { server: string; 'certificate-authority-data': string } }>;
      users: Array<{ name: string; user: { 'client-certificate-data': string; 'client-key-data': string } }>;
    };
    assert.equal(config['current-context'], 'orch-admin');
    assert.equal(config.clusters[0]?.cluster.server, `https://127.0.0.1:${certPort}`);
    assert.equal(Buffer.from(config.clusters[0]!.cluster['certificate-authority-data'], 'base64').toString(), files.caCertPem);
    assert.equal(Buffer.from(config.users[0]!.user['client-certificate-data'], 'base64').toString(), await readFile(files.adminCertPath, 'utf8'));
    assert.match(Buffer.from(config.users[0]!.user['client-key-data'], 'base64').toString(), /BEGIN PRIVATE KEY/);
  });

  it('kubectl (Go TLS) talks to the certificate listener with admin.kubeconfig', { skip: !KUBECTL && 'kubectl not on PATH' }, async () => {
    const before = seenClients.length;
    const { code, stdout, stderr } = await run('kubectl', ['--kubeconfig', files.adminKubeconfigPath, '--request-timeout=20s', 'get', '--raw', '/version'], { ...process.env, HOME: root });
    assert.equal(code, 0, stderr);
    assert.equal(JSON.parse(stdout).gitVersion, 'v1.32.0-orch-test');
    assert.ok(seenClients.slice(before).includes('admin'), 'the server saw the admin certificate');
  });

  it('kubectl (Go TLS) talks to the uWebSockets.js listener with admin-token.kubeconfig', { skip: !KUBECTL && 'kubectl not on PATH' }, async () => {
    const { code, stdout, stderr } = await run('kubectl', ['--kubeconfig', files.adminTokenKubeconfigPath, '--request-timeout=20s', 'get', '--raw', '/version'], { ...process.env, HOME: root });
    assert.equal(code, 0, stderr);
    assert.equal(JSON.parse(stdout).gitVersion, 'v1.32.0-orch-test');
  });

  it('Python ssl (OpenSSL) verifies the IP SAN and presents the admin certificate', { skip: !PYTHON && 'python3 not on PATH' }, async () => {
    const script = [
      'import http.client, ssl, sys',
      'ca, cert, key, port = sys.argv[1:5]',
      'ctx = ssl.create_default_context(cafile=ca)',
      'ctx.load_cert_chain(cert, key)',
      "conn = http.client.HTTPSConnection('127.0.0.1', int(port), context=ctx, timeout=10)",
      "conn.request('GET', '/version')",
      'res = conn.getresponse()',
      'print(res.status, res.read().decode())',
    ].join('\n');
    const before = seenClients.length;
    const { code, stdout, stderr } = await run('python3', ['-c', script, files.caCertPath, files.adminCertPath, files.adminKeyPath, String(certPort)], process.env);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /^200 /);
    assert.equal(seenClients.at(before), 'admin');
  });
});
