/**
 * Requests/s on the secure port (HTTP/2) with a bootstrap token next to the
 * static token file's admin token, and through the authenticating proxy
 * (client certificate + X-Remote-User), on one in-process server: GET of a
 * namespace, 32 streams on one session, rounds interleaved so that the
 * machine's load hits every method alike. Decisions are cached after the
 * first request, so the difference is the per-request cost of each method.
 *
 *   node --import tsx loadtest/http/authn-tokens.ts [--seconds=3] [--rounds=3]
 */
import http2 from 'node:http2';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { webcrypto } from 'node:crypto';
import { startTestServer } from '../../test/support/test-server.ts';
import { EKU, issue } from '../../test/authn/support/pki.ts';
import { names } from '../../src/naming/index.ts';
import { argValue } from '../lib/env.ts';
import { loadAverage } from '../lib/machine.ts';

const seconds = Number(argValue('seconds') ?? 3);
const rounds = Number(argValue('rounds') ?? 3);
const STREAMS = 32;

const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'orch-authn-bench-'));
const ca = await issue({ subject: 'CN=front-proxy-ca', ca: true });
const proxy = await issue({ subject: 'CN=front-proxy', issuer: ca, eku: [EKU.clientAuth] });
const proxyKey = `-----BEGIN PRIVATE KEY-----\n${Buffer.from(await webcrypto.subtle.exportKey('pkcs8', proxy.keys.privateKey)).toString('base64')}\n-----END PRIVATE KEY-----\n`;
await fs.writeFile(path.join(dir, 'ca.crt'), ca.pem);
const ts = await startTestServer([
  '--enable-bootstrap-token-auth',
  `--requestheader-client-ca-file=${path.join(dir, 'ca.crt')}`,
  '--requestheader-username-headers=X-Remote-User',
  '--requestheader-group-headers=X-Remote-Group',
]);
const serverCa = await fs.readFile(ts.server.files.caCertPath);
const created = await ts.request('POST', `/api/v1/namespaces/${names.systemNamespace}/secrets`, {
  metadata: { name: 'bootstrap-token-bench0' },
  type: names.secretTypes.bootstrapToken,
  stringData: { 'token-id': 'bench0', 'token-secret': '0123456789abcdef', 'usage-bootstrap-authentication': 'true' },
});
if (created.status !== 201) throw new Error(`secret: ${created.status} ${created.body}`);
await new Promise((r) => setTimeout(r, 500));

interface Method {
  readonly name: string;
  readonly headers: Record<string, string>;
  readonly tls?: { cert: string; key: string };
}
const methods: Method[] = [
  { name: 'static token', headers: { authorization: `Bearer ${ts.server.files.adminToken}` } },
  { name: 'bootstrap token', headers: { authorization: 'Bearer bench0.0123456789abcdef' } },
  { name: 'request header (proxy cert)', headers: { 'x-remote-user': 'alice', 'x-remote-group': 'system:masters' }, tls: { cert: proxy.pem, key: proxyKey } },
];

async function round(m: Method): Promise<number> {
  const session = http2.connect(`https://127.0.0.1:${ts.securePort}`, { ca: serverCa, servername: 'localhost', ...(m.tls ?? {}) });
  await new Promise<void>((resolve, reject) => session.once('connect', () => resolve()).once('error', reject));
  let done = 0;
  let failed = 0;
  let running = true;
  const started = performance.now();
  await new Promise<void>((resolve) => {
    let open = 0;
    const loop = (): void => {
      open++;
      const stream = session.request({ ':path': '/api/v1/namespaces/default', accept: 'application/json', ...m.headers });
      stream.on('response', (h) => {
        if (h[':status'] !== 200) failed++;
      });
      stream.resume();
      const end = (): void => {
        open--;
        done++;
        if (running) loop();
        else if (open === 0) resolve();
      };
      stream.on('end', end);
      stream.on('error', end);
    };
    for (let i = 0; i < STREAMS; i++) loop();
    setTimeout(() => (running = false), seconds * 1000);
  });
  const elapsed = (performance.now() - started) / 1000;
  session.close();
  if (failed > 0) throw new Error(`${m.name}: ${failed} requests not 200`);
  return done / elapsed;
}

const rates = new Map<string, number[]>(methods.map((m) => [m.name, []]));
for (let r = 0; r < rounds; r++) for (const m of methods) rates.get(m.name)!.push(await round(m));
console.log(`GET namespace over HTTP/2, ${STREAMS} streams, ${rounds} x ${seconds}s per method, load average ${loadAverage().toFixed(1)} at the end:`);
for (const [name, rs] of rates) console.log(`  ${name.padEnd(30)} ${rs.map((x) => x.toFixed(0)).join(' / ')} req/s (median ${[...rs].sort((a, b) => a - b)[Math.floor(rs.length / 2)]!.toFixed(0)})`);
await ts.stop();
await fs.rm(dir, { recursive: true, force: true });
