/**
 * What audit costs a GET: in-process GETs through the whole pipeline (no
 * sockets, so audit's per-request share is as large as it can be) on three
 * servers: audit off, audit at Metadata for every request with the log
 * backend in batch mode, and the same in blocking mode (the original's
 * default for the log: each request waits for its RequestReceived line).
 * Batches alternate between the servers so machine noise falls on all alike;
 * medians of the batches are reported. Requests run `CONCURRENCY` at a time,
 * as a server sees them.
 *
 *   node --import tsx loadtest/audit/gets.ts
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from '../../test/support/test-server.ts';
import { FuzzRequest, RecordingResponse } from '../../test/fuzz/support/exchange.ts';
import { AUDIT_API_VERSION } from '../../src/audit/types.ts';

const BATCH = Number(process.env['BENCH_AUDIT_BATCH'] ?? 2000);
const ROUNDS = Number(process.env['BENCH_AUDIT_ROUNDS'] ?? 11);
const CONCURRENCY = Number(process.env['BENCH_AUDIT_CONCURRENCY'] ?? 16);
const OBJECTS = 100;

async function setup(t: TestServer): Promise<void> {
  for (let i = 0; i < OBJECTS; i++) {
    const r = await t.request('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: { k: 'v'.repeat(512) } });
    if (r.status !== 201) throw new Error(`setup: ${r.status} ${r.body}`);
  }
}

async function batch(t: TestServer): Promise<number> {
  const handler = t.server.handler;
  const token = t.server.files.adminToken;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < BATCH) {
      const i = next++;
      const req = new FuzzRequest({ method: 'GET', url: `/api/v1/namespaces/default/configmaps/cm-${i % OBJECTS}`, headers: [['authorization', `Bearer ${token}`], ['accept', 'application/json']], body: new Uint8Array() });
      const res = new RecordingResponse();
      await handler(req, res);
      if (res.status !== 200) throw new Error(`GET answered ${res.status}`);
    }
  };
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return BATCH / (Number(process.hrtime.bigint() - start) / 1e9);
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'orch-audit-gets-'));
try {
  const policy = path.join(dir, 'policy.yaml');
  await fs.writeFile(policy, `apiVersion: ${AUDIT_API_VERSION}\nkind: Policy\nrules:\n- level: Metadata\n`);
  const common = ['--uws-port=0', '--frontend-threads=1'];
  const off = await startTestServer(common);
  const batchMode = await startTestServer([...common, `--audit-policy-file=${policy}`, `--audit-log-path=${path.join(dir, 'batch.log')}`, '--audit-log-mode=batch']);
  const blocking = await startTestServer([...common, `--audit-policy-file=${policy}`, `--audit-log-path=${path.join(dir, 'blocking.log')}`, '--audit-log-mode=blocking']);
  const servers = { off, batchMode, blocking };
  await Promise.all(Object.values(servers).map(setup));
  for (const s of Object.values(servers)) await batch(s);
  const series = { off: [] as number[], batchMode: [] as number[], blocking: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const k of Object.keys(servers) as (keyof typeof servers)[]) series[k].push(await batch(servers[k]));
  }
  const o = median(series.off);
  const b = median(series.batchMode);
  const k = median(series.blocking);
  const lines = (await fs.readFile(path.join(dir, 'batch.log'), 'utf8')).split('\n').length - 1;
  console.log(`in-process GETs of 1 KiB ConfigMaps, admin token, ${CONCURRENCY} at a time, median of ${ROUNDS} interleaved batches of ${BATCH}:`);
  console.log(`  audit off:                          ${Math.round(o)} gets/s`);
  console.log(`  audit Metadata, log batch mode:     ${Math.round(b)} gets/s (${(((b - o) / o) * 100).toFixed(1)}% vs off)`);
  console.log(`  audit Metadata, log blocking mode:  ${Math.round(k)} gets/s (${(((k - o) / o) * 100).toFixed(1)}% vs off)`);
  console.log(`  (batch log: ${lines} lines written, 2 per GET)`);
  await Promise.all(Object.values(servers).map((s) => s.stop()));
} finally {
  await fs.rm(dir, { recursive: true, force: true });
}
