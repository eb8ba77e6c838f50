/**
 * Creates/s through one validating webhook that allows everything (issue 14):
 * h2load, 32 connections, TLS, bearer token, 1 KiB ConfigMaps with
 * generateName, on ours (uWS listener HTTP/1.1, secure port HTTP/2) and, with
 * `--original=<kube-apiserver>` (or BENCH_ORIGINAL_APISERVER), the original
 * over HTTP/1.1 and HTTP/2. First without any webhook configuration, then
 * with one ValidatingWebhookConfiguration for ConfigMap creates pointing at
 * an HTTPS webhook on loopback (node:https in this process, kept-alive,
 * answering `allowed: true`). Rounds interleaved over the targets, medians;
 * server CPU per create from /proc (the original: kube-apiserver + etcd);
 * the webhook's CPU per call (this process) is reported apart.
 *
 *   node --import tsx loadtest/webhook/run.ts [--original=/path/to/kube-apiserver] [--out=<file>]   (npm run bench:webhook)
 *
 * Knobs: BENCH_H2LOAD_SECONDS=6, BENCH_H2LOAD_RUNS=3, BENCH_H2LOAD_CLIENTS=32.
 * Writes loadtest/results/webhook.md.
 */
import https from 'node:https';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { CertificateAuthority } from '../../src/pki/ca.ts';
import { generatePemKeyPair } from '../../src/pki/keys.ts';
import { apiGroup } from '../../src/naming/index.ts';
import { describeServer, REPO_ROOT, startApiServer, stopEverything, type ServerHandle } from '../api/server.ts';
import { H1Client } from '../api/client.ts';
import { runH2load } from '../h2load/h2load.ts';
import { argValue, envNumber } from '../lib/env.ts';
import { describeMachine, loadAverage, machineInfo } from '../lib/machine.ts';
import { median } from '../lib/stats.ts';
import { makeTempDir, removeTempDir } from '../lib/tmp.ts';
import { exitOnSignals, foreignLoadGenerators, startOriginalApiServer, type OriginalHandle } from '../original/apiserver.ts';
import { oursTargets, originalTargets } from '../original/side-by-side.ts';
import type { Target } from '../original/target.ts';

const SECONDS = envNumber('BENCH_H2LOAD_SECONDS', 6);
const RUNS = envNumber('BENCH_H2LOAD_RUNS', 3);
const CLIENTS = envNumber('BENCH_H2LOAD_CLIENTS', 32);
const NS_PATH = '/api/v1/namespaces/default/configmaps';

interface AllowAllWebhook {
  readonly url: string;
  readonly caBundle: string;
  calls: number;
  close(): Promise<void>;
}

/** The webhook: every review answered `allowed: true` in the review's own version. */
async function startWebhook(): Promise<AllowAllWebhook> {
  const ca = await CertificateAuthority.create({ commonName: 'bench-webhook-ca', durationSeconds: 24 * 3600 });
  const key = await generatePemKeyPair('ecdsa-p256');
  const cert = await ca.issue({ subject: { commonName: 'webhook' }, publicKey: key.publicKeyPem, usages: ['digital signature', 'key encipherment', 'server auth'], ipAddresses: ['127.0.0.1'], durationSeconds: 24 * 3600 });
  const hook = { url: '', caBundle: Buffer.from(ca.certificatePem).toString('base64'), calls: 0, close: async () => undefined };
  const server = https.createServer({ cert, key: key.privateKeyPem, keepAliveTimeout: 120_000 }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      hook.calls++;
      let review: { apiVersion?: string; request?: { uid?: string } } = {};
      try {
        review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof review;
      } catch {
        res.writeHead(400).end();
        return;
      }
      const body = JSON.stringify({ apiVersion: review.apiVersion, kind: 'AdmissionReview', response: { uid: review.request?.uid, allowed: true } });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  hook.url = `https://127.0.0.1:${(server.address() as import('node:net').AddressInfo).port}/validate`;
  hook.close = () =>
    new Promise<undefined>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve(undefined));
    });
  return hook;
}

function configuration(group: string, hook: AllowAllWebhook): Buffer {
  return Buffer.from(
    JSON.stringify({
      apiVersion: `${group}/v1`,
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'allow-all' },
      webhooks: [
        {
          name: 'allow-all.bench.example.com',
          clientConfig: { url: hook.url, caBundle: hook.caBundle },
          rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          failurePolicy: 'Fail',
        },
      ],
    }),
  );
}

/** Creates the configuration and waits until a create reaches the webhook (configurations take effect through a watch). */
async function installWebhook(t: Target, group: string, hook: AllowAllWebhook): Promise<void> {
  const client = new H1Client(`webhook-${t.key}`, t.port, t.ca, t.token, { maxSockets: 1 });
  try {
    const r = await client.request('POST', `/apis/${group}/v1/validatingwebhookconfigurations`, configuration(group, hook));
    if (r.status !== 201) throw new Error(`creating the webhook configuration on ${t.label}: HTTP ${r.status} ${r.body?.toString('utf8').slice(0, 300)}`);
    const deadline = Date.now() + 60_000;
    for (;;) {
      const before = hook.calls;
      const c = await client.request('POST', NS_PATH, Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'probe-' } })));
      if (c.status !== 201) throw new Error(`probe create on ${t.label}: HTTP ${c.status}`);
      if (hook.calls > before) return;
      if (Date.now() > deadline) throw new Error(`the webhook never took effect on ${t.label}`);
      await new Promise((r2) => setTimeout(r2, 200));
    }
  } finally {
    await client.close();
  }
}

interface Sample {
  readonly rate: number;
  readonly cpuUs: number;
  readonly hookCpuUs: number;
  readonly failed: number;
  readonly overlapped: boolean;
}

async function runOnce(t: Target, bodyFile: string, seconds: number, hook: AllowAllWebhook): Promise<Sample> {
  const overlapped = foreignLoadGenerators() > 0;
  const cpu0 = t.cpuSeconds();
  const calls0 = hook.calls;
  const own0 = process.cpuUsage();
  const r = await runH2load({ url: `https://127.0.0.1:${t.port}`, h1: t.h1, token: t.token, clients: CLIENTS, seconds, method: 'POST', dataFile: bodyFile, path: NS_PATH });
  const own = process.cpuUsage(own0);
  const cpu = t.cpuSeconds() - cpu0;
  const calls = hook.calls - calls0;
  return {
    rate: r.succeeded / r.seconds,
    cpuUs: r.succeeded > 0 ? (cpu * 1e6) / r.succeeded : NaN,
    hookCpuUs: calls > 0 ? (own.user + own.system) / calls : NaN,
    failed: r.failed + r.non2xx,
    overlapped,
  };
}

async function rounds(targets: readonly Target[], bodyFile: string, hook: AllowAllWebhook, phase: string, log: (s: string) => void): Promise<Map<string, Sample[]>> {
  const out = new Map<string, Sample[]>();
  for (const t of targets) await runOnce(t, bodyFile, 2, hook); // warm-up
  for (let r = 0; r < RUNS; r++) {
    for (const t of targets.map((_, i) => targets[(i + r) % targets.length]!)) {
      const s = await runOnce(t, bodyFile, SECONDS, hook);
      log(`  ${phase} round ${r + 1} ${t.label}: ${fmt(s.rate)} creates/s, ${fmt(s.cpuUs)} µs server CPU/create, ${s.failed} failed${s.overlapped ? ' (another h2load was running)' : ''}`);
      out.set(t.key, [...(out.get(t.key) ?? []), s]);
    }
  }
  return out;
}

const fmt = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a');
const row = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;

async function main(): Promise<number> {
  exitOnSignals();
  const binary = argValue('original') ?? process.env['BENCH_ORIGINAL_APISERVER'];
  const outFile = argValue('out') ?? join(REPO_ROOT, 'loadtest/results/webhook.md');
  const log = (s: string): void => console.log(s);
  const machine = describeMachine(machineInfo());
  const dir = await makeTempDir('orch-webhook-bench');
  let ours: ServerHandle | null = null;
  let original: OriginalHandle | null = null;
  const hook = await startWebhook();
  try {
    ours = await startApiServer('embedded', null);
    const targets: Target[] = [...oursTargets(ours)];
    if (binary !== undefined) {
      original = await startOriginalApiServer(binary);
      targets.push(...originalTargets(original));
    }
    log(`webhook at ${hook.url}; ours on ${ours.uwsPort} (uWS) and ${ours.securePort}${original ? `; original (${original.version}) on ${original.securePort}` : ''}`);
    const bodyFile = join(dir, 'create.json');
    await writeFile(bodyFile, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'h2l-' }, data: { v: 'x'.repeat(1024) } }));
    const without = await rounds(targets, bodyFile, hook, 'no webhook', log);
    await installWebhook(targets[0]!, apiGroup('admissionregistration'), hook);
    if (original !== null) await installWebhook(targets[2]!, 'admissionregistration.k8s.io', hook);
    const withHook = await rounds(targets, bodyFile, hook, 'one webhook', log);

    const med = (m: Map<string, Sample[]>, k: string, f: (s: Sample) => number): number => median((m.get(k) ?? []).map(f));
    const lines = [
      row(['', ...targets.map((t) => t.label)]),
      row(['---', ...targets.map(() => '---:')]),
      row(['creates/s, no webhook', ...targets.map((t) => fmt(med(without, t.key, (s) => s.rate)))]),
      row(['creates/s, one allow-all webhook', ...targets.map((t) => fmt(med(withHook, t.key, (s) => s.rate)))]),
      row(['with / without', ...targets.map((t) => `${(med(withHook, t.key, (s) => s.rate) / med(without, t.key, (s) => s.rate)).toFixed(2)}×`)]),
      row(['server CPU µs/create, no webhook', ...targets.map((t) => fmt(med(without, t.key, (s) => s.cpuUs)))]),
      row(['server CPU µs/create, one webhook', ...targets.map((t) => fmt(med(withHook, t.key, (s) => s.cpuUs)))]),
      row(['webhook CPU µs/call (this process)', ...targets.map((t) => fmt(med(withHook, t.key, (s) => s.hookCpuUs)))]),
      row(['failed or non-2xx', ...targets.map((t) => String([...(without.get(t.key) ?? []), ...(withHook.get(t.key) ?? [])].reduce((n, s) => n + s.failed, 0)))]),
    ];
    if (original !== null) {
      const ratio = (a: string, b: string): string => (med(withHook, a, (s) => s.rate) / med(withHook, b, (s) => s.rate)).toFixed(2) + '×';
      lines.push('', `Ours over the original with the webhook: uWS h1 / original h1 ${ratio('ours-uws-h1', 'orig-h1')}, secure h2 / original h2 ${ratio('ours-secure-h2', 'orig-h2')}.`);
    }
    const roundsLines = [row(['target', 'phase', ...Array.from({ length: RUNS }, (_, i) => `round ${i + 1} /s (µs CPU)`)]), row(['---', '---', ...Array.from({ length: RUNS }, () => '---:')])];
    for (const [phase, m] of [['no webhook', without], ['one webhook', withHook]] as const) {
      for (const t of targets) roundsLines.push(row([t.label, phase, ...(m.get(t.key) ?? []).map((s) => `${fmt(s.rate)} (${fmt(s.cpuUs)})${s.overlapped ? ' *' : ''}`)]));
    }
    const text = [
      '# Creates/s through one allow-all validating webhook (issue 14)',
      '',
      `Machine: ${machine}, ${loadAverage().toFixed(2)} at the end.`,
      `Ours: ${describeServer()}.`,
      original ? `Original: ${original.version}, flags as loadtest/original/apiserver.ts (default admission plugins, Node,RBAC), its own etcd.` : 'Original: not run (pass --original=<kube-apiserver>).',
      `Command: \`node --import tsx loadtest/webhook/run.ts${binary ? ' --original=<path to kube-apiserver>' : ''}\` with BENCH_H2LOAD_SECONDS=${SECONDS} BENCH_H2LOAD_RUNS=${RUNS} BENCH_H2LOAD_CLIENTS=${CLIENTS}.`,
      '',
      `h2load, ${CLIENTS} connections (one stream each), TLS, bearer token, 1 KiB ConfigMaps with generateName; ${RUNS} interleaved rounds of ${SECONDS} s after a 2 s warm-up per target, medians. The webhook: node:https in the benchmark process, one ValidatingWebhookConfiguration for ConfigMap CREATE, failurePolicy Fail, answering allowed: true (v1 AdmissionReview). Server CPU from /proc (the original: kube-apiserver + its etcd).`,
      '',
      ...lines,
      '',
      'Every round (`*`: another h2load was running when it started):',
      '',
      ...roundsLines,
      '',
    ].join('\n');
    log(text);
    await mkdir(dirname(outFile), { recursive: true });
    await writeFile(outFile, text);
    log(`written to ${outFile}`);
    return 0;
  } finally {
    await hook.close();
    await original?.stop();
    await ours?.stop();
    await stopEverything();
    await removeTempDir(dir);
  }
}

process.exitCode = await main();
