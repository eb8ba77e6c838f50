/**
 * ensureDataDir: what a first start writes, and that later starts reuse,
 * repair or rewrite exactly the files they must and nothing else.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { importPKCS8, importSPKI, jwtVerify, SignJWT } from 'jose';
import { execFile, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ensureDataDir, FILES, type DataDirOptions } from '../../src/pki/data-dir.ts';
import { LOCK_FILE, withDirLock } from '../../src/pki/lock.ts';
import { parseTokenFile } from '../../src/pki/token-file.ts';

const OPTIONS = { securePort: 6443, uwsPort: 6444 };
const ALL_FILES = Object.values(FILES).sort();
const SECRET_FILES = [FILES.caKey, FILES.servingKey, FILES.saPrivateKey, FILES.adminKey, FILES.tokenFile, FILES.adminKubeconfig, FILES.adminTokenKubeconfig];
const YEAR_MS = 365 * 24 * 3600 * 1000;

const roots: string[] = [];
async function freshDir(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'orch-pki-'));
  roots.push(root);
  return join(root, 'data');
}
after(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

async function snapshot(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const name of (await readdir(dir)).sort()) out.set(name, await readFile(join(dir, name), 'utf8'));
  return out;
}

/** The names whose content differs between two snapshots. */
function changed(a: Map<string, string>, b: Map<string, string>): string[] {
  return [...new Set([...a.keys(), ...b.keys()])].filter((n) => a.get(n) !== b.get(n)).sort();
}

/** A data dir created once and copied per test, so each test can break its own. */
async function initialised(extra: Partial<DataDirOptions> = {}) {
  const dir = await freshDir();
  const files = await ensureDataDir({ dir, ...OPTIONS, ...extra });
  return { dir, files, before: await snapshot(dir) };
}

function kubeconfigField(text: string, field: string): string {
  const m = new RegExp(`^\\s*${field}: "([^"]*)"$`, 'm').exec(text);
  assert.ok(m, `${field} in kubeconfig`);
  return m[1]!;
}

describe('ensureDataDir on an empty directory', () => {
  let dir: string;
  let files: Awaited<ReturnType<typeof ensureDataDir>>;
  let elapsedMs = 0;
  before(async () => {
    dir = await freshDir();
    const started = performance.now();
    files = await ensureDataDir({ dir, ...OPTIONS, hosts: ['api.example.test', '192.0.2.10'] });
    elapsedMs = performance.now() - started;
  });

  it('writes every file, into a 0700 directory', async (t) => {
    // Reported, not asserted: the RSA key dominates and varies by machine.
    t.diagnostic(`first ensureDataDir: ${elapsedMs.toFixed(0)} ms`);
    assert.deepEqual((await readdir(dir)).sort(), ALL_FILES);
    assert.deepEqual([...files.written].sort(), ALL_FILES);
    assert.equal((await stat(dir)).mode & 0o777, 0o700);
  });

  it('makes every file 0600: keys, the token file, kubeconfigs, and certificates too', async () => {
    for (const name of SECRET_FILES) assert.equal((await stat(join(dir, name))).mode & 0o777, 0o600, name);
    for (const name of ALL_FILES) assert.equal((await stat(join(dir, name))).mode & 0o777, 0o600, name);
  });

  it('issues a serving certificate for every API server name, signed by the CA', async () => {
    const ca = new X509Certificate(await readFile(files.caCertPath));
    const cert = new X509Certificate(await readFile(files.servingCertPath));
    assert.ok(cert.checkIssued(ca) && cert.verify(ca.publicKey));
    assert.equal(cert.subject, 'CN=orch-apiserver');
    assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.1']);
    for (const name of ['localhost', hostname().toLowerCase(), 'orch', 'orch.default', 'orch.default.svc', 'orch.default.svc.cluster.local', 'api.example.test']) {
      assert.match(cert.subjectAltName ?? '', new RegExp(`(^|, )DNS:${name.replaceAll('.', '\\.')}(,|$)`), name);
    }
    for (const ip of ['127.0.0.1', '::1', '192.0.2.10']) assert.equal(cert.checkIP(ip), ip);
    assert.ok(cert.checkPrivateKey((await import('node:crypto')).createPrivateKey(await readFile(files.servingKeyPath))));
    assert.equal(cert.publicKey.asymmetricKeyDetails?.namedCurve, 'prime256v1');
  });

  it('issues a one-year admin client certificate in system:masters', async () => {
    const ca = new X509Certificate(await readFile(files.caCertPath));
    const cert = new X509Certificate(await readFile(files.adminCertPath));
    assert.ok(cert.checkIssued(ca) && cert.verify(ca.publicKey));
    assert.equal(cert.subject, 'O=system:masters\nCN=admin');
    assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.2']);
    const lifetime = Date.parse(cert.validTo) - Date.now();
    assert.ok(Math.abs(lifetime - YEAR_MS) < 60_000, `lifetime ${lifetime} ms`);
    assert.ok(Date.parse(cert.validFrom) < Date.now() - 60_000, 'notBefore backdated');
  });

  it('writes an RSA 2048 service-account pair whose RS256 tokens verify', async () => {
    const keyPem = await readFile(files.saPrivateKeyPath, 'utf8');
    const pubPem = await readFile(files.saPublicKeyPath, 'utf8');
    assert.match(keyPem, /^-----BEGIN PRIVATE KEY-----\n/);
    assert.match(pubPem, /^-----BEGIN PUBLIC KEY-----\n/);
    assert.equal(files.saPrivateKey.asymmetricKeyType, 'rsa');
    assert.equal(files.saPrivateKey.asymmetricKeyDetails?.modulusLength, 2048);
    const jwt = await new SignJWT({ sub: 'system:serviceaccount:default:default' })
      .setProtectedHeader({ alg: 'RS256' })
      .sign(await importPKCS8(keyPem, 'RS256'));
    const { payload } = await jwtVerify(jwt, await importSPKI(pubPem, 'RS256'));
    assert.equal(payload.sub, 'system:serviceaccount:default:default');
    assert.equal(files.saPublicKeys.length, 1);
  });

  it('writes one admin line to the token file, in --token-auth-file format', async () => {
    const text = await readFile(files.tokenFilePath, 'utf8');
    assert.match(text, /^[A-Za-z0-9_-]{43},admin,admin,"system:masters"\n$/);
    assert.deepEqual(parseTokenFile(text), [{ token: files.adminToken, user: 'admin', uid: 'admin', groups: ['system:masters'] }]);
  });

  it('writes kubeconfigs for the certificate and the token listeners', async () => {
    const certConfig = await readFile(files.adminKubeconfigPath, 'utf8');
    assert.equal(kubeconfigField(certConfig, 'server'), 'https://127.0.0.1:6443');
    assert.equal(kubeconfigField(certConfig, 'current-context'), 'orch-admin');
    const b64 = (path: string) => readFile(path).then((b) => b.toString('base64'));
    assert.equal(kubeconfigField(certConfig, 'certificate-authority-data'), await b64(files.caCertPath));
    assert.equal(kubeconfigField(certConfig, 'client-certificate-data'), await b64(files.adminCertPath));
    assert.equal(kubeconfigField(certConfig, 'client-key-data'), await b64(files.adminKeyPath));
    const tokenConfig = await readFile(files.adminTokenKubeconfigPath, 'utf8');
    assert.equal(kubeconfigField(tokenConfig, 'server'), 'https://127.0.0.1:6444');
    assert.equal(kubeconfigField(tokenConfig, 'token'), files.adminToken);
    assert.equal(kubeconfigField(tokenConfig, 'user'), 'admin-token');
  });

  it('keeps the serving key and admin token out of logs of its result', () => {
    for (const shown of [inspect(files, { depth: 4 }), JSON.stringify(files)]) {
      assert.ok(!shown.includes(files.adminToken), 'token hidden');
      assert.ok(!shown.includes('PRIVATE KEY'), 'key hidden');
      assert.ok(shown.includes(files.servingCertPath), 'paths still shown');
    }
    // The object itself still carries them for the server to use.
    assert.match(files.servingKeyPem, /PRIVATE KEY/);
  });
});

describe('ensureDataDir on an existing directory', () => {
  it('reuses every file byte for byte', async (t) => {
    const { dir, before } = await initialised();
    const started = performance.now();
    const again = await ensureDataDir({ dir, ...OPTIONS });
    t.diagnostic(`restart ensureDataDir: ${(performance.now() - started).toFixed(0)} ms`);
    assert.deepEqual(again.written, []);
    assert.deepEqual(changed(before, await snapshot(dir)), []);
  });

  // Each row: the file removed, and every file that must then change.
  // Kubeconfigs embed certificates and the token, so they follow those.
  const cases: Array<[string, string[]]> = [
    [FILES.tokenFile, [FILES.adminTokenKubeconfig, FILES.tokenFile]],
    [FILES.adminCert, [FILES.adminCert, FILES.adminKubeconfig]],
    [FILES.adminKey, [FILES.adminCert, FILES.adminKey, FILES.adminKubeconfig]],
    [FILES.servingCert, [FILES.servingCert]],
    [FILES.servingKey, [FILES.servingCert, FILES.servingKey]],
    [FILES.saPublicKey, []], // rebuilt from sa.key: the same bytes
    [FILES.saPrivateKey, [FILES.saPrivateKey, FILES.saPublicKey]],
    [FILES.adminKubeconfig, []],
    [FILES.adminTokenKubeconfig, []],
    // Re-signed from ca.key: a new certificate for the same key and name.
    [FILES.caCert, [FILES.adminTokenKubeconfig, FILES.adminKubeconfig, FILES.caCert]],
  ];
  for (const [removed, expected] of cases) {
    it(`regenerates a missing ${removed} and changes only ${expected.join(', ') || 'nothing else'}`, async () => {
      const { dir, before } = await initialised();
      await unlink(join(dir, removed));
      const files = await ensureDataDir({ dir, ...OPTIONS });
      assert.ok(files.written.includes(removed), `${removed} written`);
      assert.deepEqual(changed(before, await snapshot(dir)), [...expected].sort());
      assert.deepEqual((await readdir(dir)).sort(), ALL_FILES);
    });
  }

  it('re-signs a lost ca.crt so that existing certificates still verify', async () => {
    const { dir, files: first } = await initialised();
    await unlink(first.caCertPath);
    await ensureDataDir({ dir, ...OPTIONS });
    const ca = new X509Certificate(await readFile(first.caCertPath));
    const serving = new X509Certificate(await readFile(first.servingCertPath));
    assert.ok(serving.checkIssued(ca) && serving.verify(ca.publicKey));
  });

  it('on a lost ca.key, makes a new CA and re-issues the certificates, keeping their keys', async () => {
    const { dir, files: first, before } = await initialised();
    await unlink(first.caKeyPath);
    await ensureDataDir({ dir, ...OPTIONS });
    assert.deepEqual(changed(before, await snapshot(dir)), [
      FILES.adminTokenKubeconfig, FILES.adminCert, FILES.adminKubeconfig, FILES.servingCert, FILES.caCert, FILES.caKey,
    ].sort());
    const ca = new X509Certificate(await readFile(first.caCertPath));
    for (const path of [first.servingCertPath, first.adminCertPath]) {
      const cert = new X509Certificate(await readFile(path));
      assert.ok(cert.checkIssued(ca) && cert.verify(ca.publicKey), path);
    }
  });

  it('rewrites only the kubeconfigs when the ports change', async () => {
    const { dir, before } = await initialised();
    const files = await ensureDataDir({ dir, securePort: 7443, uwsPort: 6444 });
    assert.deepEqual(files.written, [FILES.adminKubeconfig]);
    const files2 = await ensureDataDir({ dir, securePort: 8443, uwsPort: 8444 });
    assert.deepEqual(files2.written.sort(), [FILES.adminTokenKubeconfig, FILES.adminKubeconfig].sort());
    assert.deepEqual(changed(before, await snapshot(dir)), [FILES.adminTokenKubeconfig, FILES.adminKubeconfig].sort());
    assert.equal(kubeconfigField(await readFile(files2.adminKubeconfigPath, 'utf8'), 'server'), 'https://127.0.0.1:8443');
    assert.equal(kubeconfigField(await readFile(files2.adminTokenKubeconfigPath, 'utf8'), 'server'), 'https://127.0.0.1:8444');
  });

  it('re-issues the serving certificate, same key, when a new SAN is requested', async () => {
    const { dir, files: first, before } = await initialised({ hosts: ['a.example.test'] });
    const same = await ensureDataDir({ dir, ...OPTIONS, hosts: ['a.example.test'] });
    assert.deepEqual(same.written, []);
    const files = await ensureDataDir({ dir, ...OPTIONS, hosts: ['a.example.test', 'b.example.test', '2001:db8::1'] });
    assert.deepEqual(files.written, [FILES.servingCert]);
    assert.deepEqual(changed(before, await snapshot(dir)), [FILES.servingCert]);
    const cert = new X509Certificate(await readFile(first.servingCertPath));
    assert.equal(cert.checkHost('b.example.test'), 'b.example.test');
    assert.equal(cert.checkIP('2001:db8::1'), '2001:db8::1');
    // Dropping a host later keeps the certificate: extra names do no harm.
    assert.deepEqual((await ensureDataDir({ dir, ...OPTIONS })).written, []);
  });

  it('puts an advertised IPv6 host in the kubeconfigs, bracketed, and in the SANs', async () => {
    const { files } = await initialised({ advertiseHost: '2001:db8::7' });
    assert.equal(kubeconfigField(await readFile(files.adminKubeconfigPath, 'utf8'), 'server'), 'https://[2001:db8::7]:6443');
    assert.equal(new X509Certificate(files.servingCertPem).checkIP('2001:db8::7'), '2001:db8::7');
  });

  it('adds an admin line to a token file that lacks one, keeping the other lines', async () => {
    const dir = await freshDir();
    await (await import('node:fs/promises')).mkdir(dir, { recursive: true });
    const others = 'tok-bob,bob,uid-bob,"dev,ops"\n';
    await writeFile(join(dir, FILES.tokenFile), others, { mode: 0o600 });
    const files = await ensureDataDir({ dir, ...OPTIONS });
    const text = await readFile(files.tokenFilePath, 'utf8');
    assert.ok(text.startsWith(others));
    assert.deepEqual(parseTokenFile(text).map((r) => r.user), ['bob', 'admin']);
    assert.deepEqual(parseTokenFile(text)[0]?.groups, ['dev', 'ops']);
  });

  it('keeps other verification keys in sa.pub and adds the signing key\'s', async () => {
    const { dir, files: first } = await initialised();
    const old = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    await writeFile(first.saPublicKeyPath, old);
    const files = await ensureDataDir({ dir, ...OPTIONS });
    assert.deepEqual(files.written, [FILES.saPublicKey]);
    const text = await readFile(files.saPublicKeyPath, 'utf8');
    assert.ok(text.endsWith(old));
    assert.equal(files.saPublicKeys.length, 2);
  });

  it('makes an existing 0755 data dir 0700 and files an older version left 0644 0600', async () => {
    const dir = await freshDir();
    await mkdir(dir, { recursive: true, mode: 0o755 });
    await chmod(dir, 0o755);
    const first = await ensureDataDir({ dir, ...OPTIONS });
    assert.equal((await stat(dir)).mode & 0o777, 0o700);
    for (const path of [first.caCertPath, first.servingCertPath, first.saPublicKeyPath, first.adminKeyPath]) await chmod(path, 0o644);
    await chmod(dir, 0o755);
    const files = await ensureDataDir({ dir, ...OPTIONS });
    assert.deepEqual(files.written, []);
    assert.equal((await stat(dir)).mode & 0o777, 0o700);
    for (const name of await readdir(dir)) assert.equal((await stat(join(dir, name))).mode & 0o777, 0o600, name);
  });

  it('refuses a shared directory such as /tmp as the data dir instead of locking it down', async () => {
    const dir = await freshDir();
    await mkdir(dir, { recursive: true });
    await chmod(dir, 0o1777);
    await assert.rejects(ensureDataDir({ dir, ...OPTIONS }), /shared directory/);
    assert.equal((await stat(dir)).mode & 0o7777, 0o1777);
  });

  it('writes its lock file 0600', async () => {
    const dir = await freshDir();
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const mode = await withDirLock(dir, async () => (await stat(join(dir, LOCK_FILE))).mode & 0o777);
    assert.equal(mode, 0o600);
  });

  it('tightens a secret file left readable by others', async () => {
    const { dir, files: first } = await initialised();
    await chmod(first.adminKeyPath, 0o644);
    await chmod(first.tokenFilePath, 0o640);
    const files = await ensureDataDir({ dir, ...OPTIONS });
    assert.deepEqual(files.written, []);
    assert.equal((await stat(first.adminKeyPath)).mode & 0o777, 0o600);
    assert.equal((await stat(first.tokenFilePath)).mode & 0o777, 0o600);
  });

  it('reports a damaged key file instead of replacing it', async () => {
    const { dir, files: first } = await initialised();
    await writeFile(first.adminKeyPath, 'not a key\n');
    await assert.rejects(ensureDataDir({ dir, ...OPTIONS }), new RegExp(`${FILES.adminKey}: cannot parse`));
    assert.equal(await readFile(first.adminKeyPath, 'utf8'), 'not a key\n');
  });

  it('points the token kubeconfig at the secure port when the uWS listener is off', async () => {
    const { files } = await initialised({ uwsPort: 0 });
    assert.equal(kubeconfigField(await readFile(files.adminTokenKubeconfigPath, 'utf8'), 'server'), 'https://127.0.0.1:6443');
  });

  it('rejects ports that are not TCP ports', async () => {
    await assert.rejects(ensureDataDir({ dir: await freshDir(), securePort: 0, uwsPort: 6444 }), /securePort/);
    await assert.rejects(ensureDataDir({ dir: await freshDir(), securePort: 6443, uwsPort: 70000 }), /uwsPort/);
  });
});

describe('ensureDataDir called concurrently', () => {
  it('creates one CA for simultaneous callers in one process', async () => {
    const dir = await freshDir();
    const results = await Promise.all([1, 2, 3].map(() => ensureDataDir({ dir, ...OPTIONS })));
    assert.equal(new Set(results.map((r) => r.caCertPem)).size, 1);
    assert.equal(results.filter((r) => r.written.length > 0).length, 1, 'only the first caller writes');
    assert.deepEqual((await readdir(dir)).sort(), ALL_FILES, 'lock file removed');
  });

  it('creates one CA for simultaneous first starts in separate processes', async () => {
    const dir = await freshDir();
    const child = fileURLToPath(new URL('./fixtures/ensure-data-dir.ts', import.meta.url));
    const runs = await Promise.all(
      [1, 2, 3].map(
        () =>
          new Promise<{ ca: string; written: string[] }>((resolve, reject) =>
            execFile(process.execPath, ['--import', 'tsx', child, dir], { timeout: 60_000 }, (err, stdout) =>
              err ? reject(err) : resolve(JSON.parse(stdout) as { ca: string; written: string[] }),
            ),
          ),
      ),
    );
    assert.equal(new Set(runs.map((r) => r.ca)).size, 1);
    const mine = await ensureDataDir({ dir, ...OPTIONS });
    assert.deepEqual(mine.written, []);
    assert.equal(mine.ca.certificate.fingerprint256, runs[0]!.ca);
  });

  it('takes over a lock left by a process that died', async () => {
    const dir = await freshDir();
    await (await import('node:fs/promises')).mkdir(dir, { recursive: true });
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    await writeFile(join(dir, LOCK_FILE), `${dead.stdout}\n`);
    const files = await ensureDataDir({ dir, ...OPTIONS });
    assert.equal(files.written.length, ALL_FILES.length);
    assert.deepEqual((await readdir(dir)).sort(), ALL_FILES);
  });
});
