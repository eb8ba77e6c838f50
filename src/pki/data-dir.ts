/**
 * The quick start's credentials: on first start, a cluster CA, a serving
 * certificate, the service-account key pair, an admin client certificate, a
 * static token and two kubeconfigs, all in one directory. Later starts reuse
 * every file that is still valid and write only what is missing or stale.
 */
import { createPublicKey, KeyObject, X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { inspect } from 'node:util';
import { CertificateAuthority, type CertificateSubject } from './ca.ts';
import { DATA_FILE_MODE, ensurePrivateDir, readIfExists, restrictMode, syncDirectory, writeFileAtomic } from './files.ts';
import { generatePemKeyPair, parsePrivateKey, publicKeyPemOf, toSpkiDer } from './keys.ts';
import { renderKubeconfig, serverUrl } from './kubeconfig.ts';
import { withDirLock } from './lock.ts';
import { formatTokenRecord, newBearerToken, parseTokenFile } from './token-file.ts';
import type { CertificateUsage } from './usages.ts';
import { names } from '../naming/index.ts';

export const FILES = {
  caCert: 'ca.crt',
  caKey: 'ca.key',
  servingCert: 'apiserver.crt',
  servingKey: 'apiserver.key',
  saPrivateKey: 'sa.key',
  saPublicKey: 'sa.pub',
  adminCert: 'admin.crt',
  adminKey: 'admin.key',
  tokenFile: 'tokens.csv',
  adminKubeconfig: 'admin.kubeconfig',
  adminTokenKubeconfig: 'admin-token.kubeconfig',
} as const;

const LEAF_DURATION_SECONDS = 365 * 24 * 3600;
/** Leaf certificates this close to expiry are re-issued at start. */
const RENEW_BEFORE_SECONDS = 30 * 24 * 3600;
const CLUSTER_NAME = names.clusterName;
const ADMIN_USER = 'admin';

/** The names in-cluster clients use for the API server, as for `kubernetes.default.svc`. */
const IN_CLUSTER = names.inClusterHost;
const DEFAULT_SERVING_NAMES = ['localhost', '127.0.0.1', '::1', IN_CLUSTER, `${IN_CLUSTER}.default`, `${IN_CLUSTER}.default.svc`, `${IN_CLUSTER}.default.svc.cluster.local`];

export interface DataDirOptions {
  dir: string;
  /** Extra serving-certificate SANs, DNS names or IP addresses. */
  hosts?: readonly string[];
  securePort: number;
  /**
   * The uWebSockets.js listener, which the token kubeconfig points at; 0 when
   * it is off (`--uws-port=0`), and the token kubeconfig then uses securePort.
   */
  uwsPort: number;
  /** Host the kubeconfigs name (default 127.0.0.1); also added to the SANs. */
  advertiseHost?: string;
}

export interface DataDirFiles {
  dir: string;
  caCertPath: string;
  caKeyPath: string;
  servingCertPath: string;
  servingKeyPath: string;
  saPrivateKeyPath: string;
  saPublicKeyPath: string;
  adminCertPath: string;
  adminKeyPath: string;
  tokenFilePath: string;
  adminKubeconfigPath: string;
  adminTokenKubeconfigPath: string;
  ca: CertificateAuthority;
  caCertPem: string;
  servingCertPem: string;
  /** Secret. Redacted when the result is logged or JSON-serialised. */
  servingKeyPem: string;
  /** Signs service-account tokens (RS256 for the RSA key generated here). */
  saPrivateKey: KeyObject;
  /** Every key in sa.pub: tokens verify against any of them. */
  saPublicKeys: KeyObject[];
  /** The admin's bearer token from tokens.csv. Secret, redacted like servingKeyPem. */
  adminToken: string;
  /** File names this call wrote (empty on a restart that reused everything). */
  written: string[];
}

export async function ensureDataDir(options: DataDirOptions): Promise<DataDirFiles> {
  if (!isPort(options.securePort)) throw new RangeError(`securePort must be a TCP port, got ${options.securePort}`);
  if (!(isPort(options.uwsPort) || options.uwsPort === 0)) throw new RangeError(`uwsPort must be a TCP port or 0, got ${options.uwsPort}`);
  const dir = resolve(options.dir);
  await ensurePrivateDir(dir);
  return withDirLock(dir, () => fill(dir, options));
}

function isPort(port: number): boolean {
  return Number.isInteger(port) && port >= 1 && port <= 65535;
}

async function fill(dir: string, options: DataDirOptions): Promise<DataDirFiles> {
  const files = new DirFiles(dir);

  const ca = await ensureCa(files);
  const serving = await ensureLeafCertificate(files, ca, FILES.servingCert, FILES.servingKey, {
    subject: { commonName: 'orch-apiserver' },
    usages: ['digital signature', 'server auth'],
    ...splitHosts([...DEFAULT_SERVING_NAMES, hostname(), ...(options.hosts ?? []), ...(options.advertiseHost ? [options.advertiseHost] : [])]),
  });
  const admin = await ensureLeafCertificate(files, ca, FILES.adminCert, FILES.adminKey, {
    subject: { commonName: ADMIN_USER, organizations: ['system:masters'] },
    usages: ['digital signature', 'client auth'],
    dnsNames: [],
    ipAddresses: [],
  });
  const sa = await ensureServiceAccountKeys(files);
  const adminToken = await ensureAdminToken(files);

  // Rendered every time and written only on a difference: a port, CA,
  // certificate or token change rewrites them, a plain restart does not.
  const host = options.advertiseHost ?? '127.0.0.1';
  await files.writeIfChanged(FILES.adminKubeconfig, renderKubeconfig({
    clusterName: CLUSTER_NAME,
    server: serverUrl(host, options.securePort),
    caCertificatePem: ca.certificatePem,
    userName: ADMIN_USER,
    credentials: { clientCertificatePem: admin.certPem, clientKeyPem: admin.keyPem },
    contextName: `${CLUSTER_NAME}-admin`,
  }));
  await files.writeIfChanged(FILES.adminTokenKubeconfig, renderKubeconfig({
    clusterName: CLUSTER_NAME,
    server: serverUrl(host, options.uwsPort || options.securePort),
    caCertificatePem: ca.certificatePem,
    userName: 'admin-token',
    credentials: { token: adminToken },
    contextName: `${CLUSTER_NAME}-admin-token`,
  }));
  if (files.written.length > 0) await syncDirectory(dir);

  return redactSecrets({
    dir,
    caCertPath: files.path(FILES.caCert),
    caKeyPath: files.path(FILES.caKey),
    servingCertPath: files.path(FILES.servingCert),
    servingKeyPath: files.path(FILES.servingKey),
    saPrivateKeyPath: files.path(FILES.saPrivateKey),
    saPublicKeyPath: files.path(FILES.saPublicKey),
    adminCertPath: files.path(FILES.adminCert),
    adminKeyPath: files.path(FILES.adminKey),
    tokenFilePath: files.path(FILES.tokenFile),
    adminKubeconfigPath: files.path(FILES.adminKubeconfig),
    adminTokenKubeconfigPath: files.path(FILES.adminTokenKubeconfig),
    ca,
    caCertPem: ca.certificatePem,
    servingCertPem: serving.certPem,
    servingKeyPem: serving.keyPem,
    saPrivateKey: sa.privateKey,
    saPublicKeys: sa.publicKeys,
    adminToken,
    written: files.written,
  });
}

/** Reads and writes names inside the data dir, remembering what it wrote. */
class DirFiles {
  readonly written: string[] = [];
  constructor(readonly dir: string) {}

  path(name: string): string {
    return join(this.dir, name);
  }

  /** Reads a file, first tightening its mode (one left 0644 by an older version or copied in). */
  async read(name: string): Promise<string | undefined> {
    const text = await readIfExists(this.path(name));
    if (text !== undefined) await restrictMode(this.path(name), DATA_FILE_MODE);
    return text;
  }

  async write(name: string, data: string): Promise<void> {
    await writeFileAtomic(this.path(name), data, DATA_FILE_MODE);
    this.written.push(name);
  }

  async writeIfChanged(name: string, data: string): Promise<void> {
    if ((await this.read(name)) !== data) await this.write(name, data);
  }
}

/**
 * Loads the CA, rebuilding what can be rebuilt: a lost ca.crt is re-signed
 * from ca.key (same key and name, so issued certificates still verify); a
 * lost ca.key means a new CA, and the leaf checks below then re-issue every
 * certificate the old one signed.
 */
async function ensureCa(files: DirFiles): Promise<CertificateAuthority> {
  const keyPem = await files.read(FILES.caKey);
  const certPem = await files.read(FILES.caCert);
  if (keyPem !== undefined && certPem !== undefined) {
    const ca = await CertificateAuthority.load(certPem, keyPem).catch((err: Error) => {
      throw new Error(`${files.path(FILES.caCert)} / ${FILES.caKey}: ${err.message} (remove both to create a new CA)`);
    });
    if (ca.notAfter.getTime() <= Date.now()) {
      throw new Error(`CA certificate ${files.path(FILES.caCert)} expired on ${ca.notAfter.toISOString()} (remove ca.crt and ca.key to create a new CA)`);
    }
    return ca;
  }
  const ca = keyPem !== undefined ? await CertificateAuthority.selfSign(keyPem) : await CertificateAuthority.create();
  if (keyPem === undefined) await files.write(FILES.caKey, ca.exportPrivateKeyPem());
  await files.write(FILES.caCert, ca.certificatePem);
  return ca;
}

interface LeafSpec {
  subject: CertificateSubject;
  usages: CertificateUsage[];
  dnsNames: string[];
  ipAddresses: string[];
}

/**
 * Keeps a key and certificate pair when the certificate still fits; otherwise
 * issues a new certificate, for the existing key when there is one.
 */
async function ensureLeafCertificate(
  files: DirFiles,
  ca: CertificateAuthority,
  certName: string,
  keyName: string,
  spec: LeafSpec,
): Promise<{ certPem: string; keyPem: string }> {
  let keyPem = await files.read(keyName);
  let key: KeyObject;
  if (keyPem === undefined) {
    keyPem = (await generatePemKeyPair('ecdsa-p256')).privateKeyPem;
    key = parsePrivateKey(keyPem);
    await files.write(keyName, keyPem);
  } else {
    key = parseOrExplain(files.path(keyName), () => parsePrivateKey(keyPem!));
  }
  const existing = await files.read(certName);
  if (existing !== undefined && reasonToReissue(existing, key, ca, spec) === undefined) return { certPem: existing, keyPem };
  const certPem = await ca.issue({ ...spec, publicKey: toSpkiPem(key), durationSeconds: LEAF_DURATION_SECONDS });
  await files.write(certName, certPem);
  return { certPem, keyPem };
}

/** Why an existing certificate cannot be kept, or undefined when it can. */
function reasonToReissue(certPem: string, key: KeyObject, ca: CertificateAuthority, spec: LeafSpec, now = Date.now()): string | undefined {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(certPem);
  } catch {
    return 'unparseable';
  }
  if (!ca.hasIssued(cert)) return 'not issued by the current CA';
  if (!cert.checkPrivateKey(key)) return 'does not match its key';
  if (Date.parse(cert.validFrom) > now) return 'not yet valid';
  if (Date.parse(cert.validTo) - RENEW_BEFORE_SECONDS * 1000 <= now) return 'expires soon';
  const subject = [...(spec.subject.organizations ?? []).map((o) => `O=${o}`), `CN=${spec.subject.commonName}`].join('\n');
  if (cert.subject !== subject) return `subject is ${cert.subject}`;
  // A literal SAN, or else what a TLS client would decide (checkHost); the
  // literal test keeps a requested wildcard from forcing a re-issue each start.
  const sans = new Set((cert.subjectAltName ?? '').split(', ').map((san) => san.toLowerCase()));
  const missingDns = spec.dnsNames.find((name) => !sans.has(`dns:${name}`) && cert.checkHost(name, { subject: 'never' }) === undefined);
  if (missingDns !== undefined) return `lacks SAN ${missingDns}`;
  const missingIp = spec.ipAddresses.find((ip) => cert.checkIP(ip) === undefined);
  if (missingIp !== undefined) return `lacks SAN ${missingIp}`;
  return undefined;
}

/**
 * sa.key signs tokens, sa.pub verifies them and may hold older keys too (the
 * `--service-account-key-file` rotation pattern), so a missing or stale
 * sa.pub gets the signing key's public half added rather than replaced.
 */
async function ensureServiceAccountKeys(files: DirFiles): Promise<{ privateKey: KeyObject; publicKeys: KeyObject[] }> {
  const keyPem = await files.read(FILES.saPrivateKey);
  if (keyPem === undefined) {
    // RSA 2048: RS256 is the one JWS algorithm every token verifier supports.
    const pair = await generatePemKeyPair('rsa-2048');
    await files.write(FILES.saPrivateKey, pair.privateKeyPem);
    await files.write(FILES.saPublicKey, pair.publicKeyPem);
    return { privateKey: parsePrivateKey(pair.privateKeyPem), publicKeys: [createPublicKey(pair.publicKeyPem)] };
  }
  const privateKey = parseOrExplain(files.path(FILES.saPrivateKey), () => parsePrivateKey(keyPem));
  const ownSpki = await toSpkiDer(privateKey);
  const pubText = (await files.read(FILES.saPublicKey)) ?? '';
  const publicKeys = parseOrExplain(files.path(FILES.saPublicKey), () => parsePublicKeys(pubText));
  for (const candidate of publicKeys) {
    if ((await toSpkiDer(candidate)).equals(ownSpki)) return { privateKey, publicKeys };
  }
  const ownPem = publicKeyPemOf(privateKey);
  await files.write(FILES.saPublicKey, ownPem + pubText);
  return { privateKey, publicKeys: [createPublicKey(ownPem), ...publicKeys] };
}

/** Returns the admin's token, adding an admin line (and only that) when there is none. */
async function ensureAdminToken(files: DirFiles): Promise<string> {
  const text = await files.read(FILES.tokenFile);
  const existing = text === undefined ? undefined : parseTokenFile(text).find((r) => r.user === ADMIN_USER && r.token !== '');
  if (existing) return existing.token;
  const token = newBearerToken();
  const line = formatTokenRecord({ token, user: ADMIN_USER, uid: ADMIN_USER, groups: ['system:masters'] }) + '\n';
  const prefix = text === undefined || text === '' || text.endsWith('\n') ? (text ?? '') : text + '\n';
  await files.write(FILES.tokenFile, prefix + line);
  return token;
}

/** DNS names and IP addresses, lower-cased and de-duplicated. */
function splitHosts(hosts: readonly string[]): { dnsNames: string[]; ipAddresses: string[] } {
  const dnsNames = new Set<string>();
  const ipAddresses = new Set<string>();
  for (const raw of hosts) {
    const host = raw.trim().toLowerCase();
    if (host === '') continue;
    (isIP(host) ? ipAddresses : dnsNames).add(host);
  }
  return { dnsNames: [...dnsNames], ipAddresses: [...ipAddresses] };
}

const PEM_BLOCK = /-----BEGIN ([A-Z ]+)-----[\s\S]+?-----END \1-----/g;

/** Public keys and certificates' keys from a PEM bundle, as kube-apiserver reads sa.pub. */
function parsePublicKeys(text: string): KeyObject[] {
  return [...text.matchAll(PEM_BLOCK)].map(([block, label]) =>
    label === 'CERTIFICATE' ? new X509Certificate(block).publicKey : createPublicKey(block),
  );
}

function toSpkiPem(key: KeyObject): string {
  return createPublicKey(key).export({ type: 'spki', format: 'pem' }).toString();
}

/** A damaged file is reported, never silently replaced: it may be an operator's. */
function parseOrExplain<T>(path: string, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    throw new Error(`${path}: cannot parse (${(err as Error).message}); fix or remove it to regenerate`);
  }
}

const SECRET_FIELDS = ['servingKeyPem', 'adminToken'] as const;

/**
 * Keeps the plain object (destructuring, spreading work as usual) but makes
 * logging it — util.inspect, console.log, JSON.stringify, pino — show
 * `[redacted]` in place of the serving key and the admin token.
 */
function redactSecrets(files: DataDirFiles): DataDirFiles {
  const redacted = () => ({ ...files, ...Object.fromEntries(SECRET_FIELDS.map((f) => [f, '[redacted]'])) });
  Object.defineProperty(files, 'toJSON', { value: redacted, enumerable: false });
  Object.defineProperty(files, inspect.custom, {
    value: (depth: number, opts: object) => inspect(redacted(), { ...opts, depth }),
    enumerable: false,
  });
  return files;
}
