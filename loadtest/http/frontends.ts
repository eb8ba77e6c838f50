/**
 * Front-end benchmark: requests/s and latency for a trivial JSON handler on
 * uWS (HTTP/1.1 keep-alive, TLS) and on the node front end over HTTP/1.1 and
 * over HTTP/2 (multiplexed streams). The load comes from a separate process
 * on its own core; this process is the server, and also reports how much of
 * its core each request cost (CPU µs per request), which stays meaningful
 * when the load generator, not the server, is the limit.
 *
 *   node --import tsx loadtest/http/frontends.ts
 *
 * Loopback only, about 40 s in all. Writes loadtest/results/http.md.
 */
import { fork } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import type { Frontend } from '../../src/frontends/frontend.ts';
import { startNodeFrontend } from '../../src/frontends/node-http2.ts';
import { startUwsFrontend } from '../../src/frontends/uws.ts';
import { loadUws } from '../../src/frontends/uws-loader.ts';
import type { RequestHandler } from '../../src/server/http.ts';
import { makeTestPki } from '../../test/frontends/support/certs.ts';
import { machineDescription, uwsVersion } from './machine.ts';
import { pin } from './pinning.ts';
import type { ClientConfig, ClientMessage, ClientResult } from './protocol.ts';

const WARMUP_MS = 2_000;
const MEASURE_MS = 8_000;
const IN_FLIGHT = 32;

interface Scenario {
  name: string;
  frontend: 'uws' | 'node';
  protocol: 'http/1.1' | 'h2';
  connections: number;
  streamsPerConnection: number;
}

const scenarios: Scenario[] = [
  { name: 'uWS, HTTP/1.1 keep-alive', frontend: 'uws', protocol: 'http/1.1', connections: IN_FLIGHT, streamsPerConnection: 1 },
  { name: 'node, HTTP/1.1 keep-alive', frontend: 'node', protocol: 'http/1.1', connections: IN_FLIGHT, streamsPerConnection: 1 },
  { name: 'node, HTTP/2 (4 conns x 8 streams)', frontend: 'node', protocol: 'h2', connections: 4, streamsPerConnection: IN_FLIGHT / 4 },
  { name: 'node, HTTP/2 (1 conn x 32 streams)', frontend: 'node', protocol: 'h2', connections: 1, streamsPerConnection: IN_FLIGHT },
];

interface Row {
  scenario: Scenario;
  result: ClientResult;
  serverCpuMicrosPerRequest: number;
  serverCpuShare: number;
  served: number;
}

let served = 0;
// What a cheap API call looks like: a small object serialized per request.
const handler: RequestHandler = async (req, res) => {
  served++;
  const body = JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', path: req.path });
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(body);
};

function runClient(config: ClientConfig): Promise<{ result: ClientResult; cpuMicros: number; wallMicros: number; served: number }> {
  return new Promise((resolve, reject) => {
    const child = fork(new URL('./load-client.ts', import.meta.url), [JSON.stringify(config)], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    if (child.pid !== undefined) pin(child.pid, 1);
    let cpuStart = process.cpuUsage();
    let wallStart = performance.now();
    let servedStart = 0;
    child.on('message', (message: ClientMessage) => {
      if (message.type === 'measure-start') {
        cpuStart = process.cpuUsage();
        wallStart = performance.now();
        servedStart = served;
      } else if (message.type === 'measure-end') {
        const cpu = process.cpuUsage(cpuStart);
        resolve({
          result: message.result,
          cpuMicros: cpu.user + cpu.system,
          wallMicros: (performance.now() - wallStart) * 1000,
          served: served - servedStart,
        });
      } else {
        reject(new Error(message.error));
      }
    });
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`load client exited with ${code}`));
    });
  });
}

const fmt = (n: number, digits = 0): string => (Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : 'n/a');

function table(rows: Row[]): string {
  const lines = [
    '| front end | requests/s | p50 µs | p99 µs | server CPU µs/req | server core busy | errors |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.scenario.name} | ${fmt(r.result.requests / r.result.seconds)} | ${fmt(r.result.p50Micros)} | ${fmt(r.result.p99Micros)} | ${fmt(r.serverCpuMicrosPerRequest, 1)} | ${fmt(r.serverCpuShare * 100)}% | ${r.result.errors} |`,
    );
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const pinned = pin(process.pid, 0);
  const pki = await makeTestPki();
  const uws = loadUws();
  const frontends: Partial<Record<'uws' | 'node', Frontend>> = {};
  frontends.node = await startNodeFrontend({ host: '127.0.0.1', port: 0, tls: { cert: pki.serverCertPem, key: pki.serverKeyPem }, handler });
  if (uws !== null) {
    frontends.uws = await startUwsFrontend({ host: '127.0.0.1', port: 0, tls: { certFile: pki.serverCertFile, keyFile: pki.serverKeyFile }, handler, uws });
  }

  const rows: Row[] = [];
  // BENCH_ONLY=node narrows the run to scenarios whose name contains it.
  const only = process.env.BENCH_ONLY;
  for (const scenario of scenarios.filter((s) => only === undefined || s.name.includes(only))) {
    const frontend = frontends[scenario.frontend];
    if (frontend === undefined) {
      console.log(`skipped: ${scenario.name} (uWS unavailable)`);
      continue;
    }
    const run = await runClient({
      protocol: scenario.protocol,
      port: frontend.port,
      path: '/api/v1/namespaces/default/pods/bench',
      connections: scenario.connections,
      streamsPerConnection: scenario.streamsPerConnection,
      warmupMs: WARMUP_MS,
      measureMs: MEASURE_MS,
      ca: pki.serverCaPem,
    });
    const row: Row = {
      scenario,
      result: run.result,
      serverCpuMicrosPerRequest: run.cpuMicros / Math.max(1, run.served),
      serverCpuShare: run.cpuMicros / run.wallMicros,
      served: run.served,
    };
    rows.push(row);
    console.log(`${scenario.name}: ${fmt(row.result.requests / row.result.seconds)} req/s, p50 ${fmt(row.result.p50Micros)} µs, p99 ${fmt(row.result.p99Micros)} µs, server ${fmt(row.serverCpuMicrosPerRequest, 1)} µs CPU/req (${fmt(row.serverCpuShare * 100)}% of its core)`);
    // Let connections close before the next scenario.
    await new Promise((r) => setTimeout(r, 300));
  }

  for (const f of Object.values(frontends)) await f.close();
  await pki.cleanup();

  const report = [
    '# HTTP front-end benchmark',
    '',
    `Produced by \`node --import tsx loadtest/http/frontends.ts\` on ${new Date().toISOString().slice(0, 10)}.`,
    '',
    `Machine: ${machineDescription()}; uWS ${uwsVersion()} (native binary).`,
    `Server and load generator in separate processes${pinned ? ', pinned to cores 0 and 1 with taskset' : ' (not pinned: taskset or a second core missing)'}.`,
    `Handler: a trivial JSON response (a small object serialized per request, about 100 bytes). TLS (ECDSA P-256) on 127.0.0.1, ${IN_FLIGHT} requests in flight, ${WARMUP_MS / 1000} s warm-up, ${MEASURE_MS / 1000} s measured per row.`,
    '',
    table(rows),
    '',
    'Reading it:',
    '- requests/s and latency are what the load generator saw; "server CPU µs/req" is the server process\'s own CPU time (user + system, TLS included) divided by the requests it served in the window.',
    '- "server core busy" below ~95% means the load generator, not the server, set the pace: compare CPU µs/req then.',
    '- The HTTP/2 rows are paced by the load generator: node\'s own HTTP/2 client needs about 40 µs of its core per request, so the server idles about half the time. Compare their CPU µs/req (which would fall somewhat under full load, as event-loop turns batch more).',
    '- HTTP/1.1 clients do not pipeline (real ones do not either; this uWS closes a connection that pipelines into a handler still awaiting I/O).',
    '',
  ].join('\n');
  await mkdir(new URL('../results/', import.meta.url), { recursive: true });
  await writeFile(new URL('../results/http.md', import.meta.url), report);
  console.log(`\n${table(rows)}\n\nwritten to loadtest/results/http.md`);
}

await main();
