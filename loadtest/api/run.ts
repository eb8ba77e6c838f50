/**
 * The API benchmark: the whole server (`src/main.ts`) as a child process,
 * driven over loopback TLS with the bearer token, on both front ends (uWS
 * port, HTTP/1.1 keep-alive; node secure port, HTTP/1.1 keep-alive and
 * HTTP/2 multiplexed), for each storage backend (embedded, and etcd3 against
 * a real etcd with fsync on).
 *
 *   node --import tsx loadtest/api/run.ts [--only=embedded|etcd3] [--out=<file>]
 *   (also run by `npm run bench`, i.e. loadtest/run.ts)
 *
 * Per backend:
 *   1. A fresh server: creates/s of 1 KiB ConfigMaps at concurrency 32, then
 *      gets/s of those names at concurrency 32, on each front end
 *      (warm-up, then the median of 3 timed runs; see settings.ts).
 *   2. A fresh server (and a fresh etcd): 5,000 ConfigMaps created at
 *      concurrency 64 through uWS, LISTs (full, ?resourceVersion=0, paged by
 *      500) on each front end, median of 3; topped up to 50,000, RSS of the
 *      server process (and of etcd), the LISTs again, RSS again.
 * Prints a table and writes it to loadtest/results/api.md (on a run of both
 * backends, or to --out). Sizes scale with BENCH_API_* (settings.ts).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { argValue } from '../lib/env.ts';
import { fmtBytes } from '../lib/format.ts';
import { describeMachine, loadAverage, machineInfo } from '../lib/machine.ts';
import { processRss } from '../lib/memory.ts';
import { renderMarkdown, renderText } from '../lib/table.ts';
import { now } from '../lib/timer.ts';
import {
  CM_PATH,
  FRONTENDS,
  FRONTEND_LABEL,
  Quiet,
  LIST_MODE_LABEL,
  BodyMaker,
  fill,
  measureList,
  measureRate,
  peakRssAndThreads,
  settledRssOf,
  withClient,
  xorshift,
  type FillResult,
  type FrontendName,
  type MeasureContext,
  existingConfigMaps,
  type ListMode,
  type RateResult,
  type Tally,
} from './measure.ts';
import { REFERENCE, RSS_TARGET_MB, Report, fmtInt, mb, mib, ms, rate, rateTarget, type Row } from './report.ts';
import { BACKENDS, REPO_ROOT, describeServer, startApiServer, startBenchEtcd, stopEverything, type BackendName, type EtcdHandle, type ServerHandle } from './server.ts';
import { loadApiSettings, type ApiSettings } from './settings.ts';

const DEFAULT_OUT = join(REPO_ROOT, 'loadtest/results/api.md');
const LIST_MODES: readonly ListMode[] = ['full', 'rv0', 'paged'];

function errorsNote(t: Tally): string {
  return t.total > 0 ? `ERRORS: ${t.describe()}` : 'no errors';
}

function flagErrors(report: Report, what: string, backend: BackendName, fe: string, t: Tally): void {
  if (t.total > 0) report.anomaly(`${what} (${backend}, ${fe}): ${t.describe()}; e.g. ${t.samples.join(' | ')}`);
}

function rateRow(
  report: Report,
  kind: 'creates' | 'gets',
  backend: BackendName,
  fe: FrontendName,
  r: RateResult,
  s: ApiSettings,
): void {
  const t = rateTarget(kind, backend, fe);
  const refRate = kind === 'creates' ? REFERENCE.createsPerSec : REFERENCE.getsPerSec;
  const refP99 = kind === 'creates' ? REFERENCE.createsP99Ms : REFERENCE.getsP99Ms;
  const ok = r.rate >= t.min && r.errors.total === 0;
  const row: Row = {
    measurement: kind === 'creates' ? `creates/s, 1 KiB ConfigMaps, concurrency ${s.concurrency}` : `gets/s by name, concurrency ${s.concurrency}`,
    backend,
    frontend: FRONTEND_LABEL[fe],
    value: rate(r.rate, kind),
    p50: ms(r.p50),
    p99: ms(r.p99),
    reference: `${fmtInt(refRate)}/s, p99 ${refP99} ms`,
    target: `>= ${fmtInt(t.min)}/s (${t.why})`,
    verdict: ok ? 'PASS' : 'MISS',
    note:
      `median of ${r.runRates.length} x ${s.runMs / 1000} s runs (${r.runRates.map((x) => fmtInt(x)).join(', ')}/s${r.redone > 0 ? `; ${r.redone} disturbed run(s) redone` : ''}); ` +
      `max ${ms(r.max)}; server ${r.serverCores.toFixed(2)} cores (main thread ${r.serverMainCores.toFixed(2)}, busiest other thread ${r.serverBusiestWorkerCores.toFixed(2)}; ${fmtInt((r.serverCores / r.rate) * 1e6)} µs CPU per request), load generator ${r.clientCores.toFixed(2)},${Number.isFinite(r.etcdCores) ? ` etcd ${r.etcdCores.toFixed(2)},` : ''} other processes ${r.otherCores.toFixed(2)} cores; ${errorsNote(r.errors)}`,
  };
  report.add(row);
  flagErrors(report, kind, backend, fe, r.errors);
  if (r.p99 > refP99) report.anomaly(`${kind} p99 ${ms(r.p99)} on ${backend}, ${FRONTEND_LABEL[fe]} is above the reference p99 of ${refP99} ms`);
  if (r.otherCores > 0.25) {
    report.anomaly(`${kind} on ${backend}, ${FRONTEND_LABEL[fe]}: other processes used ${r.otherCores.toFixed(2)} cores of the machine during the run (the figure is depressed by outside load)`);
  }
  if (r.serverMainCores > 0.9) {
    report.anomaly(`${kind} on ${backend}, ${FRONTEND_LABEL[fe]}: the server's main thread was busy ${Math.round(r.serverMainCores * 100)}% of the run (server ${r.serverCores.toFixed(2)} cores in all, load generator ${r.clientCores.toFixed(2)}, on ${machineInfo().nproc} CPUs): the rate is bounded by the server's event loop`);
  }
  if (r.clientCores > 0.9) {
    report.anomaly(`${kind} on ${backend}, ${FRONTEND_LABEL[fe]}: the load generator used ${r.clientCores.toFixed(2)} cores (server ${r.serverCores.toFixed(2)}) on ${machineInfo().nproc} CPUs: the figure may be bounded by the client`);
  }
}

function fillRow(report: Report, backend: BackendName, f: FillResult, total: number, s: ApiSettings): void {
  report.add({
    measurement: `bulk creates to ${fmtInt(total)} ConfigMaps, concurrency ${s.fillConcurrency}`,
    backend,
    frontend: FRONTEND_LABEL['uws-h1'],
    value: rate(f.rate, 'creates'),
    p99: ms(f.p99),
    note: `${fmtInt(f.created)} created; ${errorsNote(f.errors)}`,
  });
  flagErrors(report, 'bulk creates', backend, 'uWS', f.errors);
}

async function listRows(report: Report, ctx: MeasureContext, server: ServerHandle, backend: BackendName, expected: number, s: ApiSettings): Promise<void> {
  for (const fe of FRONTENDS) {
    if (ctx.quiet.hasBudget()) await ctx.quiet.waitQuiet(ctx.etcdPid === null ? [ctx.serverPid] : [ctx.serverPid, ctx.etcdPid]);
    await withClient(server, fe, 1, s, async (c) => {
      for (const mode of LIST_MODES) {
        const r = await measureList(c, mode, expected, s);
        report.add({
          measurement: `${mode === 'paged' ? `${LIST_MODE_LABEL[mode]}${s.pageLimit}, all pages` : LIST_MODE_LABEL[mode]} of ${fmtInt(expected)}`,
          backend,
          frontend: FRONTEND_LABEL[fe],
          value: ms(r.ms),
          note:
            `median of ${s.listReps} (min ${ms(r.minMs)}, max ${ms(r.maxMs)}); ${fmtBytes(r.bytes)} received (${fmtInt(r.bytes)} B)` +
            `${mode === 'paged' ? ` in ${r.pages} pages` : ''}; ${fmtInt(r.items)} items; ${errorsNote(r.errors)}`,
        });
        flagErrors(report, `LIST ${mode} of ${expected}`, backend, fe, r.errors);
      }
    });
  }
}

async function creates(report: Report, server: ServerHandle, ctx: MeasureContext, backend: BackendName, s: ApiSettings, names: string[]): Promise<void> {
  const maker = new BodyMaker(s.valueBytes);
  let seq = 0;
  for (const fe of FRONTENDS) {
    const r = await withClient(server, fe, s.concurrency, s, (c) =>
      measureRate(s, ctx, async (tally) => {
        const name = `${fe}-${seq++}`;
        try {
          const reply = await c.request('POST', CM_PATH, maker.body(name));
          if (tally.reply(reply, 201, `create ${name}`)) names.push(name);
        } catch (err) {
          tally.error(err, `create ${name}`);
        }
      }),
    );
    rateRow(report, 'creates', backend, fe, r, s);
  }
}

async function gets(report: Report, server: ServerHandle, ctx: MeasureContext, backend: BackendName, s: ApiSettings, names: readonly string[]): Promise<void> {
  if (names.length === 0) throw new Error('no ConfigMaps were created: nothing to get');
  for (const fe of FRONTENDS) {
    const pick = xorshift(0x9e3779b9 ^ fe.length);
    const r = await withClient(server, fe, s.concurrency, s, (c) =>
      measureRate(s, ctx, async (tally) => {
        const name = names[Math.floor(pick() * names.length)]!;
        try {
          tally.reply(await c.request('GET', `${CM_PATH}/${name}`), 200, `get ${name}`);
        } catch (err) {
          tally.error(err, `get ${name}`);
        }
      }),
    );
    rateRow(report, 'gets', backend, fe, r, s);
  }
}

async function withServer<T>(backend: BackendName, report: Report, fn: (server: ServerHandle, etcd: EtcdHandle | null) => Promise<T>): Promise<T> {
  const etcd = backend === 'etcd3' ? await startBenchEtcd() : null;
  try {
    const server = await startApiServer(backend, etcd);
    console.log(`  server pid ${server.pid} ready in ${ms(server.readyMs)} (secure port ${server.securePort}, uWS port ${server.uwsPort})${etcd ? `; etcd ${etcd.version} pid ${etcd.pid} at ${etcd.server.endpoint}` : ''}`);
    if (etcd && report.backendNotes.every((n) => !n.startsWith('etcd3'))) {
      report.backendNotes.push(`etcd3: a fresh etcd ${etcd.version} (fsync on, single member, loopback) per phase`);
    }
    try {
      const out = await fn(server, etcd);
      if (!server.alive()) throw new Error(`the server died during the run\n${server.stderrTail()}`);
      return out;
    } catch (err) {
      if (!server.alive()) throw new Error(`the server died: ${err instanceof Error ? err.message : String(err)}\n${server.stderrTail()}`);
      throw err;
    } finally {
      const tail = server.stderrTail().trim();
      await server.stop();
      const warn = tail.split('\n').filter((l) => l.trim() !== '' && !/AnonymousAuth is not allowed/.test(l));
      if (warn.length > 0) report.anomaly(`server stderr (${backend}): ${warn.slice(-5).join(' / ').slice(0, 800)}`);
    }
  } finally {
    await etcd?.stop();
  }
}

async function benchBackend(backend: BackendName, s: ApiSettings, report: Report, quiet: Quiet): Promise<void> {
  console.log(`\n== ${backend}: creates and gets (fresh server)`);
  report.section(`${backend}: creates/s and gets/s, 1 KiB ConfigMaps, concurrency ${s.concurrency} (fresh server)`);
  await withServer(backend, report, async (server, etcd) => {
    const idle = await settledRssOf(server.pid, 1000);
    const names: string[] = [];
    const ctx: MeasureContext = { serverPid: server.pid, etcdPid: etcd?.pid ?? null, quiet };
    await creates(report, server, ctx, backend, s, names);
    await gets(report, server, ctx, backend, s, names);
    const after = await settledRssOf(server.pid);
    const { threads } = peakRssAndThreads(server.pid);
    report.add({
      measurement: `RSS of the server process after the creates and gets (${fmtInt(names.length)} ConfigMaps)`,
      backend,
      frontend: '-',
      value: mb(after),
      note: `${mib(after)}; ${threads} threads; ${mb(idle)} idle after start`,
    });
  });

  console.log(`\n== ${backend}: LIST and RSS (fresh server)`);
  report.section(`${backend}: LIST of ${fmtInt(s.listSmall)} and ${fmtInt(s.listLarge)} ConfigMaps, RSS (fresh server)`);
  await withServer(backend, report, async (server, etcd) => {
    const ctx: MeasureContext = { serverPid: server.pid, etcdPid: etcd?.pid ?? null, quiet };
    // The server's own ConfigMaps in the namespace (the root CA's) are in every LIST too.
    const existing = await withClient(server, 'uws-h1', 1, s, (c) => existingConfigMaps(c));
    await withClient(server, 'uws-h1', s.fillConcurrency, s, async (c) => {
      const f = await fill(c, s, 'cm-', 0, s.listSmall);
      fillRow(report, backend, f, s.listSmall, s);
    });
    await listRows(report, ctx, server, backend, s.listSmall + existing, s);
    await withClient(server, 'uws-h1', s.fillConcurrency, s, async (c) => {
      const f = await fill(c, s, 'cm-', s.listSmall, s.listLarge - s.listSmall);
      fillRow(report, backend, f, s.listLarge, s);
    });
    const before = await settledRssOf(server.pid);
    const etcdBefore = etcd?.pid ? processRss(etcd.pid) ?? Number.NaN : Number.NaN;
    await listRows(report, ctx, server, backend, s.listLarge + existing, s);
    const after = await settledRssOf(server.pid);
    const { peak, threads } = peakRssAndThreads(server.pid);
    const etcdAfter = etcd?.pid ? processRss(etcd.pid) ?? Number.NaN : Number.NaN;
    const target = backend === 'embedded' ? `<= ${fmtInt(RSS_TARGET_MB)} MB` : undefined;
    const verdict = (x: number): 'PASS' | 'MISS' | '' => (target === undefined ? '' : x <= RSS_TARGET_MB * 1e6 ? 'PASS' : 'MISS');
    const what = `RSS of the server process (all threads) at ${fmtInt(s.listLarge)} ConfigMaps`;
    report.add({
      measurement: `${what}, before the LISTs`,
      backend,
      frontend: '-',
      value: mb(before),
      reference: `${REFERENCE.serverRssMB} MB (+ ${REFERENCE.etcdRssMB} MB etcd)`,
      target,
      verdict: verdict(before),
      note: `${mib(before)}; lowest of 3 s of samples after the bulk creates`,
    });
    report.add({
      measurement: `${what}, after the LISTs`,
      backend,
      frontend: '-',
      value: mb(after),
      reference: `${REFERENCE.serverRssMB} MB (+ ${REFERENCE.etcdRssMB} MB etcd)`,
      target,
      verdict: verdict(after),
      note: `${mib(after)}; lowest of 3 s of samples after ${FRONTENDS.length * LIST_MODES.length * s.listReps} LISTs of ${fmtInt(s.listLarge)}; peak (VmHWM) ${mb(peak)}; ${threads} threads`,
    });
    if (peak > REFERENCE.serverRssMB * 1e6) {
      report.anomaly(`${backend}: the server's peak RSS (VmHWM) reached ${mb(peak)} while serving the LISTs of ${fmtInt(s.listLarge)} (settled ${mb(after)} after; ${mb(before)} before): above the ${REFERENCE.serverRssMB} MB the reference server held`);
    }
    if (etcd) {
      report.add({
        measurement: `RSS of etcd at ${fmtInt(s.listLarge)} ConfigMaps`,
        backend,
        frontend: '-',
        value: mb(etcdAfter),
        reference: `${REFERENCE.etcdRssMB} MB`,
        note: `${mib(etcdAfter)}; ${mb(etcdBefore)} before the LISTs; server + etcd ${mb(after + etcdAfter)} (reference ${REFERENCE.serverRssMB + REFERENCE.etcdRssMB} MB)`,
      });
    }
  });
}

function parseBackends(raw: string | undefined): BackendName[] {
  if (raw === undefined) return [...BACKENDS];
  const picked = raw.split(',').map((x) => x.trim()).filter((x) => x !== '');
  for (const p of picked) if (!BACKENDS.includes(p as BackendName)) throw new Error(`unknown backend ${p}; one of ${BACKENDS.join(', ')}`);
  return picked as BackendName[];
}

function markdown(report: Report, header: string[]): string {
  const { pass, miss } = report.verdicts();
  const lines = [
    '# API benchmark',
    '',
    '`npm run bench` (`node --import tsx loadtest/run.ts`), or `node --import tsx loadtest/api/run.ts [--only=embedded|etcd3]`',
    '',
    ...header.map((h) => `- ${h}`),
    `- Targets: ${pass} PASS, ${miss} MISS. Failures: ${report.failures.length}.`,
    '',
    renderMarkdown(report.table()),
    '',
  ];
  if (report.failures.length > 0) lines.push('## Failures', '', ...report.failures.map((f) => `- ${f.replace(/\n/g, ' ')}`), '');
  lines.push('## Anomalies', '');
  if (report.anomalies.length === 0) lines.push('- none flagged');
  else lines.push(...report.anomalies.map((a) => `- ${a.replace(/\n/g, ' ')}`));
  lines.push('');
  return lines.join('\n');
}

export async function runApiBench(argv: readonly string[] = process.argv.slice(2)): Promise<number> {
  const backends = parseBackends(argValue('only', argv));
  const outArg = argValue('out', argv);
  const s = loadApiSettings();
  const machine = machineInfo();
  const report = new Report();
  const quiet = new Quiet(s.quietBudgetMs);
  const serverDesc = describeServer(); // at the start: the checkout may move on during the run
  const started = now();

  let interrupted = false;
  const onSignal = (sig: NodeJS.Signals): void => {
    if (interrupted) return;
    interrupted = true;
    console.error(`\n${sig}: stopping the servers and etcd`);
    void stopEverything().finally(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const budget = setTimeout(() => {
    console.error(`\nthe benchmark ran past its budget of ${Math.round(s.budgetMs / 1000)} s (BENCH_API_BUDGET_MS): stopping`);
    void stopEverything().finally(() => process.exit(124));
  }, s.budgetMs);
  budget.unref();

  try {
    console.log(`API benchmark: ${describeMachine(machine)}`);
    console.log(`server: ${serverDesc}`);
    console.log(`backends: ${backends.join(', ')}; concurrency ${s.concurrency}; ${s.runs} x ${s.runMs} ms runs after ${s.warmupMs} ms warm-up; LISTs of ${s.listSmall} and ${s.listLarge}`);
    if (machine.loadAverage > 0.5 * machine.nproc) {
      console.log(`warning: load average ${machine.loadAverage.toFixed(2)} on ${machine.nproc} CPUs; other work will skew the figures`);
    }
    for (const backend of backends) {
      if (interrupted) break;
      try {
        await benchBackend(backend, s, report, quiet);
      } catch (err) {
        const msg = err instanceof Error ? (err.stack ?? err.message) : String(err);
        report.failures.push(`${backend}: ${msg.slice(0, 2000)}`);
        console.error(`\n${backend} failed: ${msg}`);
      }
    }
    if (interrupted) {
      await new Promise(() => undefined); // the signal handler exits once everything is stopped
    }
    const minutes = (now() - started) / 60_000;
    const header = [
      `Took ${minutes.toFixed(1)} min (${Math.round(quiet.spentMs / 1000)} s of it waiting out other processes' load or redoing runs they disturbed; budget ${Math.round(s.quietBudgetMs / 1000)} s); backends: ${backends.join(', ')}`,
      `Machine: ${describeMachine(machine)}, ${loadAverage().toFixed(2)} at the end`,
      `Server: ${serverDesc}; --log-level=warn; a child process on loopback (secure port: node:http2, HTTP/2 and HTTP/1.1 by ALPN; uWS port: HTTPS/1.1); RSS is VmRSS of that process (all threads)`,
      ...report.backendNotes,
      `Load generator: this process (one Node process sharing the ${machine.nproc} CPUs with the server), TLS with the generated CA and the bearer token; HTTP/1.1 through \`https.Agent({keepAlive: true, maxSockets: ${s.concurrency}})\`; HTTP/2 as ${s.concurrency} streams multiplexed on one \`http2.connect\` session (4 MiB stream window)`,
      `Creates/gets: ${s.runs} runs of ${s.runMs / 1000} s after ${s.warmupMs / 1000} s warm-up per front end, the median run reported; front ends run one after another (uWS, secure port HTTP/1.1, secure port HTTP/2) on the same server, so later ones create into a fuller store; gets are plain GETs (consistent reads) of names picked at random among those created`,
      `LISTs: ${fmtInt(s.listSmall)} then ${fmtInt(s.listLarge)} ConfigMaps of ~1 KiB in one namespace, created at concurrency ${s.fillConcurrency} through uWS; time from the request to the last byte (summed over pages; the client's counting afterwards not included), median of ${s.listReps}, one connection; before each repetition one ConfigMap is created in another namespace, so every LIST is built anew at a new revision rather than served from the shard's shared answer of the previous one`,
      `Reference: the original API server (v1.25) with etcd 3.4 on this kind of 2-core machine: ${REFERENCE.createsPerSec} creates/s (p99 ${REFERENCE.createsP99Ms} ms), ${fmtInt(REFERENCE.getsPerSec)} gets/s (p99 ${REFERENCE.getsP99Ms} ms), ${REFERENCE.serverRssMB} MB RSS + ${REFERENCE.etcdRssMB} MB etcd at 50,000 ConfigMaps. MB = 10^6 bytes.`,
      'Targets: uWS + embedded >= 3x (2,000 creates/s, 6,500 gets/s); uWS + etcd3 >= 1.5x (1,011 creates/s, 3,255 gets/s); secure port (HTTP/1.1 and HTTP/2) >= 1x (674, 2,170) on both backends; embedded server RSS at 50,000 ConfigMaps <= 480 MB. A rate with any failed request counts as MISS.',
    ];
    console.log(`\n${renderText(report.table())}`);
    const { pass, miss } = report.verdicts();
    console.log(`\ntargets: ${pass} PASS, ${miss} MISS; failures: ${report.failures.length}; anomalies: ${report.anomalies.length}; took ${minutes.toFixed(1)} min`);
    for (const a of report.anomalies) console.log(`  ! ${a}`);
    // The recorded results are replaced only by a complete run without failures (or on request).
    const complete = backends.length === BACKENDS.length && report.failures.length === 0;
    const out = outArg ?? (complete ? DEFAULT_OUT : undefined);
    if (out) {
      await mkdir(dirname(out), { recursive: true });
      await writeFile(out, markdown(report, header));
      console.log(`wrote ${relative(process.cwd(), out) || out}`);
    } else {
      const why = report.failures.length > 0 ? 'a backend failed' : 'partial run';
      console.log(`(${why}: ${relative(process.cwd(), DEFAULT_OUT)} not written; pass --out=<file> to write one)`);
    }
    return report.failures.length > 0 ? 1 : 0;
  } finally {
    clearTimeout(budget);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await stopEverything();
  }
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  runApiBench().then(
    (code) => process.exit(code),
    async (err: unknown) => {
      console.error(err);
      await stopEverything();
      process.exit(1);
    },
  );
}

export const API_RUN_PATH = relative(REPO_ROOT, fileURLToPath(import.meta.url));
