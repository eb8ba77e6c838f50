/**
 * The original API server (a kube-apiserver binary built outside this repo; how:
 * loadtest/results/vs-original.md) as a child process beside ours: its own etcd
 * (fsync on, like ours) on free loopback ports, a fresh serving certificate,
 * service-account key and static bearer token in a temp dir, bound to
 * 127.0.0.1 only. Its CPU is kube-apiserver plus its etcd, read from /proc.
 *
 * Nothing of the original is in this repository: the path comes from
 * `--original=` or BENCH_ORIGINAL_APISERVER.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CertificateAuthority } from '../../src/pki/ca.ts';
import { generatePemKeyPair } from '../../src/pki/keys.ts';
import { formatTokenRecord, newBearerToken } from '../../src/pki/token-file.ts';
import { H1Client } from '../api/client.ts';
import { freePort, startBenchEtcd, type EtcdHandle } from '../api/server.ts';
import { processCpuSeconds } from '../lib/memory.ts';
import { makeTempDir, removeTempDir } from '../lib/tmp.ts';
import { sleep } from '../lib/timer.ts';

const READY_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 10_000;
const LOG_TAIL = 16_384;

export interface OriginalHandle {
  readonly pid: number;
  readonly etcd: EtcdHandle;
  readonly securePort: number;
  readonly ca: Buffer;
  readonly token: string;
  /** `kube-apiserver --version`, e.g. "Kubernetes v1.25.0-k3s1". */
  readonly version: string;
  /** The flags it was started with (paths shortened to their file names). */
  readonly flags: readonly string[];
  /** CPU seconds of kube-apiserver plus its etcd so far (all threads, /proc). */
  cpuSeconds(): number;
  /** The same split into kube-apiserver and etcd. */
  cpuParts(): Record<string, number>;
  stderrTail(): string;
  stop(): Promise<void>;
}

const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of live) c.kill('SIGKILL');
});

/** The user the bench token belongs to; system:masters passes any authorizer (as the admin of a kubeadm cluster). */
const BENCH_USER = { user: 'bench-admin', uid: 'bench-admin', groups: ['system:masters'] };

export function originalVersion(binary: string): string {
  return execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim();
}

/**
 * The flags the original needs to run alone on loopback with its etcd. The
 * rest stays at its defaults (priority and fairness on, watch cache on,
 * default admission chain, protobuf in etcd), as a cluster runs it.
 * BENCH_ORIGINAL_AUTHZ picks the authorization modes (default Node,RBAC as
 * kubeadm sets it); BENCH_ORIGINAL_ARGS adds flags.
 */
function flagsFor(dir: string, securePort: number, etcdEndpoint: string): string[] {
  return [
    '--bind-address=127.0.0.1',
    `--secure-port=${securePort}`,
    // The address the "kubernetes" Service would point at; with the reconciler off nothing is written for it.
    '--advertise-address=127.0.0.1',
    '--endpoint-reconciler-type=none',
    `--cert-dir=${join(dir, 'cert-dir')}`,
    `--tls-cert-file=${join(dir, 'serving.crt')}`,
    `--tls-private-key-file=${join(dir, 'serving.key')}`,
    `--client-ca-file=${join(dir, 'ca.crt')}`,
    `--token-auth-file=${join(dir, 'tokens.csv')}`,
    '--service-account-issuer=https://kubernetes.default.svc',
    `--service-account-key-file=${join(dir, 'sa.pub')}`,
    `--service-account-signing-key-file=${join(dir, 'sa.key')}`,
    '--service-cluster-ip-range=10.96.0.0/16',
    `--etcd-servers=${etcdEndpoint}`,
    `--authorization-mode=${process.env['BENCH_ORIGINAL_AUTHZ'] ?? 'Node,RBAC'}`,
    '--profiling=false',
    '-v=0',
    ...(process.env['BENCH_ORIGINAL_ARGS'] ?? '').split(/\s+/).filter((f) => f !== ''),
  ];
}

/** CA, serving certificate for 127.0.0.1 (P-256, as ours), RSA service-account key, token file; all 0600. */
async function writeCredentials(dir: string): Promise<{ ca: Buffer; token: string }> {
  const ca = await CertificateAuthority.create({ commonName: 'bench-original-ca', durationSeconds: 2 * 24 * 3600 });
  const serving = await generatePemKeyPair('ecdsa-p256');
  const cert = await ca.issue({
    subject: { commonName: 'kube-apiserver' },
    publicKey: serving.publicKeyPem,
    usages: ['digital signature', 'key encipherment', 'server auth'],
    ipAddresses: ['127.0.0.1'],
    dnsNames: ['localhost'],
    durationSeconds: 24 * 3600,
  });
  const sa = await generatePemKeyPair('rsa-2048');
  const token = newBearerToken();
  const files: Array<[string, string]> = [
    ['ca.crt', ca.certificatePem],
    ['serving.crt', cert],
    ['serving.key', serving.privateKeyPem],
    ['sa.key', sa.privateKeyPem],
    ['sa.pub', sa.publicKeyPem],
    ['tokens.csv', formatTokenRecord({ token, ...BENCH_USER }) + '\n'],
  ];
  for (const [name, text] of files) await writeFile(join(dir, name), text, { mode: 0o600 });
  await mkdir(join(dir, 'cert-dir'), { mode: 0o700 });
  return { ca: Buffer.from(ca.certificatePem), token };
}

export async function startOriginalApiServer(binary: string): Promise<OriginalHandle> {
  const version = originalVersion(binary);
  const dir = await makeTempDir('orch-original');
  const etcd = await startBenchEtcd();
  if (etcd.pid === null) throw new Error('could not find the pid of the original\'s etcd (its CPU is part of the figures)');
  const { ca, token } = await writeCredentials(dir);
  const securePort = await freePort();
  const flags = flagsFor(dir, securePort, etcd.server.endpoint);
  const child = spawn(binary, flags, { stdio: ['ignore', 'ignore', 'pipe'] });
  live.add(child);
  let tail = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-LOG_TAIL);
  });
  let exited: string | null = null;
  const gone = new Promise<void>((res) => {
    child.once('exit', (code, signal) => {
      exited = `kube-apiserver exited (code ${code}, signal ${signal})`;
      live.delete(child);
      res();
    });
  });
  child.once('error', (err) => {
    exited = `kube-apiserver failed to start: ${err.message}`;
  });
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    if (exited === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await gone;
      clearTimeout(timer);
    }
    await etcd.stop();
    await removeTempDir(dir);
  };
  const etcdPid = etcd.pid;
  const handle: OriginalHandle = {
    pid: child.pid!,
    etcd,
    securePort,
    ca,
    token,
    version,
    flags: flags.map((f) => f.replace(dir + '/', '')),
    cpuSeconds: () => (processCpuSeconds(child.pid!) ?? 0) + (processCpuSeconds(etcdPid) ?? 0),
    cpuParts: () => ({ 'kube-apiserver': processCpuSeconds(child.pid!) ?? 0, etcd: processCpuSeconds(etcdPid) ?? 0 }),
    stderrTail: () => tail.split('\n').slice(-30).join('\n'),
    stop,
  };
  try {
    // Ready when /readyz answers 200 and the bootstrap controller has made the default namespace.
    const client = new H1Client('probe-original', securePort, ca, token, { maxSockets: 1, timeoutMs: 5000 });
    const deadline = Date.now() + READY_TIMEOUT_MS;
    try {
      for (;;) {
        if (exited) throw new Error(`${exited}\n${tail}`);
        if (Date.now() > deadline) throw new Error(`kube-apiserver not ready within ${READY_TIMEOUT_MS} ms\n${tail}`);
        const ok = await Promise.all(['/readyz', '/api/v1/namespaces/default'].map((p) => client.request('GET', p).then((r) => r.status === 200, () => false)));
        if (ok.every(Boolean)) break;
        await sleep(250);
      }
    } finally {
      await client.close();
    }
    return handle;
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * SIGINT/SIGTERM end the benchmark through process.exit, so the exit handlers
 * (here, in loadtest/api/server.ts, test/support/etcd-server.ts and
 * loadtest/lib/tmp.ts) kill every server and etcd it started and remove their
 * temp dirs; without this a signal leaves them running.
 */
export function exitOnSignals(): void {
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => process.exit(sig === 'SIGINT' ? 130 : 143));
}

/** h2load processes running now; called between our own runs, every one found belongs to someone else. */
export function foreignLoadGenerators(): number {
  let n = 0;
  let entries: string[] = [];
  try {
    entries = readdirSync('/proc');
  } catch {
    return 0;
  }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    try {
      if (readFileSync(`/proc/${e}/comm`, 'utf8').trim() === 'h2load') n++;
    } catch {
      // gone
    }
  }
  return n;
}
