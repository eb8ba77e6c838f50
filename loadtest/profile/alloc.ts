/**
 * What a request allocates on its serving thread: bytes per GET and per
 * create, and the functions that allocate them (self size, inlined callees
 * included), from V8's sampling heap profiler with collected objects kept
 * (alloc-preload.cjs). Allocation drives the young generation's collections,
 * and what is still alive at each one (the requests in flight) is copied, so
 * fewer bytes per request is less GC per request.
 *
 * One serving thread (`--frontend-threads=1`) so every request goes through
 * the profiled thread; h2load, 32 connections, TLS, bearer token, 1 KiB
 * ConfigMaps, a warm-up window, then one profiled window per case.
 *
 *   node --import tsx loadtest/profile/alloc.ts [--cases=get-uws,get-h2,create-uws] [--top=25] [--out=<file>]
 *
 * Knobs: ALLOC_SECONDS=3, ORCH_ALLOC_SAMPLING_BYTES=256.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { argValue, envNumber, haveCommand } from '../lib/env.ts';
import { describeMachine, machineInfo } from '../lib/machine.ts';
import { makeTempDir, removeTempDir } from '../lib/tmp.ts';
import { runAsScript, writeResults } from '../lib/results.ts';
import { fmtInt } from '../lib/format.ts';
import { REPO_ROOT, describeServer, startApiServer, stopEverything, type ServerHandle } from '../api/server.ts';
import { runH2load, type H2loadRun } from '../h2load/h2load.ts';
import { prepareFiles, seedGets } from '../h2load/run.ts';

const SECONDS = envNumber('ALLOC_SECONDS', 3);
const NS_PATH = '/api/v1/namespaces/default/configmaps';
const CASES = ['get-uws', 'get-h2', 'create-uws', 'create-h2'] as const;
type Case = (typeof CASES)[number];

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

/** Bytes by function (name, file under dist/ or node's, line), summed over the profile's tree. */
export function bytesByFunction(head: ProfileNode): { total: number; byFunction: Map<string, number> } {
  const byFunction = new Map<string, number>();
  let total = 0;
  const stack: ProfileNode[] = [head];
  while (stack.length > 0) {
    const n = stack.pop()!;
    const f = n.callFrame;
    const where = f.url === '' ? '' : ` ${f.url.replace(/^.*\/dist\//, '').replace(/^file:\/\//, '')}:${f.lineNumber + 1}`;
    const name = `${f.functionName === '' ? '(anonymous)' : f.functionName}${where}`;
    total += n.selfSize;
    byFunction.set(name, (byFunction.get(name) ?? 0) + n.selfSize);
    stack.push(...n.children);
  }
  return { total, byFunction };
}

async function profileCase(server: ServerHandle, c: Case, files: { createBody: string; getUris: string }, out: string): Promise<{ requests: number; head: ProfileNode }> {
  const h2 = c.endsWith('-h2');
  const port = h2 ? server.securePort : server.uwsPort;
  const base = { url: `https://127.0.0.1:${port}`, h1: !h2, token: server.token, clients: 32 };
  const run: H2loadRun = c.startsWith('get')
    ? { ...base, method: 'GET', inputFile: files.getUris }
    : { ...base, method: 'POST', dataFile: files.createBody, path: NS_PATH };
  await runH2load({ ...run, seconds: 2 }); // warm-up
  rmSync(out, { force: true });
  process.kill(server.pid, 'SIGUSR2');
  const r = await runH2load({ ...run, seconds: SECONDS });
  process.kill(server.pid, 'SIGUSR2');
  for (let i = 0; i < 200 && !existsSync(out); i++) await new Promise((res) => setTimeout(res, 100));
  await new Promise((res) => setTimeout(res, 300)); // the write may still be under way
  return { requests: r.succeeded, head: (JSON.parse(readFileSync(out, 'utf8')) as { head: ProfileNode }).head };
}

async function main(argv: readonly string[] = process.argv.slice(2)): Promise<number> {
  if (!haveCommand('h2load')) {
    console.log('allocation profile skipped: h2load is not installed (apt-get install nghttp2-client).');
    return 0;
  }
  const cases = (argValue('cases', argv) ?? 'get-uws,get-h2,create-uws').split(',').filter((c): c is Case => (CASES as readonly string[]).includes(c));
  const top = Number(argValue('top', argv) ?? 25);
  const outFile = argValue('out', argv) ?? join(REPO_ROOT, 'loadtest/results/alloc.md');
  const dir = await makeTempDir('orch-alloc');
  const profileFile = join(dir, 'alloc.json');
  process.env['ORCH_ALLOC_PROFILE'] = profileFile;
  process.env['BENCH_SERVER_NODE_FLAGS'] = `${process.env['BENCH_SERVER_NODE_FLAGS'] ?? ''} --require=${join(REPO_ROOT, 'loadtest/profile/alloc-preload.cjs')}`;
  const lines = [
    '# What a request allocates on its serving thread',
    '',
    `${describeMachine(machineInfo())} Server: ${describeServer()}, embedded store, one serving thread (\`--frontend-threads=1\`).`,
    `h2load 32 connections (one stream each), TLS, bearer token, 1 KiB ConfigMaps (creates use generateName), a 2 s`,
    `warm-up, then ${SECONDS} s under V8's sampling heap profiler (every ${process.env['ORCH_ALLOC_SAMPLING_BYTES'] ?? 256} bytes, collected objects kept).`,
    'A function\'s bytes are its own allocations and those of the callees V8 inlined into it.',
    `Command: node --import tsx loadtest/profile/alloc.ts --cases=${cases.join(',')}`,
    '',
  ];
  const server = await startApiServer('embedded', null, ['--frontend-threads=1']);
  try {
    await seedGets(server);
    const summary: string[] = ['| case | requests profiled | bytes per request |', '| --- | ---: | ---: |'];
    const details: string[] = [];
    for (const c of cases) {
      // The GET URIs name the port: written for each case's front end.
      const files = await prepareFiles(dir, c.endsWith('-h2') ? server.securePort : server.uwsPort);
      const { requests, head } = await profileCase(server, c, files, profileFile);
      const { total, byFunction } = bytesByFunction(head);
      const perRequest = total / Math.max(1, requests);
      console.log(`  ${c}: ${fmtInt(requests)} requests, ${fmtInt(perRequest)} B each`);
      summary.push(`| ${c} | ${fmtInt(requests)} | ${fmtInt(perRequest)} |`);
      details.push('', `### ${c}: the ${top} largest, bytes per request`, '', '| bytes | function |', '| ---: | --- |');
      for (const [name, bytes] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) {
        details.push(`| ${fmtInt(bytes / Math.max(1, requests))} | \`${name}\` |`);
      }
    }
    lines.push(...summary, ...details);
  } finally {
    await server.stop();
    await stopEverything();
    await removeTempDir(dir);
  }
  await writeResults(outFile, lines);
  return 0;
}

runAsScript(import.meta.url, main);
