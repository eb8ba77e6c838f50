/**
 * Throwaway PKI for the front-end tests, made fresh per run with
 * @peculiar/x509 (src/pki is still being written, so the tests do not lean
 * on it): a server certificate for 127.0.0.1/localhost, and a client
 * certificate issued by an intermediate under a test CA.
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { webcrypto } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

type CryptoKeyPair = webcrypto.CryptoKeyPair;

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const EC: webcrypto.EcKeyGenParams & webcrypto.EcdsaParams = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };

interface Issued {
  cert: x509.X509Certificate;
  keys: CryptoKeyPair;
}

export interface TestPki {
  /** PEM of the CA that issued the client chain; the server's clientCa. */
  clientCaPem: string;
  /** PEM the clients trust for the server. */
  serverCaPem: string;
  serverCertPem: string;
  serverKeyPem: string;
  /** Files of the same, for uWS. */
  serverCertFile: string;
  serverKeyFile: string;
  /** Client leaf followed by its intermediate, as a client sends them. */
  clientCertChainPem: string;
  clientKeyPem: string;
  /** DER of leaf and intermediate, leaf first. */
  clientChainDer: Uint8Array[];
  cleanup(): Promise<void>;
}

async function keyPair(): Promise<CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as CryptoKeyPair;
}

async function selfSignedCa(name: string): Promise<Issued> {
  const keys = await keyPair();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name: `CN=${name}`,
    keys,
    signingAlgorithm: EC,
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 86_400_000),
    extensions: [
      new x509.BasicConstraintsExtension(true, 1, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
    ],
  });
  return { cert, keys };
}

async function issue(issuer: Issued, subject: string, extensions: x509.Extension[]): Promise<Issued> {
  const keys = await keyPair();
  const cert = await x509.X509CertificateGenerator.create({
    subject,
    issuer: issuer.cert.subject,
    publicKey: keys.publicKey,
    signingKey: issuer.keys.privateKey,
    signingAlgorithm: EC,
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 86_400_000),
    extensions,
  });
  return { cert, keys };
}

async function keyPem(keys: CryptoKeyPair): Promise<string> {
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return x509.PemConverter.encode(pkcs8, 'PRIVATE KEY');
}

export async function makeTestPki(): Promise<TestPki> {
  const serverCa = await selfSignedCa('frontend-test-server-ca');
  const server = await issue(serverCa, 'CN=localhost', [
    new x509.SubjectAlternativeNameExtension([
      { type: 'ip', value: '127.0.0.1' },
      { type: 'dns', value: 'localhost' },
    ]),
    new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
  ]);

  const clientCa = await selfSignedCa('frontend-test-client-ca');
  const intermediate = await issue(clientCa, 'CN=frontend-test-client-intermediate', [
    new x509.BasicConstraintsExtension(true, 0, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true),
  ]);
  const client = await issue(intermediate, 'CN=jane,O=developers', [
    new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
  ]);

  const dir = await mkdtemp(path.join(tmpdir(), 'frontend-pki-'));
  const serverCertPem = server.cert.toString('pem');
  const serverKeyPem = await keyPem(server.keys);
  const serverCertFile = path.join(dir, 'server.crt');
  const serverKeyFile = path.join(dir, 'server.key');
  await writeFile(serverCertFile, serverCertPem);
  await writeFile(serverKeyFile, serverKeyPem);

  return {
    clientCaPem: clientCa.cert.toString('pem'),
    serverCaPem: serverCa.cert.toString('pem'),
    serverCertPem,
    serverKeyPem,
    serverCertFile,
    serverKeyFile,
    clientCertChainPem: `${client.cert.toString('pem')}\n${intermediate.cert.toString('pem')}\n`,
    clientKeyPem: await keyPem(client.keys),
    clientChainDer: [new Uint8Array(client.cert.rawData), new Uint8Array(intermediate.cert.rawData)],
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}
