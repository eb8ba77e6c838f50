/**
 * Does the server slow down as its store grows? Alternates h2load rounds of
 * GETs (of the same 1,000 objects) and creates (generateName, so every create
 * round adds objects) on one server, and reports each round's rate, server
 * CPU per request (/proc) and RSS against the number of objects stored. A flat
 * CPU-per-get column means gets do not pay for the store's size.
 *
 *   node --import tsx loadtest/h2load/growth.ts [--port=uws-h1|secure-h2] [--out=<file>]
 *
 * Knobs: BENCH_GROWTH_ROUNDS=6, BENCH_GROWTH_SECONDS=6, BENCH_H2LOAD_CLIENTS=32,
 * BENCH_SERVER_ARGS (extra server flags, as for every loadtest server).
 */
import { join } from 'node:path';
import { argValue, envNumber, haveCommand } from '../lib/env.ts';
import { describeMachine, machineInfo } from '../lib/machine.ts';
import { processCpuSeconds, processRss } from '../lib/memory.ts';
import { makeTempDir, removeTempDir } from '../lib/tmp.ts';
import { runAsScript, writeResults } from '../lib/results.ts';
import { fmtInt, mdRow } from '../lib/format.ts';
import { REPO_ROOT, describeServer, startApiServer, stopEverything } from '../api/server.ts';
import { runH2load } from './h2load.ts';
import { prepareFiles, rewriteUris, seedGets } from './run.ts';

const ROUNDS = envNumber('BENCH_GROWTH_ROUNDS', 6);
const SECONDS = envNumber('BENCH_GROWTH_SECONDS', 6);
const CLIENTS = envNumber('BENCH_H2LOAD_CLIENTS', 32);
const NS_PATH = '/api/v1/namespaces/default/configmaps';

const fmt = fmtInt;
const row = mdRow;

async function main(argv: readonly string[] = process.argv.slice(2)): Promise<number> {
  if (!haveCommand('h2load')) {
    console.log('growth benchmark skipped: h2load is not installed (apt-get install nghttp2-client).');
    return 0;
  }
  const port = argValue('port', argv) === 'secure-h2' ? 'secure-h2' : 'uws-h1';
  const out = argValue('out', argv) ?? join(REPO_ROOT, 'loadtest/results/growth.md');
  const lines = [
    '# Rates as the store grows',
    '',
    `Machine: ${describeMachine(machineInfo())}. Server: ${describeServer()}, embedded store.`,
    `h2load ${CLIENTS} connections (one stream each), TLS, bearer token, ${port === 'uws-h1' ? 'uWS listener, HTTP/1.1' : 'secure port, HTTP/2'};`,
    `${ROUNDS} rounds, each ${SECONDS} s of GETs of 1,000 1 KiB ConfigMaps then ${SECONDS} s of creates (generateName), no warm-up;`,
    'server CPU (all threads, /proc) per successful request; RSS after the round.',
    `Command: node --import tsx loadtest/h2load/growth.ts --port=${port}`,
    '',
    row(['round', 'objects at start', 'gets/s', 'CPU µs/get', 'creates/s', 'CPU µs/create', 'RSS MB']),
    row(['---:', '---:', '---:', '---:', '---:', '---:', '---:']),
  ];
  const dir = await makeTempDir('orch-growth');
  const server = await startApiServer('embedded', null);
  try {
    const files = await prepareFiles(dir, server.securePort);
    await seedGets(server);
    const uris = port === 'uws-h1' ? await rewriteUris(files.getUris, server.securePort, server.uwsPort, dir) : files.getUris;
    const url = `https://127.0.0.1:${port === 'uws-h1' ? server.uwsPort : server.securePort}`;
    const base = { url, h1: port === 'uws-h1', token: server.token, clients: CLIENTS, seconds: SECONDS };
    let objects = 1000;
    for (let round = 1; round <= ROUNDS; round++) {
      const c0 = processCpuSeconds(server.pid) ?? 0;
      const g = await runH2load({ ...base, method: 'GET', inputFile: uris });
      const c1 = processCpuSeconds(server.pid) ?? 0;
      const c = await runH2load({ ...base, method: 'POST', dataFile: files.createBody, path: NS_PATH });
      const c2 = processCpuSeconds(server.pid) ?? 0;
      const rss = (processRss(server.pid) ?? 0) / 2 ** 20;
      const line = row([
        String(round),
        fmt(objects),
        fmt(g.succeeded / g.seconds),
        fmt(((c1 - c0) * 1e6) / g.succeeded),
        fmt(c.succeeded / c.seconds),
        fmt(((c2 - c1) * 1e6) / c.succeeded),
        fmt(rss),
      ]);
      console.log(line);
      lines.push(line);
      objects += c.succeeded;
    }
  } finally {
    await server.stop();
    await removeTempDir(dir);
    await stopEverything();
  }
  await writeResults(out, lines);
  return 0;
}

runAsScript(import.meta.url, main);
