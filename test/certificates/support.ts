/** Test helpers: a CA on disk, PKCS#10 requests built with @peculiar/x509, openssl runs. */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { webcrypto } from 'node:crypto';
import { x509 } from '../../src/pki/x509.ts';
import { CertificateAuthority } from '../../src/pki/ca.ts';

export interface CaFiles {
  dir: string;
  certFile: string;
  keyFile: string;
  ca: CertificateAuthority;
}

export async function caOnDisk(options: { durationSeconds?: number; commonName?: string } = {}): Promise<CaFiles> {
  const dir = await mkdtemp(join(tmpdir(), 'orch-csr-ca-'));
  const ca = await CertificateAuthority.create(options);
  const certFile = join(dir, 'ca.crt');
  const keyFile = join(dir, 'ca.key');
  await writeFile(certFile, ca.certificatePem, { mode: 0o600 });
  await writeFile(keyFile, ca.exportPrivateKeyPem(), { mode: 0o600 });
  return { dir, certFile, keyFile, ca };
}

export interface RequestSpec {
  /** e.g. 'CN=system:node:n1, O=system:nodes' */
  subject: string;
  dns?: string[];
  ips?: string[];
  emails?: string[];
  uris?: string[];
  /** Extra extensions the request asks for (signers drop them). */
  extraExtensions?: x509.Extension[];
}

export interface KeyedRequest {
  pem: string;
  /** PKCS#8 PEM of the requester's key, to use the certificate. */
  keyPem: string;
}

export async function makeRequest(spec: RequestSpec): Promise<KeyedRequest> {
  const keys = await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
  const names: x509.JsonGeneralNames = [
    ...(spec.dns ?? []).map((value) => ({ type: 'dns' as const, value })),
    ...(spec.emails ?? []).map((value) => ({ type: 'email' as const, value })),
    ...(spec.ips ?? []).map((value) => ({ type: 'ip' as const, value })),
    ...(spec.uris ?? []).map((value) => ({ type: 'url' as const, value })),
  ];
  const extensions: x509.Extension[] = [...(spec.extraExtensions ?? [])];
  if (names.length > 0) extensions.push(new x509.SubjectAlternativeNameExtension(names));
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: spec.subject, keys, signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' }, extensions });
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  const keyPem = `-----BEGIN PRIVATE KEY-----\n${pkcs8.toString('base64').replace(/.{64}/g, '$&\n').replace(/\n$/, '')}\n-----END PRIVATE KEY-----\n`;
  return { pem: csr.toString('pem') + '\n', keyPem };
}

export function run(cmd: string, args: string[], input?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(cmd, args, { timeout: 30_000 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1;
      resolve({ code, stdout, stderr });
    });
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** openssl verify of a PEM certificate against a CA file, for a purpose (sslclient / sslserver) when given. */
export async function opensslVerify(caFile: string, certPem: string, purpose?: string): Promise<{ code: number; out: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'orch-csr-cert-'));
  try {
    const f = join(dir, 'leaf.crt');
    await writeFile(f, certPem);
    const r = await run('openssl', ['verify', '-CAfile', caFile, ...(purpose ? ['-purpose', purpose] : []), f]);
    return { code: r.code, out: r.stdout + r.stderr };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function opensslText(certPem: string): Promise<string> {
  const r = await run('openssl', ['x509', '-noout', '-text'], certPem);
  if (r.code !== 0) throw new Error(r.stderr);
  return r.stdout;
}
