/**
 * Throwaway TLS material for the real servers the authentication tests run
 * on loopback (identity provider, token webhook): a CA, a serving
 * certificate for 127.0.0.1/localhost, client certificates, all as PEM
 * files in a private temp dir as the flags want them.
 */
import { createPrivateKey, webcrypto } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { EKU, issue, x509, type Issued } from './pki.ts';

export interface PemPair {
  readonly certPem: string;
  readonly keyPem: string;
}

export async function keyPemOf(issued: Issued): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', issued.keys.privateKey));
  return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }).export({ format: 'pem', type: 'pkcs8' }).toString();
}

export interface TestTls {
  readonly dir: string;
  readonly ca: Issued;
  readonly caFile: string;
  readonly serving: PemPair;
  /** A client certificate signed by this CA. */
  client(commonName: string): Promise<PemPair>;
  /** Writes a file into the temp dir (mode 0600) and returns its path. */
  write(name: string, text: string): Promise<string>;
  remove(): Promise<void>;
}

export async function createTestTls(name: string): Promise<TestTls> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), `orch-${name}-`));
  const ca = await issue({ subject: `CN=${name} test CA`, ca: true });
  const server = await issue({
    subject: 'CN=localhost',
    issuer: ca,
    eku: [EKU.serverAuth],
    extraExtensions: [
      new x509.SubjectAlternativeNameExtension([
        { type: 'dns', value: 'localhost' },
        { type: 'ip', value: '127.0.0.1' },
      ]),
    ],
  });
  const write = async (file: string, text: string): Promise<string> => {
    const p = path.join(dir, file);
    await fs.writeFile(p, text, { mode: 0o600 });
    return p;
  };
  const caFile = await write('ca.crt', ca.pem);
  return {
    dir,
    ca,
    caFile,
    serving: { certPem: server.pem, keyPem: await keyPemOf(server) },
    client: async (commonName) => {
      const c = await issue({ subject: `CN=${commonName}`, issuer: ca, eku: [EKU.clientAuth] });
      return { certPem: c.pem, keyPem: await keyPemOf(c) };
    },
    write,
    remove: () => fs.rm(dir, { recursive: true, force: true }),
  };
}
