/**
 * The watch benchmark: watch fan-out, LISTs of 50,000 objects, and a relist
 * storm, against the whole server (`startApiServer`, the compiled server as a
 * child process; embedded store, or etcd3 with --backend=etcd3) over loopback
 * TLS with the bearer token from <data-dir>/tokens.csv. Clients run in
 * worker processes (worker.ts) so that the server is what is measured.
 *
 *   node --import tsx loadtest/watch/run.ts [--only=fanout,list,relist] [--backend=embedded|etcd3] [--out=<file>]
 *
 * Each section gets a fresh server. Prints tables and writes them as
 * markdown to loadtest/results/watch.md (on a run of all sections, or to
 * --out). Sizes scale with the BENCH_WATCH_* / BENCH_LIST_* / BENCH_RELIST_*
 * variables (settings.ts).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { argValue } from '../lib/env.ts';
import { fmtBytes, fmtDuration, fmtInt, fmtNum } from '../lib/format.ts';
import { describeMachine, loadAverage, machineInfo } from '../lib/machine.ts';
import { renderMarkdown, renderText, type Table } from '../lib/table.ts';
import { REPO_ROOT, serverCommand, startApiServer, startBenchEtcd, stopEverything, type BackendName, type EtcdHandle, type ServerHandle } from '../api/server.ts';
import { FanoutRunner, openFileLimit, type ScenarioResult, type StepRow } from './fanout.ts';
import { Http, IDLE_SOCKET_MS, nowMs } from './http.ts';
import { fillObjects, LIST_MODES, measureList, MODE_LABEL, serverRss, type Encoding, type FillResult, type Kind, type ListRow } from './lists.ts';
import { WorkerPool } from './pool.ts';
import { OutsideLoad, waitIdle } from './quiet.ts';
import { loadWatchSettings, type WatchEncoding, type WatchProtocol, type WatchSettings } from './settings.ts';
import { RELIST_USER, runStorm, type StormRow } from './storm.ts';

type Section = 'fanout' | 'list' | 'relist';
const SECTIONS: readonly Section[] = ['fanout', 'list', 'relist'];
const DEFAULT_OUT = join(REPO_ROOT, 'loadtest/results/watch.md');

const TARGET_EVENTS = 100_000;
const TARGET_P99_MS = 50;
const TARGET_WATCHERS = 500;
const TARGET_LIST_MS = 600;
const TARGET_LIST_CACHE_MS = 300;

const mb = (b: number): string => (Number.isFinite(b) ? `${fmtInt(b / 1e6)} MB` : '—');
const ms = (x: number): string => fmtDuration(x);

function parseOnly(): Section[] {
  const v = argValue('only');
  if (v === undefined) return [...SECTIONS];
  const out = v.split(',').map((x) => x.trim()) as Section[];
  for (const x of out) if (!SECTIONS.includes(x)) throw new Error(`--only=${v}: expected some of ${SECTIONS.join(', ')}`);
  return out;
}

function parseBackend(): BackendName {
  const v = argValue('backend') ?? 'embedded';
  if (v !== 'embedded' && v !== 'etcd3') throw new Error(`--backend=${v}: expected embedded or etcd3`);
  return v;
}

class Report {
  readonly anomalies: string[] = [];
  readonly notes: string[] = [];
  readonly verdicts: Array<{ what: string; ok: boolean; detail: string }> = [];
  readonly tables: Array<{ title: string; table: Table; intro: string[] }> = [];

  anomaly(text: string): void {
    this.anomalies.push(text);
    console.log(`  ANOMALY: ${text}`);
  }

  verdict(what: string, ok: boolean, detail: string): void {
    this.verdicts.push({ what, ok, detail });
    console.log(`  ${ok ? 'PASS' : 'MISS'}: ${what} — ${detail}`);
  }
}

const FRONT: Record<'h1' | 'h2', string> = { h1: 'uWS, HTTP/1.1', h2: 'secure port, HTTP/2' };
const ENCODING_LABEL: Record<WatchEncoding, string> = { json: 'JSON', protobuf: 'Protobuf' };

/** A fan-out scenario's front and encoding, as its rows, anomalies and verdicts name it. */
const scenarioLabel = (proto: WatchProtocol, encoding: WatchEncoding): string => `${FRONT[proto]}, ${ENCODING_LABEL[encoding]}`;

/** Response body bytes the watchers of a scenario received per event (every step, run again or not; JSON's establishing space counts too). */
function bytesPerEvent(sc: ScenarioResult): number {
  return sc.closed.events > 0 ? sc.closed.bytes / sc.closed.events : Number.NaN;
}

/** The best clean step of a scenario whose p99 meets the target. */
function bestWithin(sc: ScenarioResult, p99Ms: number): StepRow | null {
  let best: StepRow | null = null;
  for (const st of sc.steps) {
    if (st.warmup || !st.ok || st.p99 > p99Ms) continue;
    if (best === null || st.eventsDelivered > best.eventsDelivered) best = st;
  }
  return best;
}

/** The best clean step of a scenario (highest delivery), whatever its p99. */
function bestClean(sc: ScenarioResult): StepRow | null {
  let best: StepRow | null = null;
  for (const st of sc.steps) if (!st.warmup && st.ok && (best === null || st.eventsDelivered > best.eventsDelivered)) best = st;
  return best;
}

/** One line per front and watcher count run in several encodings: how far each went, and at what cost per event. */
function encodingComparison(results: readonly ScenarioResult[]): string[] {
  const lines: string[] = [];
  const groups = new Map<string, ScenarioResult[]>();
  for (const sc of results) {
    const key = `${sc.proto} ${sc.requested}`;
    groups.set(key, [...(groups.get(key) ?? []), sc]);
  }
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    const parts = group.map((sc) => {
      const st = bestClean(sc);
      const head = `${ENCODING_LABEL[sc.encoding]} ${fmtInt(bytesPerEvent(sc))} bytes/event`;
      if (st === null) return `${head}, no clean step (stopped: ${sc.stoppedBecause})`;
      const perEvent = (cores: number): string => fmtNum((cores / Math.max(st.eventsDelivered, 1)) * 1e6);
      return `${head}, best clean step ${fmtInt(st.eventsDelivered)} events/s delivered at p99 ${ms(st.p99)}, server ${perEvent(st.serverCores)} µs and watcher clients ${perEvent(st.clientCores)} µs of CPU per event`;
    });
    lines.push(`${FRONT[group[0]!.proto]}, ${fmtInt(group[0]!.watchers)} watchers, by encoding: ${parts.join('; ')}.`);
  }
  return lines;
}

async function withServer<T>(backend: BackendName, quiet: OutsideLoad, pool: WorkerPool, fn: (server: ServerHandle, etcd: EtcdHandle | null) => Promise<T>): Promise<T> {
  const etcd = backend === 'etcd3' ? await startBenchEtcd() : null;
  try {
    const server = await startApiServer(backend, etcd);
    quiet.pids = () => [server.pid, ...pool.pids, ...(etcd?.pid ? [etcd.pid] : [])];
    try {
      return await fn(server, etcd);
    } finally {
      if (!server.alive()) console.log(`  server died; stderr tail:\n${server.stderrTail()}`);
      await server.stop();
    }
  } finally {
    await etcd?.stop();
  }
}

async function fanoutSection(report: Report, pool: WorkerPool, quiet: OutsideLoad, backend: BackendName, s: WatchSettings, deadline: number): Promise<ScenarioResult[]> {
  console.log('== watch fan-out');
  const results: ScenarioResult[] = [];
  await withServer(backend, quiet, pool, async (server) => {
    const runner = new FanoutRunner(server, pool, s, deadline, (l) => console.log(l), quiet);
    try {
      for (const proto of s.protocols) {
        for (const count of s.counts) {
          // The encodings of one watcher count run back to back, so that they compare under the same conditions.
          for (const encoding of s.encodings) {
            if (nowMs() > deadline) break;
            const sc = await runner.run(proto, encoding, count);
            results.push(sc);
            if (!server.alive()) {
              report.anomaly(`the server died during the ${scenarioLabel(proto, encoding)} fan-out with ${count} watchers:\n${server.stderrTail()}`);
              return;
            }
          }
        }
      }
    } finally {
      runner.close();
    }
  });

  const rows: Table['rows'][number][] = [];
  for (const sc of results) {
    rows.push({
      section: `${scenarioLabel(sc.proto, sc.encoding)}: ${fmtInt(sc.watchers)} watchers${sc.capNote ? ` (${sc.capNote})` : ''}; opened in ${fmtNum(sc.openMs / 1000)} s${sc.openFailed ? `, ${sc.openFailed} failed to open` : ''}; server RSS ${mb(sc.rssIdle)} before, ${mb(sc.rssOpen)} with the watchers open; ${fmtInt(bytesPerEvent(sc))} bytes received per event; stopped: ${sc.stoppedBecause}`,
    });
    for (const st of sc.steps) {
      rows.push([
        st.warmup ? 'warm-up' : fmtInt(st.eventsOffered),
        `${fmtNum(st.writesOffered)} / ${fmtNum(st.writesPerSec)}`,
        fmtInt(st.eventsDelivered),
        ms(st.p50),
        ms(st.p99),
        ms(st.max),
        fmtInt(st.missing),
        fmtInt(st.dropped),
        fmtInt(st.errors + st.writeErrors.total),
        `${st.serverCores.toFixed(2)} / ${st.clientCores.toFixed(2)} / ${st.otherCores.toFixed(2)}`,
        mb(st.serverRssPeak),
        [
          `${fmtInt(st.writesAcked)} writes, ${fmtInt(st.received)} of ${fmtInt(st.expected)} events`,
          `from the send: p50 ${ms(st.p50Send)}, p99 ${ms(st.p99Send)}`,
          `create p99 ${ms(st.createP99)}`,
          `last event ${ms(st.tailMs)} after the last ack`,
          st.nonPositive > 0.001 ? `${(st.nonPositive * 100).toFixed(1)}% of events before the writer's ack (counted 0 ms)` : '',
          st.redone ? 'run again after outside load disturbed the first try' : '',
          st.ok ? '' : `STOP: ${st.why}`,
          st.samples.length > 0 ? `e.g. ${st.samples[0]}` : '',
        ]
          .filter((x) => x !== '')
          .join('; '),
      ]);
    }
    if (sc.openFailed > 0) report.anomaly(`${scenarioLabel(sc.proto, sc.encoding)}, ${sc.requested} watchers: ${sc.openFailed} watches failed to open; e.g. ${sc.openSamples.join(' | ')}`);
    for (const st of sc.steps) {
      const where = `${scenarioLabel(sc.proto, sc.encoding)}, ${fmtInt(sc.watchers)} watchers, ${st.warmup ? 'warm-up' : `${fmtInt(st.eventsOffered)} events/s offered`}`;
      if (st.dropped > 0) report.anomaly(`${where}: ${st.dropped} watcher(s) dropped while reading; e.g. ${st.samples.join(' | ')}`);
      if (st.errors > 0) report.anomaly(`${where}: ${st.errors} ERROR/unexpected events; e.g. ${st.samples.join(' | ')}`);
      if (st.writeErrors.total > 0) report.anomaly(`${where}: write errors ${st.writeErrors.describe()}; e.g. ${st.writeErrors.samples.join(' | ')}`);
      if (st.missing > 0 && st.dropped === 0) report.anomaly(`${where}: ${fmtInt(st.missing)} events not delivered within ${s.drainMs / 1000} s of the last write (watchers still open)`);
      if (!st.warmup && st.otherCores > 0.5) {
        report.anomaly(`${where}: other processes used ${st.otherCores.toFixed(2)} cores of the ${machineInfo().nproc} during the step${st.redone ? ' (even on the second try)' : ' (no quiet budget left to run it again)'}: its figures are depressed by outside load`);
      }
    }
    // The step that stopped the scenario: who used the machine.
    const last = sc.steps[sc.steps.length - 1];
    if (last && !last.warmup && !last.ok) {
      const used = last.serverCores + last.clientCores + last.benchCores + last.otherCores;
      const perEvent = (cores: number): string => `${fmtNum((cores / Math.max(last.eventsDelivered, 1)) * 1e6)} µs`;
      report.notes.push(
        `${scenarioLabel(sc.proto, sc.encoding)}, ${fmtInt(sc.watchers)} watchers, stopped at ${fmtInt(last.eventsOffered)} events/s offered (${last.why}): the machine's ${machineInfo().nproc} CPUs were ${fmtNum(used)} cores busy — server ${last.serverCores.toFixed(2)}, watcher workers ${last.clientCores.toFixed(2)}, writer/benchmark ${last.benchCores.toFixed(2)}, other processes ${last.otherCores.toFixed(2)}; per delivered event the server spent ${perEvent(last.serverCores)} of CPU and the watcher clients ${perEvent(last.clientCores)}; creates took p99 ${ms(last.createP99)} (the writer's acknowledgements were delayed as much as the events, so the delay from the ack, ${ms(last.p99)} p99, understates the delay from the send, ${ms(last.p99Send)} p99).`,
      );
    }
  }
  report.tables.push({
    title: 'Watch fan-out',
    intro: [
      `Watchers: \`GET ${'/api/v1/namespaces/default/configmaps'}?watch=1&resourceVersion=<rv of a LIST>\`, spread over ${s.workers} worker processes; HTTP/1.1: one TLS connection per watcher on the uWS port; HTTP/2: ${s.h2Streams} streams per connection on the secure port (4 MiB stream window, 1 GiB connection window).`,
      `Encodings (${s.encodings.map((e) => ENCODING_LABEL[e]).join(', ')}; \`BENCH_WATCH_ENCODINGS\`): JSON — \`Accept: application/json\`, one event per line, the name found by a byte search; Protobuf — \`Accept: application/vnd.orch.protobuf\` (as client-go informers of built-in types watch), the answer's Content-Type checked, length-prefixed WatchEvent frames whose type, name and resourceVersion are read by offsets without decoding the object (loadtest/watch/pbframes.ts); an unreadable frame counts as an error. uWS cannot send a response head alone and a Protobuf stream has no filler, so a Protobuf watch on HTTP/1.1 counts as opened once its request is sent; its head comes with the first event.`,
      `Writer: this process, creates of ~1 KiB ConfigMaps through uWS (keep-alive, up to ${s.writerInflight} in flight), open loop at the offered rate for ${s.levelMs / 1000} s per step (at least ${s.minWrites} writes); each body carries its wall-clock send time (\`data.sent\`); the ack time of each write is kept by name.`,
      `Delay = receipt by the watcher − the writer's acknowledgement (201 received), on the monotonic clock all processes share, joined by name after each step; receipt time is per TLS read, so every event in a read gets the same time. Events delivered/s = events received by all watchers ÷ (last receipt − first send) of the step.`,
      `Steps rise in offered events/s (writes/s × watchers): ${s.eventLevels.map(fmtInt).join(', ')}; a scenario stops at the first step with a dropped watcher, a missing event ${s.drainMs / 1000} s after the last write, an error, p99 > ${s.stopP99Ms} ms, or the writer below 90% of its rate. Every watcher reads all the time (flowing streams): none should ever be dropped.`,
      `CPU columns: cores used over the step by the server process (all threads) / all worker processes together / other processes on the machine (the machine is shared: a step during which others used > 0.5 core is run again once, within a ${s.quietBudgetMs / 1000} s budget for waiting out outside load), from /proc.`,
    ],
    table: {
      headers: ['events/s offered', 'writes/s offered / done', 'events/s delivered', 'p50 delay', 'p99 delay', 'max delay', 'missing', 'dropped', 'errors', 'CPU server / clients / others', 'server RSS peak', 'note'],
      rows,
      alignRight: new Set([0, 1, 2, 3, 4, 5, 6, 7, 8, 10]),
    },
  });

  for (const sc of results) {
    if (sc.requested !== TARGET_WATCHERS) continue;
    const best = bestWithin(sc, TARGET_P99_MS);
    const ok = best !== null && best.eventsDelivered >= TARGET_EVENTS;
    const anyStep = sc.steps.filter((x) => !x.warmup);
    // The stricter reading: delay from the write's send rather than its acknowledgement.
    let strict: StepRow | null = null;
    for (const st of anyStep) if (st.ok && st.p99Send <= TARGET_P99_MS && (strict === null || st.eventsDelivered > strict.eventsDelivered)) strict = st;
    report.verdict(
      `${scenarioLabel(sc.proto, sc.encoding)}: >= ${fmtInt(TARGET_EVENTS)} events/s to ${TARGET_WATCHERS} watchers with p99 <= ${TARGET_P99_MS} ms (delay from the write's acknowledgement)`,
      ok,
      (best
        ? `best clean step within p99 ${TARGET_P99_MS} ms: ${fmtInt(best.eventsDelivered)} events/s delivered (${fmtNum(best.writesPerSec)} writes/s), p99 ${ms(best.p99)} from the ack (${ms(best.p99Send)} from the send)`
        : `no clean step had p99 <= ${TARGET_P99_MS} ms (p99 per step: ${anyStep.map((x) => ms(x.p99)).join(', ')})`) +
        `; measured from the send instead, the best step within ${TARGET_P99_MS} ms delivered ${strict ? `${fmtInt(strict.eventsDelivered)} events/s (p99 ${ms(strict.p99Send)})` : 'nothing (no step qualified)'}` +
        (best && best.otherCores > 0.25 ? `; other processes used ${best.otherCores.toFixed(2)} cores during that step` : ''),
    );
  }
  report.notes.push(...encodingComparison(results));
  const drops = results.reduce((a, r) => a + r.steps.reduce((b, st) => b + st.dropped, 0), 0);
  if (results.length > 0) {
    report.verdict(
      'no watcher that keeps reading is ever dropped',
      drops === 0,
      drops === 0 ? `0 drops over ${results.length} scenarios, ${fmtInt(results.reduce((a, r) => a + r.watchers, 0))} watchers in all` : `${drops} watchers dropped (see the anomalies)`,
    );
  }
  return results;
}

async function listSection(report: Report, pool: WorkerPool, quiet: OutsideLoad, backend: BackendName, s: WatchSettings, deadline: number): Promise<void> {
  console.log('== LIST');
  const n = s.listObjects;
  const fills: FillResult[] = [];
  const rows: ListRow[] = [];
  const redone = new Set<ListRow>();
  const warmups: string[] = [];
  let rssAfterFill = Number.NaN;
  let settledMs = 0;
  let rssAfter = Number.NaN;
  await withServer(backend, quiet, pool, async (server) => {
    const http = new Http(server.uwsPort, server.ca, server.token, Math.max(64, s.fillConcurrency), s.requestTimeoutMs);
    const lister = new Http(server.uwsPort, server.ca, server.token, 1, s.requestTimeoutMs);
    try {
      for (const kind of ['configmaps', 'pods'] as Kind[]) {
        const f = await fillObjects(http, kind, n, s, deadline);
        fills.push(f);
        console.log(`  created ${fmtInt(f.created)} ${kind} in ${fmtNum(f.seconds)} s (${fmtInt(f.created / f.seconds)}/s)${f.errors.total ? `; errors: ${f.errors.describe()}` : ''}`);
        if (f.errors.total > 0) report.anomaly(`creating ${kind}: ${f.errors.describe()}; e.g. ${f.errors.samples.join(' | ')}`);
      }
      settledMs = await waitIdle(server.pid);
      rssAfterFill = serverRss(server);
      for (const kind of ['configmaps', 'pods'] as Kind[]) {
        for (const enc of ['json', 'protobuf'] as Encoding[]) {
          await quiet.waitQuiet();
          // One unmeasured LIST first: the first large LIST after the bulk load (and the first of an encoding) is a cold start.
          const warm = await measureList(lister, server, kind, enc, 'full', { ...s, listReps: 1 }, quiet);
          warmups.push(`${kind} ${enc} ${ms(warm.ms)}`);
          for (const mode of LIST_MODES) {
            if (nowMs() > deadline) break;
            let r = await measureList(lister, server, kind, enc, mode, s, quiet);
            if (r.otherCores > 0.5 && quiet.hasBudget) {
              console.log(`  (${r.otherCores.toFixed(2)} cores used by other processes during ${kind} ${enc} ${mode}: waiting for quiet and measuring again)`);
              await quiet.waitQuiet();
              r = await measureList(lister, server, kind, enc, mode, s, quiet);
              redone.add(r);
            }
            rows.push(r);
            console.log(`  ${kind} ${enc} ${mode}: ${ms(r.ms)} (${fmtBytes(r.bytes)}, ${r.pages} pages, ${fmtInt(r.items)} items, server ${fmtNum(r.cpuSeconds)} CPU s)`);
            if (r.errors.total > 0) report.anomaly(`LIST ${kind} ${enc} ${mode}: ${r.errors.describe()}; e.g. ${r.errors.samples.join(' | ')}`);
            const created = fills.find((f) => f.kind === kind)?.created ?? n;
            if (r.items !== created && r.errors.total === 0) report.anomaly(`LIST ${kind} ${enc} ${mode}: ${fmtInt(r.items)} items, expected ${fmtInt(created)}`);
          }
        }
      }
      rssAfter = serverRss(server);
    } finally {
      http.close();
      lister.close();
    }
  });
  const tableRows: Table['rows'][number][] = [];
  for (const r of rows) {
    const full = r.mode === 'full' || r.mode === 'full-rv0';
    const limit = r.mode === 'full' ? TARGET_LIST_MS : TARGET_LIST_CACHE_MS;
    const pass = r.ms <= limit && r.errors.total === 0;
    tableRows.push([
      r.kind,
      r.encoding,
      MODE_LABEL[r.mode].replace('PAGE', String(s.pageLimit)),
      ms(r.ms),
      `${ms(r.minMs)} – ${ms(r.maxMs)}`,
      `${mb(r.bytes)}`,
      fmtInt(r.pages),
      fmtInt(r.items),
      fmtNum(r.cpuSeconds),
      fmtNum(r.clientCpu),
      `${r.otherCores.toFixed(2)}${redone.has(r) ? ' (measured again after outside load)' : ''}`,
      full ? `<= ${ms(limit)}` : '',
      full ? (pass ? 'PASS' : 'MISS') : '',
    ]);
  }
  const fillNote = fills.map((f) => `${fmtInt(f.created)} ${f.kind} created in ${fmtNum(f.seconds)} s (${fmtInt(f.created / f.seconds)}/s at concurrency ${s.fillConcurrency})`).join('; ');
  report.tables.push({
    title: `LIST of ${fmtInt(n)} ConfigMaps and ${fmtInt(n)} Pods`,
    intro: [
      `${fillNote}; ConfigMaps ~1 KiB (one ${s.valueBytes}-byte value), Pods with one container (name, image) and a label, all in \`default\`. Then ${fmtNum(settledMs / 1000)} s until the server was idle (< 0.1 core; background work after the bulk load is not counted against the LISTs). Server RSS ${mb(rssAfterFill)} after the creates, ${mb(rssAfter)} after the LISTs.`,
      `One keep-alive HTTP/1.1 connection on the uWS port, bearer token; JSON (\`Accept: application/json\`) or Protobuf (\`Accept: application/vnd.orch.protobuf\`). Time to the last byte, median of ${s.listReps} (min – max), after one unmeasured full LIST per kind and encoding (it took ${warmups.join(', ')}); paged: the sum over all pages (\`limit=${s.pageLimit}\`, then \`continue\`), each from sending the request to its last byte (the client's counting of items afterwards is not included). Before each repetition one object of the same type is created in another namespace, so every measured LIST is built anew at a new revision (not served from the shard's shared answers, which the relist storm measures). The first Protobuf LIST of a kind also encodes every object once (kept per object version): that is the unmeasured one. Items counted in every response (Protobuf: items of the decoded list).`,
      `Server CPU: seconds (all threads, /proc, 10 ms ticks) used per LIST (median). Client CPU: seconds the benchmark process (one Node process: TLS decryption, HTTP parsing) spent between sending and the last byte, per LIST (median) — the time to the last byte includes that receive. Reference: the original listed 50,000 ConfigMaps (73 MB JSON) in 2.0 s consistent and 0.9 s from its cache; targets: <= 0.6 s consistent, <= 0.3 s from the cache (applied here to every full LIST).`,
    ],
    table: {
      headers: ['kind', 'encoding', 'LIST', 'time (median)', 'min – max', 'bytes', 'pages', 'items', 'server CPU s', 'client CPU s', 'others, cores', 'target', 'result'],
      rows: tableRows,
      alignRight: new Set([3, 4, 5, 6, 7, 8, 9]),
    },
  });
  for (const r of rows) {
    if (r.encoding !== 'protobuf') continue;
    const j = rows.find((x) => x.kind === r.kind && x.mode === r.mode && x.encoding === 'json');
    if (j && r.ms > 1.3 * j.ms && r.cpuSeconds > 1.5 * j.cpuSeconds && r.cpuSeconds - j.cpuSeconds >= 0.1) {
      report.anomaly(
        `LIST ${r.kind} ${MODE_LABEL[r.mode].replace('PAGE', String(s.pageLimit))}: Protobuf took ${ms(r.ms)} and ${fmtNum(r.cpuSeconds)} server CPU s for ${mb(r.bytes)}, JSON ${ms(j.ms)} and ${fmtNum(j.cpuSeconds)} CPU s for ${mb(j.bytes)}: the smaller encoding costs the server ${fmtNum(r.cpuSeconds / Math.max(j.cpuSeconds, 0.01))}x the CPU`,
      );
    }
  }
  if (report.anomalies.some((a) => a.includes('Protobuf took'))) {
    report.notes.push(
      'Why Protobuf LISTs cost more than JSON ones: `renderList` in src/endpoints/representation.ts passes the shard\'s joined JSON item bytes through for JSON, but for Protobuf it `JSON.parse`s every item of the reply and encodes the list anew (`encodeList`) on the main thread, per request; the watch cache keeps no Protobuf bytes.',
    );
  }
  for (const kind of ['configmaps', 'pods'] as Kind[]) {
    for (const enc of ['json', 'protobuf'] as Encoding[]) {
      const c = rows.find((x) => x.kind === kind && x.encoding === enc && x.mode === 'full');
      const z = rows.find((x) => x.kind === kind && x.encoding === enc && x.mode === 'full-rv0');
      if (c && z && z.cpuSeconds >= 0.9 * c.cpuSeconds) {
        report.notes.push(`LIST ${kind} ${enc}: from the cache (rv=0) the server spent ${fmtNum(z.cpuSeconds)} CPU s against ${fmtNum(c.cpuSeconds)} for the consistent LIST (${ms(z.ms)} against ${ms(c.ms)}): rv=0 saves nothing here (per the README the shard's watch cache answers LISTs at the latest revision as well as at any revision in its window)`);
      }
    }
  }
  for (const r of rows) {
    if (r.otherCores > 0.5 && r.ms * s.listReps >= 1000) report.anomaly(`LIST ${r.kind} ${r.encoding} ${r.mode}: other processes used ${r.otherCores.toFixed(2)} cores during the repetitions: the time is depressed by outside load`);
  }
  for (const r of rows) {
    if (r.mode !== 'full' && r.mode !== 'full-rv0') continue;
    const limit = r.mode === 'full' ? TARGET_LIST_MS : TARGET_LIST_CACHE_MS;
    report.verdict(`LIST of ${fmtInt(n)} ${r.kind}, ${r.encoding}, ${MODE_LABEL[r.mode]} <= ${ms(limit)}`, r.ms <= limit && r.errors.total === 0, `${ms(r.ms)} (${mb(r.bytes)})`);
  }
}

async function relistSection(report: Report, pool: WorkerPool, quiet: OutsideLoad, backend: BackendName, s: WatchSettings, deadline: number): Promise<void> {
  console.log('== relist storm');
  const rows: StormRow[] = [];
  let fill: FillResult | null = null;
  // A fresh server (and collection) per variant, so that each RSS peak starts from the same place.
  for (const variant of s.relistVariants) {
    if (nowMs() > deadline) break;
    await withServer(backend, quiet, pool, async (server) => {
      const http = new Http(server.uwsPort, server.ca, server.token, Math.max(64, s.fillConcurrency), s.requestTimeoutMs);
      try {
        fill = await fillObjects(http, 'configmaps', s.relistObjects, s, deadline);
        if (fill.errors.total > 0) report.anomaly(`creating the relist collection: ${fill.errors.describe()}; e.g. ${fill.errors.samples.join(' | ')}`);
      } finally {
        http.close();
      }
      await waitIdle(server.pid);
      const r = await runStorm(server, pool, variant, '/api/v1/namespaces/default/configmaps', s, quiet, (l) => console.log(l));
      rows.push(r);
      console.log(
        `  ${variant}: total ${ms(r.totalMs)}, p50 ${ms(r.p50)}, p99 ${ms(r.p99)}, ${r.ok} ok, ${r.tooMany} 429, ${r.otherErrors} other errors, RSS ${mb(r.rssBefore)} -> peak ${mb(r.rssPeak)}`,
      );
      if (r.otherErrors > 0) report.anomaly(`relist storm (${variant}): ${r.otherErrors} failed LISTs other than 429; e.g. ${r.samples.join(' | ')}`);
      if (r.ready < r.clients) report.anomaly(`relist storm (${variant}): only ${r.ready} of ${r.clients} clients could connect; e.g. ${r.samples.join(' | ')}`);
      if (!server.alive()) report.anomaly(`the server died during the relist storm (${variant}):\n${server.stderrTail()}`);
      const perList = r.ok > 0 ? r.bytes / r.ok : 0;
      const inFlight = r.variant === 'cert' ? Math.min(r.ok, 400) : r.ok;
      if (r.rssPeak - r.rssBefore > 1e9) {
        report.anomaly(
          `relist storm (${variant}): server RSS rose from ${mb(r.rssBefore)} to ${mb(r.rssPeak)} (+${mb(r.rssPeak - r.rssBefore)}) for ${fmtInt(inFlight)} LISTs of ${mb(perList)} each in flight (${mb(inFlight * perList)} of response bodies): about ${fmtNum((r.rssPeak - r.rssBefore) / Math.max(1, inFlight * perList))}x the bytes being sent, so every response is held whole in memory (no streaming, no bound on buffered list output); 5 s after the storm, its connections closed, RSS was still ${mb(r.rssAfter)}`,
        );
      }
      if (r.otherCores > 0.5) report.anomaly(`relist storm (${variant}): other processes used ${r.otherCores.toFixed(2)} cores during the storm`);
    });
  }
  const f = fill as FillResult | null;
  report.tables.push({
    title: `Relist storm: ${fmtInt(s.relistClients)} clients LIST ${fmtInt(s.relistObjects)} ConfigMaps at once`,
    intro: [
      `${fmtInt(f?.created ?? 0)} ConfigMaps of ~1 KiB. The ${fmtInt(s.relistObjects)}-object collection rather than 50,000: ${fmtInt(s.relistClients)} LISTs of 50,000 would be ~${fmtInt((s.relistClients * 65e6) / 1e9)} GB of response bodies at once, and this server holds each response whole in memory (see the RSS columns), more than this ${machineInfo().memoryGiB} GiB machine has.`,
      `Each client is a keep-alive TLS connection opened before the storm (over ${s.workers} worker processes); on the go signal every client sends one consistent LIST (no resourceVersion) and reads it to the last byte (discarded).`,
      `Variants: **admin** — the bearer token on the uWS port; the token's user is in system:masters, which the max-in-flight filter exempts (as the original does), so no 429 is expected. **cert** — a client certificate for \`${RELIST_USER}\` (group \`bench\`, issued by the server's CA) on the secure port over HTTP/1.1: subject to \`--max-requests-inflight=400\`, so 429s are expected once more than 400 LISTs are in flight.`,
      'A fresh server (fresh data dir, the collection created anew) per variant. Per-LIST time: from the go signal to the last byte (or the failure). RSS peak: VmRSS of the server process sampled every 20 ms during the storm; VmHWM is the peak since the server started.',
    ],
    table: {
      headers: ['variant', 'clients', 'total time', 'p50', 'p99', 'max', '200', '429', 'other errors', 'p50 / p99 of 200s', 'bytes received', 'server RSS before / peak', 'server CPU s', 'clients CPU s', 'others, cores', 'note'],
      rows: rows.map((r) => [
        r.variant === 'admin' ? 'admin token, uWS' : `${RELIST_USER} cert, secure port h1`,
        fmtInt(r.ready),
        ms(r.totalMs),
        ms(r.p50),
        ms(r.p99),
        ms(r.max),
        fmtInt(r.ok),
        fmtInt(r.tooMany),
        fmtInt(r.otherErrors),
        `${ms(r.p50ok)} / ${ms(r.p99ok)}`,
        mb(r.bytes),
        `${mb(r.rssBefore)} / ${mb(r.rssPeak)}`,
        fmtNum(r.serverCpu),
        fmtNum(r.clientCpu),
        r.otherCores.toFixed(2),
        [`RSS ${mb(r.rssAfter)} 5 s after the storm (connections closed); VmHWM ${mb(r.hwmAfter)}`, r.samples.length > 0 ? `e.g. ${r.samples.slice(0, 2).join(' | ')}` : ''].filter((x) => x).join('; '),
      ]),
      alignRight: new Set([1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 13]),
    },
  });
}

async function main(): Promise<void> {
  const only = parseOnly();
  const backend = parseBackend();
  const out = argValue('out');
  const s = loadWatchSettings();
  const machine = machineInfo();
  const started = nowMs();
  const deadline = started + s.budgetMs - 60_000;
  const budgetTimer = setTimeout(() => {
    console.error(`time budget of ${s.budgetMs / 1000} s spent: stopping everything`);
    void stopEverything().finally(() => process.exit(2));
  }, s.budgetMs);
  budgetTimer.unref();
  const report = new Report();
  report.notes.push(
    `The benchmark's own keep-alive clients (writer, LISTs) drop sockets idle for ${IDLE_SOCKET_MS / 1000} s: the uWS port closes a keep-alive connection after 10-12 s idle (measured: closed by the server after 11.9 s; the secure port kept one open past 130 s) and sends no \`Keep-Alive: timeout=N\` header (Node's agent honours that header; the secure port sends none either, but keeps idle connections open), so a client that reuses a connection just as uWS closes it gets ECONNRESET, and a POST is not retried (client-go keeps idle connections 90 s). Resets of creates under heavy load, if any are listed in the anomalies, are not this: each names how long its connection had been idle (below ${IDLE_SOCKET_MS / 1000} s), and in isolation a 3 s request on a uWS connection idle for 9 s was answered normally.`,
  );

  console.log(`watch benchmark: ${only.join(', ')} on ${backend}; ${describeMachine(machine)}; ulimit -n ${openFileLimit()}`);
  const pool = new WorkerPool(s.workers);
  const quiet = new OutsideLoad(s.quietBudgetMs);
  try {
    if (only.includes('fanout')) await fanoutSection(report, pool, quiet, backend, s, deadline);
    if (only.includes('list')) await listSection(report, pool, quiet, backend, s, deadline);
    if (only.includes('relist')) await relistSection(report, pool, quiet, backend, s, deadline);
  } finally {
    pool.kill();
  }
  const tookMin = (nowMs() - started) / 60_000;
  const loadEnd = loadAverage();

  for (const t of report.tables) {
    console.log(`\n${t.title}\n`);
    console.log(renderText(t.table));
  }
  console.log('\nTargets:');
  for (const v of report.verdicts) console.log(`  ${v.ok ? 'PASS' : 'MISS'}  ${v.what}: ${v.detail}`);
  if (report.anomalies.length > 0) {
    console.log('\nAnomalies:');
    for (const a of report.anomalies) console.log(`  - ${a}`);
  }

  const md: string[] = [
    '# Watch fan-out, large LISTs, relist storm',
    '',
    '`node --import tsx loadtest/watch/run.ts [--only=fanout,list,relist] [--backend=embedded|etcd3]` (knobs: `loadtest/watch/settings.ts`)',
    '',
    `- Took ${tookMin.toFixed(1)} min (${fmtInt(quiet.waitedMs / 1000)} s of it waiting out other processes' load; budget ${s.quietBudgetMs / 1000} s); sections: ${only.join(', ')}; backend: ${backend}`,
    `- Machine: ${describeMachine(machine)}, ${loadEnd.toFixed(2)} at the end; \`ulimit -n\` ${openFileLimit()} (soft = hard; inherited by the server and the workers)`,
    `- Server: ${serverCommand()} as a child process on loopback, a fresh one (fresh data dir) per section; ${backend === 'etcd3' ? 'etcd3 backend against a fresh etcd per section' : 'embedded store'}; default flags (\`--max-requests-inflight=400\`, \`--watch-max-buffered-bytes\` 64 MiB, \`--shards\` = CPU count)`,
    `- Clients: ${s.workers} worker processes (\`loadtest/watch/worker.ts\`) for the watchers and the relist clients, sharing the ${machine.nproc} CPUs with the server; the writer, LISTs and bookkeeping run in the benchmark process. TLS with the generated CA; bearer token from \`<data-dir>/tokens.csv\`.`,
    '',
    '## Targets',
    '',
    ...report.verdicts.map((v) => `- **${v.ok ? 'PASS' : 'MISS'}** ${v.what}: ${v.detail}`),
    '',
  ];
  for (const t of report.tables) {
    md.push(`## ${t.title}`, '', ...t.intro.map((l) => `- ${l}`), '', renderMarkdown(t.table), '');
  }
  md.push('## Anomalies', '', ...(report.anomalies.length > 0 ? report.anomalies.map((a) => `- ${a.replace(/\n/g, ' ')}`) : ['- none']), '');
  if (report.notes.length > 0) md.push('## Notes', '', ...report.notes.map((n) => `- ${n}`), '');
  const target = out ?? (only.length === SECTIONS.length ? DEFAULT_OUT : null);
  if (target) {
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, md.join('\n'));
    console.log(`\nwrote ${relative(process.cwd(), target)}`);
  }
}

const stopOnSignal = (sig: NodeJS.Signals): void => {
  console.error(`${sig}: stopping`);
  void stopEverything().finally(() => process.exit(130));
};
process.once('SIGINT', stopOnSignal);
process.once('SIGTERM', stopOnSignal);

main().then(
  () => process.exit(0),
  async (err: unknown) => {
    console.error(err);
    await stopEverything();
    process.exit(1);
  },
);
