/**
 * Section 1: creates of 1 KiB objects per second at concurrency 1 and 64,
 * directly on the Store and through the ShardRouter; for etcd also with the
 * raw etcd3 client's create-if-absent transaction on the same etcd, the
 * reference EtcdStore is held to.
 */
import type { Store } from '../../src/storage/interface.ts';
import { medianRun, summarize } from '../lib/stats.ts';
import { drive, type DriveResult } from '../lib/timer.ts';
import { fmtNum, fmtPercent } from '../lib/format.ts';
import { CEIL } from './ceilings.ts';
import { PREFIX, RESOURCE, type BackendHarness } from './harness.ts';
import { ObjectFactory } from './objects.ts';
import type { CeilingRef, Report } from './report.ts';
import type { Settings } from './settings.ts';

const SECTION = 'creates';
const EMBEDDED_TARGET = 20_000;
/** Extra router concurrency shown for context: is the router path bound by latency or by CPU? */
const ROUTER_EXTRA_CONCURRENCY = 256;
const ETCD_SHARE = 0.8;

type CreateOp = (key: string, value: Uint8Array) => Promise<unknown>;

interface CreateRun extends DriveResult {
  fsyncs: number | null;
  /** Main thread event-loop utilization during the run. */
  mainBusy: number;
  /** CPU time of the whole process (all threads) per wall-clock second, in cores. */
  cores: number;
  /** The same for the backend's own process (etcd), or null. */
  serverCores: number | null;
}

let nsSeq = 0;

async function createRun(
  s: Settings,
  concurrency: number,
  keyPrefix: string,
  op: CreateOp,
  fsyncs?: () => number | null,
  serverCpu?: () => number | null,
): Promise<CreateRun> {
  const factory = new ObjectFactory(`c${concurrency}-${++nsSeq}`);
  const f0 = fsyncs?.() ?? null;
  const elu0 = performance.eventLoopUtilization();
  const cpu0 = process.cpuUsage();
  const server0 = serverCpu?.() ?? null;
  const res = await drive(
    concurrency === 1
      ? { concurrency, durationMs: s.c1Ms }
      : { concurrency, count: Math.max(s.c64Ops, concurrency * 20), durationMs: s.maxRunMs },
    (i) => op(factory.key(keyPrefix, i), factory.bytes(i)),
  );
  const mainBusy = performance.eventLoopUtilization(elu0).utilization;
  const cpu = process.cpuUsage(cpu0);
  const cores = (cpu.user + cpu.system) / 1e6 / res.seconds;
  const server1 = serverCpu?.() ?? null;
  const serverCores = server0 !== null && server1 !== null ? (server1 - server0) / res.seconds : null;
  const f1 = fsyncs?.() ?? null;
  return { ...res, fsyncs: f0 !== null && f1 !== null ? f1 - f0 : null, mainBusy, cores, serverCores };
}

/** CPU used per second of the run: this process (all threads) and the backend's server. */
function cpuText(run: CreateRun): string {
  return `CPU: this process ${run.cores.toFixed(2)} cores` + (run.serverCores !== null ? `, etcd ${run.serverCores.toFixed(2)} cores` : '');
}

function durabilityCeiling(report: Report, concurrency: number): CeilingRef | undefined {
  return report.ceiling(concurrency === 1 ? CEIL.fsync : CEIL.group64);
}

export async function createsSection(h: BackendHarness, report: Report, s: Settings): Promise<void> {
  const b = h.backend;
  const raw = b.raw();
  const serverCpu = (): number | null => b.serverCpuSeconds();
  const direct = await b.openDirect('direct');
  const store: Store = direct.store;
  try {
    // Warm up connections, JIT and the store before timing anything.
    await createRun({ ...s, c64Ops: 500 }, 64, PREFIX, (k, v) => store.create(k, v));
    if (raw !== null) await createRun({ ...s, c64Ops: 500 }, 64, '/orch-bench-raw/configmaps/', (k, v) => raw.create(k, v));
    for (const concurrency of [1, 64]) {
      const storeRuns: CreateRun[] = [];
      const rawRuns: CreateRun[] = [];
      // Interleaved so that drift (page cache, etcd's own compaction) hits both alike.
      for (let r = 0; r < s.createRuns; r++) {
        if (raw !== null) rawRuns.push(await createRun(s, concurrency, '/orch-bench-raw/configmaps/', (k, v) => raw.create(k, v), undefined, serverCpu));
        storeRuns.push(await createRun(s, concurrency, PREFIX, (k, v) => store.create(k, v), () => direct.fsyncs(), serverCpu));
      }
      let reference: CeilingRef | undefined;
      if (rawRuns.length > 0) {
        const run = medianRun(rawRuns, (x) => x.rate);
        const lat = summarize(run.latencies);
        reference = { name: `raw-etcd3-c${concurrency}`, value: run.rate };
        report.setReference(`rawEtcd${concurrency}`, reference);
        report.add({
          section: SECTION,
          label: `creates/s, raw etcd3 client txn (create-if-absent), concurrency ${concurrency}`,
          backend: b.name,
          kind: 'rate',
          value: run.rate,
          unit: 'creates/s',
          p50: lat.p50,
          p99: lat.p99,
          ceiling: durabilityCeiling(report, concurrency),
          note: `reference for EtcdStore (bare Txn RPC); median of ${s.createRuns} runs; ${cpuText(run)}`,
        });
      }
      const run = medianRun(storeRuns, (x) => x.rate);
      const lat = summarize(run.latencies);
      const isEtcd = reference !== undefined;
      report.add({
        section: SECTION,
        label: `creates/s, Store.create directly, concurrency ${concurrency}`,
        backend: b.name,
        kind: 'rate',
        value: run.rate,
        unit: 'creates/s',
        p50: lat.p50,
        p99: lat.p99,
        ceiling: isEtcd ? reference : durabilityCeiling(report, concurrency),
        target: isEtcd
          ? { text: `>= ${ETCD_SHARE * 100}% of raw etcd3 (${fmtNum(reference!.value * ETCD_SHARE)}/s)`, pass: run.rate >= reference!.value * ETCD_SHARE }
          : concurrency === 64
            ? { text: `>= ${fmtNum(EMBEDDED_TARGET)}/s durable`, pass: run.rate >= EMBEDDED_TARGET }
            : undefined,
        note:
          `median of ${s.createRuns} runs of ${concurrency === 1 ? `${s.c1Ms} ms` : `${s.c64Ops} creates`}; ${cpuText(run)}` +
          (run.fsyncs !== null && run.fsyncs > 0 ? `; ${fmtNum(run.ops / run.fsyncs)} creates per fdatasync` : ''),
      });
    }
  } finally {
    await direct.dispose();
  }

  const router = await h.router();
  await createRun({ ...s, c64Ops: 500 }, 64, PREFIX, (k, v) => router.create(RESOURCE, k, v));
  for (const concurrency of [1, 64, ROUTER_EXTRA_CONCURRENCY]) {
    const runs: CreateRun[] = [];
    for (let r = 0; r < s.createRuns; r++) {
      runs.push(await createRun(s, concurrency, PREFIX, (k, v) => router.create(RESOURCE, k, v), undefined, serverCpu));
    }
    const run = medianRun(runs, (x) => x.rate);
    const lat = summarize(run.latencies);
    const reference = report.ceiling(`rawEtcd${concurrency}`);
    const isEtcd = b.name === 'etcd3';
    report.add({
      section: SECTION,
      label: `creates/s, ShardRouter.create (main -> shard -> store), concurrency ${concurrency}`,
      backend: b.name,
      kind: 'rate',
      value: run.rate,
      unit: 'creates/s',
      p50: lat.p50,
      p99: lat.p99,
      ceiling: isEtcd ? reference : durabilityCeiling(report, concurrency),
      target:
        !isEtcd && concurrency === 64 ? { text: `>= ${fmtNum(EMBEDDED_TARGET)}/s durable`, pass: run.rate >= EMBEDDED_TARGET } : undefined,
      note:
        `median of ${s.createRuns} runs; main thread ${fmtPercent(run.mainBusy)} busy; ${cpuText(run)}` +
        (b.name === 'embedded' ? '; store in the store-host thread' : '') +
        (concurrency === ROUTER_EXTRA_CONCURRENCY ? '; for context (latency- or CPU-bound?)' : ''),
    });
  }
}
