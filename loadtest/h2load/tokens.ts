/**
 * What a service-account token costs per request once its decision is cached,
 * next to the static token: gets/s of 1 KiB ConfigMaps under h2load (32
 * connections, TLS) with the data dir's static admin token and with a
 * TokenRequest token of a service account, on the uWS listener (HTTP/1.1) and
 * the secure port (HTTP/2). Runs of the two kinds alternate so drift on a
 * shared machine hits both alike; the median of each is reported with the
 * ratio (target: service-account tokens within 10% of static tokens).
 *
 *   node --import tsx loadtest/h2load/tokens.ts [--out=<file>]
 *   (also run by `npm run bench` after the h2load section)
 *
 * Knobs: BENCH_TOKENS_SECONDS=6 (one measured run), BENCH_TOKENS_RUNS=3 (per
 * kind, median), BENCH_H2LOAD_CLIENTS=32. Skips with a message without h2load.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { argValue, envNumber, haveCommand } from '../lib/env.ts';
import { describeMachine, machineInfo } from '../lib/machine.ts';
import { processCpuSeconds } from '../lib/memory.ts';
import { median } from '../lib/stats.ts';
import { makeTempDir, removeTempDir } from '../lib/tmp.ts';
import { writeResults } from '../lib/results.ts';
import { REPO_ROOT, describeServer, startApiServer, stopEverything, type ServerHandle } from '../api/server.ts';
import { H1Client } from '../api/client.ts';
import { runH2load } from './h2load.ts';

const SECONDS = envNumber('BENCH_TOKENS_SECONDS', 6);
const RUNS = envNumber('BENCH_TOKENS_RUNS', 3);
const CLIENTS = envNumber('BENCH_H2LOAD_CLIENTS', 32);
const OBJECTS = 200;
const NS = '/api/v1/namespaces/default';

type Kind = 'static' | 'service-account';
type Port = 'uws-h1' | 'secure-h2';
const PORT_LABEL: Record<Port, string> = { 'uws-h1': 'uWS listener, HTTP/1.1', 'secure-h2': 'secure port, HTTP/2' };

async function prepare(server: ServerHandle): Promise<string> {
  const client = new H1Client('seed', server.securePort, server.ca, server.token, { maxSockets: 16 });
  try {
    await Promise.all(
      Array.from({ length: OBJECTS }, async (_, i) => {
        const body = Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `tok-${i}` }, data: { v: 'x'.repeat(1024) } }));
        const r = await client.request('POST', `${NS}/configmaps`, body);
        if (r.status !== 201 && r.status !== 409) throw new Error(`seeding tok-${i}: HTTP ${r.status}`);
      }),
    );
    const sa = await client.request('POST', `${NS}/serviceaccounts`, Buffer.from(JSON.stringify({ metadata: { name: 'bench' } })));
    if (sa.status !== 201 && sa.status !== 409) throw new Error(`creating the service account: HTTP ${sa.status}`);
    const tr = await client.request('POST', `${NS}/serviceaccounts/bench/token`, Buffer.from(JSON.stringify({ spec: { expirationSeconds: 7200 } })), true);
    if (tr.status !== 201 || tr.body === null) throw new Error(`TokenRequest: HTTP ${tr.status} ${tr.body?.toString('utf8').slice(0, 300)}`);
    return (JSON.parse(tr.body.toString('utf8')) as { status: { token: string } }).status.token;
  } finally {
    await client.close();
  }
}

const fmt = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a');
const row = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;

async function main(argv: readonly string[] = process.argv.slice(2)): Promise<number> {
  if (!haveCommand('h2load')) {
    console.log('token benchmark skipped: h2load is not installed (apt-get install nghttp2-client).');
    return 0;
  }
  const out = argValue('out', argv) ?? join(REPO_ROOT, 'loadtest/results/tokens.md');
  const dir = await makeTempDir('orch-tokens');
  const lines: string[] = [
    '# Static vs service-account bearer tokens',
    '',
    `Machine: ${describeMachine(machineInfo())}. Server: ${describeServer()}, embedded store.`,
    `h2load ${CLIENTS} connections (one stream each), TLS, GETs of ${OBJECTS} 1 KiB ConfigMaps; the static token of the data dir`,
    `vs a TokenRequest token (RS256, decision cached after the first request); ${RUNS} runs of ${SECONDS} s per kind, alternating,`,
    'after a 2 s warm-up of each; median; server CPU (all threads, /proc) per successful request.',
    'Command: node --import tsx loadtest/h2load/tokens.ts',
    '',
    row(['front end', 'static gets/s', 'CPU µs/get', 'service-account gets/s', 'CPU µs/get', 'SA / static', 'failed']),
    row(['---', '---:', '---:', '---:', '---:', '---:', '---:']),
  ];
  const server = await startApiServer('embedded', null);
  try {
    const saToken = await prepare(server);
    const tokens: Record<Kind, string> = { static: server.token, 'service-account': saToken };
    for (const port of ['uws-h1', 'secure-h2'] as const) {
      const p = port === 'uws-h1' ? server.uwsPort : server.securePort;
      const uris = join(dir, `uris-${port}.txt`);
      await writeFile(uris, Array.from({ length: OBJECTS }, (_, i) => `https://127.0.0.1:${p}${NS}/configmaps/tok-${i}`).join('\n') + '\n');
      const base = { url: `https://127.0.0.1:${p}`, h1: port === 'uws-h1', clients: CLIENTS, method: 'GET' as const, inputFile: uris };
      const rates: Record<Kind, number[]> = { static: [], 'service-account': [] };
      const cpu: Record<Kind, number[]> = { static: [], 'service-account': [] };
      let failed = 0;
      for (const kind of ['static', 'service-account'] as const) await runH2load({ ...base, token: tokens[kind], seconds: 2 });
      for (let i = 0; i < RUNS; i++) {
        const order: Kind[] = i % 2 === 0 ? ['static', 'service-account'] : ['service-account', 'static'];
        for (const kind of order) {
          const cpu0 = processCpuSeconds(server.pid) ?? 0;
          const r = await runH2load({ ...base, token: tokens[kind], seconds: SECONDS });
          const cpu1 = processCpuSeconds(server.pid) ?? 0;
          rates[kind].push(r.succeeded / r.seconds);
          cpu[kind].push(r.succeeded > 0 ? ((cpu1 - cpu0) * 1e6) / r.succeeded : NaN);
          failed += r.failed + r.non2xx;
        }
      }
      const s = median(rates.static);
      const sa = median(rates['service-account']);
      const line = row([PORT_LABEL[port], fmt(s), fmt(median(cpu.static)), fmt(sa), fmt(median(cpu['service-account'])), `${((sa / s) * 100).toFixed(1)}%`, String(failed)]);
      console.log(line);
      lines.push(line);
    }
  } finally {
    await server.stop();
    await removeTempDir(dir);
    await stopEverything();
  }
  await writeResults(out, lines);
  return 0;
}

/** For loadtest/run.ts: the token section (--out=... is ignored there: it writes loadtest/results/tokens.md). */
export async function runTokenBench(): Promise<number> {
  return main([]);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exit(await main());
}
