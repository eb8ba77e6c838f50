/**
 * Micro-benchmark: what the CSR signing controller spends per certificate on
 * the CPU, without the store: parsing and verifying a PKCS#10 request
 * (@peculiar/x509 over WebCrypto), the signer's rules, and signing (ECDSA
 * P-256 and RSA 2048 cluster CAs). Sequential, after warm-up; mean of N.
 *
 *   node --import tsx loadtest/micro/csr-signing.ts
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CertificateAuthority } from '../../src/pki/ca.ts';
import { parseRequest } from '../../src/certificates/csr-request.ts';
import { builtInSigner } from '../../src/certificates/signers/index.ts';
import { SigningAuthority } from '../../src/certificates/signing-authority.ts';
import { names } from '../../src/naming/index.ts';
import { makeRequest } from '../../test/certificates/support.ts';

const N = Number(process.env['N'] ?? 300);
const USAGES = ['client auth', 'digital signature', 'key encipherment'];

async function timeIt(label: string, fn: () => Promise<unknown>): Promise<void> {
  for (let i = 0; i < 20; i++) await fn();
  const t0 = process.cpuUsage();
  const w0 = performance.now();
  for (let i = 0; i < N; i++) await fn();
  const cpu = process.cpuUsage(t0);
  const wall = performance.now() - w0;
  console.log(`${label.padEnd(44)} ${(((cpu.user + cpu.system) / N) | 0).toString().padStart(6)} µs CPU  ${((wall * 1000) / N).toFixed(0).padStart(6)} µs wall`);
}

const dir = await mkdtemp(join(tmpdir(), 'orch-bench-csr-'));
try {
  const pem = Buffer.from((await makeRequest({ subject: 'CN=system:node:n1, O=system:nodes' })).pem);
  const rules = builtInSigner(names.signers.apiServerClientNodeAgent)!;
  await timeIt('parse + verify request (P-256)', () => parseRequest(pem));
  const req = await parseRequest(pem);
  await timeIt('signer rules (node client)', async () => rules.check(req, USAGES));
  for (const keyKind of ['ecdsa-p256', 'rsa-2048'] as const) {
    const ca = await CertificateAuthority.create({ keyKind });
    await writeFile(join(dir, `${keyKind}.crt`), ca.certificatePem);
    await writeFile(join(dir, `${keyKind}.key`), ca.exportPrivateKeyPem());
    const authority = await SigningAuthority.load(join(dir, `${keyKind}.crt`), join(dir, `${keyKind}.key`));
    await timeIt(`sign (${keyKind} CA)`, () => authority.sign(req, USAGES, 365 * 24 * 3600_000));
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
