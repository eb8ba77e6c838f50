/**
 * Section 3, relist storm: C clients (spread over the worker processes, one
 * keep-alive TLS connection each, opened beforehand) LIST the same
 * collection at the same moment. Total time, per-LIST time to the last byte
 * (p50/p99), 429s counted apart from other errors, and the server's RSS
 * peak (VmRSS sampled every 20 ms, and VmHWM).
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ServerHandle } from '../api/server.ts';
import { processCpuSeconds, processRss } from '../lib/memory.ts';
import { percentile } from '../lib/stats.ts';
import { sleep } from '../lib/timer.ts';
import { CertificateAuthority } from '../../src/pki/ca.ts';
import { generatePemKeyPair } from '../../src/pki/keys.ts';
import { nowMs } from './http.ts';
import type { WorkerPool } from './pool.ts';
import { OutsideLoad } from './quiet.ts';
import type { Conn, StormPrepared, StormResult } from './protocol.ts';
import type { RelistVariant, WatchSettings } from './settings.ts';

export const RELIST_USER = 'bench-relist';

export interface StormRow {
  readonly variant: RelistVariant;
  readonly clients: number;
  readonly ready: number;
  readonly path: string;
  readonly totalMs: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  /** 200s only. */
  readonly p50ok: number;
  readonly p99ok: number;
  readonly ok: number;
  readonly tooMany: number;
  readonly otherErrors: number;
  readonly samples: string[];
  readonly bytes: number;
  readonly rssBefore: number;
  readonly rssPeak: number;
  readonly hwmAfter: number;
  /** VmRSS 5 s after the storm, its connections closed. */
  readonly rssAfter: number;
  readonly serverCpu: number;
  readonly clientCpu: number;
  readonly otherCores: number;
}

function vmHwm(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/**
 * A client certificate for a user outside system:masters, issued by the
 * server's CA (in its data dir): the max-in-flight filter exempts
 * system:masters (the admin token's group), as the original does.
 */
export async function issueUnprivilegedCert(server: ServerHandle): Promise<{ certPem: string; keyPem: string }> {
  const ca = await CertificateAuthority.load(await readFile(join(server.dataDir, 'ca.crt'), 'utf8'), await readFile(join(server.dataDir, 'ca.key'), 'utf8'));
  const { privateKeyPem, publicKeyPem } = await generatePemKeyPair('ecdsa-p256');
  const certPem = await ca.issue({ subject: { commonName: RELIST_USER, organizations: ['bench'] }, usages: ['digital signature', 'client auth'], publicKey: publicKeyPem, durationSeconds: 3600 });
  return { certPem, keyPem: privateKeyPem };
}

export async function runStorm(
  server: ServerHandle,
  pool: WorkerPool,
  variant: RelistVariant,
  path: string,
  s: WatchSettings,
  quiet: OutsideLoad,
  log: (l: string) => void,
): Promise<StormRow> {
  let conn: Conn;
  if (variant === 'admin') conn = { port: server.uwsPort, caPem: server.ca.toString('utf8'), token: server.token };
  else conn = { port: server.securePort, caPem: server.ca.toString('utf8'), ...(await issueUnprivilegedCert(server)) };
  const shares = pool.split(s.relistClients);
  const prepared = await pool.all<StormPrepared | null>((w) => (shares[w.index]! > 0 ? { t: 'storm-prepare', conn, count: shares[w.index]!, connectConcurrency: 32 } : null), 300_000);
  const ready = prepared.reduce((a, p) => a + (p?.ready ?? 0), 0);
  const prepSamples = prepared.flatMap((p) => p?.samples ?? []);
  log(`  relist storm (${variant}): ${ready} of ${s.relistClients} clients connected${prepSamples.length > 0 ? `; e.g. ${prepSamples[0]}` : ''}`);
  let row: Omit<StormRow, 'rssAfter'>;
  try {
    await quiet.waitQuiet();
    const load0 = quiet.snapshot();
    const rssBefore = processRss(server.pid) ?? Number.NaN;
    let rssPeak = rssBefore;
    const timer = setInterval(() => {
      rssPeak = Math.max(rssPeak, processRss(server.pid) ?? 0);
    }, 20);
    const cpuS0 = processCpuSeconds(server.pid) ?? Number.NaN;
    const cpuC0 = pool.pids.reduce((a, pid) => a + (processCpuSeconds(pid) ?? 0), 0);
    const t0 = nowMs();
    let results: Array<StormResult | null>;
    try {
      results = await pool.all<StormResult | null>((w) => (shares[w.index]! > 0 ? { t: 'storm-go', path, timeoutMs: s.requestTimeoutMs } : null), s.requestTimeoutMs + 60_000);
    } finally {
      clearInterval(timer);
    }
    const totalMs = nowMs() - t0;
    const otherCores = OutsideLoad.otherCores(load0, quiet.snapshot());
    const serverCpu = (processCpuSeconds(server.pid) ?? Number.NaN) - cpuS0;
    const clientCpu = pool.pids.reduce((a, pid) => a + (processCpuSeconds(pid) ?? 0), 0) - cpuC0;
    rssPeak = Math.max(rssPeak, processRss(server.pid) ?? 0);
    const ms: number[] = [];
    const okMs: number[] = [];
    let ok = 0;
    let tooMany = 0;
    let other = 0;
    let bytes = 0;
    const samples: string[] = [];
    for (const r of results) {
      if (r === null) continue;
      samples.push(...r.samples);
      r.ms.forEach((m, i) => {
        ms.push(m);
        bytes += r.bytes[i]!;
        const st = r.status[i]!;
        if (st === 200) {
          ok++;
          okMs.push(m);
        } else if (st === 429) tooMany++;
        else other++;
      });
    }
    row = {
      variant,
      clients: s.relistClients,
      ready,
      path,
      totalMs,
      p50: percentile(ms, 50),
      p99: percentile(ms, 99),
      max: Math.max(...ms),
      p50ok: percentile(okMs, 50),
      p99ok: percentile(okMs, 99),
      ok,
      tooMany,
      otherErrors: other,
      samples: [...prepSamples, ...samples].slice(0, 4),
      bytes,
      rssBefore,
      rssPeak,
      hwmAfter: vmHwm(server.pid),
      serverCpu,
      clientCpu,
      otherCores,
    };
  } finally {
    await pool.all((w) => (shares[w.index]! > 0 ? { t: 'storm-close' } : null));
  }
  await sleep(5000);
  return { ...row, rssAfter: processRss(server.pid) ?? Number.NaN };
}
