/**
 * What a bearer token's method costs once its result is cached: GETs/s of
 * one small object with the static token next to an OIDC ID token (from a
 * real identity provider on loopback) and a token-webhook token (a real
 * HTTPS webhook), on the uWS listener (HTTP/1.1) and the secure port
 * (HTTP/2). The server is the whole program as a child process
 * (loadtest/api/server.ts); the load generator runs here.
 *
 *   node --import tsx loadtest/authn/run.ts [--out=<file>]
 *
 * Each cell: a warm-up, then the median of BENCH_AUTHN_RUNS (3) timed runs
 * of BENCH_AUTHN_SECONDS (5) s at concurrency BENCH_AUTHN_CONCURRENCY (32),
 * token kinds interleaved and their order rotated run by run, so drift in
 * the machine's load hits them alike. Also reports how many calls the provider and the webhook saw
 * during the timed runs (a cached method makes none).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { argValue } from '../lib/env.ts';
import { describeMachine, machineInfo } from '../lib/machine.ts';
import { renderMarkdown, renderText } from '../lib/table.ts';
import { drive, sleep } from '../lib/timer.ts';
import { median } from '../lib/stats.ts';
import { H1Client, H2Client, type ApiClient } from '../api/client.ts';
import { REPO_ROOT, describeServer, startApiServer, stopEverything, type ServerHandle } from '../api/server.ts';
import { createTestIdp } from '../../test/authn/support/idp.ts';
import { createTestWebhook, reviewAnswer } from '../../test/authn/support/webhook-server.ts';

const PATH = '/api/v1/namespaces/default';
const CLIENT_ID = 'orch-bench';
const WEBHOOK_TOKEN = 'bench-webhook-token-0123456789abcdef';

const num = (name: string, dflt: number): number => {
  const v = Number(process.env[name] ?? dflt);
  if (!Number.isFinite(v) || v <= 0) throw new Error(`${name} must be a positive number`);
  return v;
};
const RUNS = num('BENCH_AUTHN_RUNS', 3);
const SECONDS = num('BENCH_AUTHN_SECONDS', 5);
const CONCURRENCY = num('BENCH_AUTHN_CONCURRENCY', 32);

type Front = 'uws-h1' | 'node-h2';
const FRONT_LABEL: Record<Front, string> = { 'uws-h1': 'uWS, HTTP/1.1', 'node-h2': 'secure port, HTTP/2' };
type Kind = 'static' | 'oidc' | 'webhook';
const KIND_LABEL: Record<Kind, string> = { static: 'static token (--token-auth-file)', oidc: 'OIDC ID token (cached)', webhook: 'token webhook (cached)' };

async function open(server: ServerHandle, front: Front, token: string): Promise<ApiClient> {
  return front === 'uws-h1'
    ? new H1Client(front, server.uwsPort, server.ca, token, { maxSockets: CONCURRENCY })
    : H2Client.connect(front, server.securePort, server.ca, token);
}

async function rate(client: ApiClient, seconds: number): Promise<number> {
  const r = await drive({ concurrency: CONCURRENCY, durationMs: seconds * 1000, latencies: false }, async () => {
    const reply = await client.request('GET', PATH);
    if (reply.status !== 200) throw new Error(`GET ${PATH}: ${reply.status} ${reply.body?.toString('utf8').slice(0, 200) ?? ''}`);
  });
  return r.rate;
}

async function main(): Promise<number> {
  const out = argValue('out') ?? join(REPO_ROOT, 'loadtest/results/authn.md');
  const machine = machineInfo();
  const idp = await createTestIdp({ clientId: CLIENT_ID });
  const hook = await createTestWebhook();
  hook.answer = (review) =>
    (review['spec'] as { token?: string }).token === WEBHOOK_TOKEN
      ? reviewAnswer(String(review['apiVersion']), { authenticated: true, user: { username: 'bench-webhook', groups: ['bench'] } })
      : reviewAnswer(String(review['apiVersion']), { authenticated: false });
  let server: ServerHandle | undefined;
  try {
    server = await startApiServer('embedded', null, [
      `--oidc-issuer-url=${idp.issuer}`,
      `--oidc-client-id=${CLIENT_ID}`,
      `--oidc-ca-file=${idp.tls.caFile}`,
      `--authentication-token-webhook-config-file=${await hook.kubeconfig()}`,
    ]);
    const tokens: Record<Kind, string> = {
      static: server.token,
      oidc: await idp.sign({ sub: 'bench', exp: Math.floor(Date.now() / 1000) + 3600 }),
      webhook: WEBHOOK_TOKEN,
    };
    // Discovery runs in the background: wait until the OIDC token is accepted.
    const probe = await open(server, 'uws-h1', tokens.oidc);
    for (let i = 0; (await probe.request('GET', PATH)).status !== 200; i++) {
      if (i > 300) throw new Error('the OIDC token was never accepted');
      await sleep(100);
    }
    await probe.close();

    const rows: string[][] = [];
    const calls = { provider: 0, webhook: 0 };
    for (const front of ['uws-h1', 'node-h2'] as const) {
      const clients = {} as Record<Kind, ApiClient>;
      for (const kind of Object.keys(tokens) as Kind[]) {
        clients[kind] = await open(server, front, tokens[kind]);
        await rate(clients[kind], 2); // warm-up: connections, JIT, the caches
      }
      const before = { provider: idp.hits.discovery + idp.hits.jwks, webhook: hook.calls.length };
      const rates: Record<Kind, number[]> = { static: [], oidc: [], webhook: [] };
      const kinds = Object.keys(tokens) as Kind[];
      for (let run = 0; run < RUNS; run++) {
        // Rotated each run, so no kind always goes first (servers warm up, machines' loads drift).
        for (let k = 0; k < kinds.length; k++) {
          const kind = kinds[(k + run) % kinds.length]!;
          rates[kind].push(await rate(clients[kind], SECONDS));
        }
      }
      calls.provider += idp.hits.discovery + idp.hits.jwks - before.provider;
      calls.webhook += hook.calls.length - before.webhook;
      for (const c of Object.values(clients)) await c.close();
      const base = median(rates.static);
      for (const kind of Object.keys(tokens) as Kind[]) {
        const m = median(rates[kind]);
        rows.push([FRONT_LABEL[front], KIND_LABEL[kind], Math.round(m).toLocaleString('en-US'), kind === 'static' ? '—' : `${(((m - base) / base) * 100).toFixed(1)}%`]);
      }
    }
    const table = { headers: ['front end', 'bearer token', 'GETs/s (median)', 'vs static'], rows, alignRight: new Set([2, 3]) };
    const notes = [
      `GET ${PATH}, concurrency ${CONCURRENCY}, median of ${RUNS} runs of ${SECONDS} s after a 2 s warm-up each; kinds interleaved, their order rotated run by run.`,
      `Calls the identity provider saw during the timed runs: ${calls.provider}; the webhook: ${calls.webhook} (cached methods make none).`,
      `Server: ${describeServer()}.`,
      `Machine: ${describeMachine(machine)}.`,
      'The load generator runs on the same machine as the server and competes with it for CPU.',
    ];
    console.log(renderText(table));
    for (const n of notes) console.log(n);
    await mkdir(dirname(out), { recursive: true });
    await writeFile(
      out,
      ['# Authentication: cached bearer-token methods', '', `\`node --import tsx loadtest/authn/run.ts\` (${relative(REPO_ROOT, out)})`, '', renderMarkdown(table), '', ...notes.map((n) => `- ${n}`), ''].join('\n'),
    );
    console.log(`written to ${relative(REPO_ROOT, out)}`);
    return 0;
  } finally {
    await server?.stop();
    await idp.close();
    await hook.close();
  }
}

process.once('SIGINT', () => void stopEverything().then(() => process.exit(130)));
try {
  process.exitCode = await main();
} catch (err) {
  console.error(err);
  await stopEverything();
  process.exitCode = 1;
}
