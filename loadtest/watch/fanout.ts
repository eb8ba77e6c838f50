/**
 * Section 1, watch fan-out: N watchers of one prefix (default/configmaps),
 * opened from the worker processes from the resourceVersion of a LIST, then
 * a writer (this process) creating ~1 KiB ConfigMaps at rising rates. Each
 * create carries its wall-clock send time in a data field; the writer keeps
 * each write's acknowledgement time by name (the sequence number in the
 * name); the workers keep each event's receipt time; the join happens at the
 * end of each step, on the monotonic clock all processes share. Watchers
 * ask for JSON or Protobuf (one encoding per scenario); the join needs only
 * the name, which both carry, so the delay is measured the same way.
 */
import { readFileSync } from 'node:fs';
import type { ServerHandle } from '../api/server.ts';
import { processCpuSeconds, processRss } from '../lib/memory.ts';
import { sleep } from '../lib/timer.ts';
import { Histogram } from './histogram.ts';
import { OutsideLoad } from './quiet.ts';
import { Http, nowMs, Tally } from './http.ts';
import type { Worker, WorkerPool } from './pool.ts';
import type { LevelResult, Progress, Request, WatchClosed, WatchOpened } from './protocol.ts';
import type { WatchEncoding, WatchProtocol, WatchSettings } from './settings.ts';

export const CM_PATH = '/api/v1/namespaces/default/configmaps';

export interface StepRow {
  readonly warmup: boolean;
  readonly writesOffered: number;
  readonly writes: number;
  readonly writesAcked: number;
  readonly writesPerSec: number;
  readonly eventsOffered: number;
  /** Events received / (last receipt - first send). */
  readonly eventsDelivered: number;
  readonly received: number;
  readonly expected: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  /** Delay from the writer's send (request start) to receipt. */
  readonly p50Send: number;
  readonly p99Send: number;
  /** Share of events received no later than the writer's acknowledgement (counted as 0 ms). */
  readonly nonPositive: number;
  readonly missing: number;
  /** Watchers dropped during this step. */
  readonly dropped: number;
  /** ERROR or unexpected events during this step. */
  readonly errors: number;
  readonly writeErrors: Tally;
  readonly createP99: number;
  /** ms from the last acknowledgement to the last receipt. */
  readonly tailMs: number;
  readonly serverCores: number;
  readonly clientCores: number;
  readonly benchCores: number;
  readonly serverRssPeak: number;
  /** Cores used by other processes on the machine during the step. */
  readonly otherCores: number;
  /** The step was run again because outside load disturbed the first try. */
  readonly redone: boolean;
  readonly samples: string[];
  readonly ok: boolean;
  readonly why: string;
}

export interface ScenarioResult {
  readonly proto: WatchProtocol;
  readonly encoding: WatchEncoding;
  readonly watchers: number;
  readonly requested: number;
  readonly capNote: string;
  readonly opened: number;
  readonly openFailed: number;
  readonly openMs: number;
  readonly openSamples: string[];
  readonly rssIdle: number;
  readonly rssOpen: number;
  readonly steps: StepRow[];
  readonly closed: WatchClosed;
  readonly stoppedBecause: string;
}

/** The soft limit on open files of this process (inherited by the server and the workers). */
export function openFileLimit(): number {
  try {
    const m = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    if (m) return m[1] === 'unlimited' ? Number.POSITIVE_INFINITY : Number(m[1]);
  } catch {
    // not Linux
  }
  return Number.NaN;
}

/** A step during which other processes used more than this many cores is run again (within the quiet budget). */
const REDO_OTHER_CORES = 0.5;

/** Descriptors the server keeps for itself besides the watch sockets (listeners, store files, epoll, pipes, the writer's sockets). */
const FD_MARGIN = 1000;

export function watcherCap(requested: number, proto: WatchProtocol, s: WatchSettings): { count: number; note: string } {
  const limit = openFileLimit();
  const serverSockets = proto === 'h1' ? requested : Math.ceil(requested / s.h2Streams);
  if (!Number.isFinite(limit) || serverSockets + FD_MARGIN <= limit) return { count: requested, note: '' };
  const count = proto === 'h1' ? Math.max(1, limit - FD_MARGIN) : requested;
  return { count, note: `capped at ${count} by ulimit -n ${limit} (the server needs one descriptor per HTTP/1.1 watcher)` };
}

class Writer {
  readonly #http: Http;
  readonly #fill: string;

  constructor(
    server: ServerHandle,
    readonly s: WatchSettings,
  ) {
    this.#http = new Http(server.uwsPort, server.ca, server.token, Math.max(64, s.writerInflight), s.requestTimeoutMs);
    this.#fill = 'x'.repeat(s.valueBytes);
  }

  #body(name: string): Buffer {
    return Buffer.from(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"},"data":{"sent":"${Date.now()}","fill":"${this.#fill}"}}`);
  }

  /**
   * Creates `n` ConfigMaps named prefix+seq (seq from `base`) at `rate`/s,
   * open loop (sends are scheduled at t0 + i/rate, at most `writerInflight`
   * in flight), and returns each write's acknowledgement time.
   */
  async step(prefix: string, base: number, n: number, rate: number, hardDeadline: number) {
    const acks: Array<number | null> = new Array<number | null>(n).fill(null);
    const sends: Array<number | null> = new Array<number | null>(n).fill(null);
    const latencies: number[] = [];
    const errors = new Tally();
    let firstSend = Number.NaN;
    let lastSend = Number.NaN;
    let inflight = 0;
    let sent = 0;
    let wake: (() => void) | null = null;
    const launch = (i: number): void => {
      const t = nowMs();
      sends[i] = t;
      if (i === 0) firstSend = t;
      lastSend = t;
      sent++;
      inflight++;
      const name = `${prefix}${base + i}`;
      this.#http
        .request('POST', CM_PATH, { body: this.#body(name) })
        .then(
          (r) => {
            if (r.status === 201) {
              acks[i] = r.doneAt;
              latencies.push(r.ms);
            } else errors.add(`HTTP ${r.status}`, `create ${name}: ${r.status} ${r.body?.toString('utf8').slice(0, 200) ?? ''}`);
          },
          (err: unknown) => errors.add('transport error', `create ${name}: ${err instanceof Error ? err.message : String(err)} after ${(nowMs() - t).toFixed(0)} ms`),
        )
        .finally(() => {
          inflight--;
          wake?.();
        });
    };
    const t0 = nowMs();
    let i = 0;
    while (i < n && nowMs() < hardDeadline) {
      const due = Math.min(n, Math.floor(((nowMs() - t0) * rate) / 1000) + 1);
      while (i < due && inflight < this.s.writerInflight) launch(i++);
      if (inflight >= this.s.writerInflight) await new Promise<void>((r) => (wake = r));
      else if (i < n) await sleep(1);
      wake = null;
    }
    while (inflight > 0 && nowMs() < hardDeadline + 60_000) {
      await new Promise<void>((r) => {
        wake = r;
        setTimeout(r, 100);
      });
      wake = null;
    }
    latencies.sort((a, b) => a - b);
    const createP99 = latencies.length > 0 ? latencies[Math.min(latencies.length - 1, Math.ceil(0.99 * latencies.length) - 1)]! : Number.NaN;
    return { acks, sends, sent, errors, firstSend, lastSend, createP99 };
  }

  async latestRv(): Promise<string> {
    const r = await this.#http.request('GET', `${CM_PATH}?limit=1`, { keepBody: true });
    if (r.status !== 200) throw new Error(`LIST for the watch resourceVersion: ${r.status} ${r.body?.toString('utf8').slice(0, 300)}`);
    return (JSON.parse(r.body!.toString('utf8')) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
  }

  close(): void {
    this.#http.close();
  }
}

interface Cpu {
  server: number;
  clients: number;
  bench: number;
  at: number;
}

function cpuNow(serverPid: number, pool: WorkerPool): Cpu {
  let clients = 0;
  for (const pid of pool.pids) clients += processCpuSeconds(pid) ?? 0;
  const u = process.cpuUsage();
  return { server: processCpuSeconds(serverPid) ?? Number.NaN, clients, bench: (u.user + u.system) / 1e6, at: nowMs() };
}

export class FanoutRunner {
  readonly #writer: Writer;
  #scenario = 0;

  constructor(
    readonly server: ServerHandle,
    readonly pool: WorkerPool,
    readonly s: WatchSettings,
    readonly deadline: number,
    readonly log: (line: string) => void,
    readonly quiet: OutsideLoad,
  ) {
    this.#writer = new Writer(server, s);
  }

  async run(proto: WatchProtocol, encoding: WatchEncoding, requested: number): Promise<ScenarioResult> {
    const s = this.s;
    const { count: watchers, note: capNote } = watcherCap(requested, proto, s);
    const prefix = `wf${++this.#scenario}${proto}-`;
    const rssIdle = processRss(this.server.pid) ?? Number.NaN;
    const rv = await this.#writer.latestRv();
    const path = `${CM_PATH}?watch=1&resourceVersion=${rv}`;
    const port = proto === 'h1' ? this.server.uwsPort : this.server.securePort;
    const conn = { port, caPem: this.server.ca.toString('utf8'), token: this.server.token };
    const unit = proto === 'h2' ? s.h2Streams : 1;
    const shares = this.pool.split(watchers, unit);
    const t0 = nowMs();
    const opened = await this.pool.all<WatchOpened | null>(
      (w) =>
        shares[w.index]! > 0
          ? { t: 'watch-open', conn, proto, encoding, path, count: shares[w.index]!, streamsPerConn: s.h2Streams, namePrefix: prefix, connectConcurrency: proto === 'h1' ? 64 : 200 }
          : null,
      600_000,
    );
    const openMs = nowMs() - t0;
    const openOk = opened.reduce((a, o) => a + (o?.opened ?? 0), 0);
    const openFailed = opened.reduce((a, o) => a + (o?.failed ?? 0), 0);
    const openSamples = opened.flatMap((o) => o?.samples ?? []).slice(0, 4);
    this.log(`  ${proto} ${encoding} ${watchers} watchers: ${openOk} open, ${openFailed} failed, in ${(openMs / 1000).toFixed(1)} s`);
    await this.quiet.waitQuiet();
    const rssOpen = processRss(this.server.pid) ?? Number.NaN;

    const steps: StepRow[] = [];
    let seq = 0;
    let stoppedBecause = 'all steps done';
    let droppedSoFar = 0;
    let errorsSoFar = 0;
    const active = shares.map((n) => n > 0);
    let closed: WatchClosed = { dropped: 0, errors: 0, samples: [], bytes: 0, events: 0 };
    try {
      if (openOk > 0) {
        // Warm-up: a few events through every stream before the measured steps.
        const warm = await this.#step(prefix, seq, 10, Math.min(50, s.eventLevels[0]! / openOk), openOk, true, active, droppedSoFar, errorsSoFar);
        seq += 10;
        droppedSoFar += warm.dropped;
        errorsSoFar += warm.errors;
        steps.push(warm);
        for (const level of s.eventLevels) {
          if (nowMs() > this.deadline) {
            stoppedBecause = 'time budget spent';
            break;
          }
          const rate = level / openOk;
          const n = Math.max(s.minWrites, Math.round((rate * s.levelMs) / 1000));
          let row = await this.#step(prefix, seq, n, rate, openOk, false, active, droppedSoFar, errorsSoFar);
          seq += n;
          if (row.otherCores > REDO_OTHER_CORES && row.dropped === 0 && this.quiet.hasBudget) {
            // Outside load took a good part of the machine: wait for quiet and run the step again.
            this.log(`    (${row.otherCores.toFixed(2)} cores used by other processes during the step: waiting for quiet and running it again)`);
            droppedSoFar += row.dropped;
            errorsSoFar += row.errors;
            await this.quiet.waitQuiet();
            row = { ...(await this.#step(prefix, seq, n, rate, openOk, false, active, droppedSoFar, errorsSoFar)), redone: true };
            seq += n;
          }
          droppedSoFar += row.dropped;
          errorsSoFar += row.errors;
          steps.push(row);
          this.log(
            `    ${Math.round(row.writesOffered)} writes/s offered (${Math.round(row.eventsOffered)} events/s): ${Math.round(row.writesPerSec)} done, ` +
              `${Math.round(row.eventsDelivered)} events/s delivered, p50 ${row.p50.toFixed(1)} ms, p99 ${row.p99.toFixed(1)} ms (from send ${row.p99Send.toFixed(1)}), missing ${row.missing}, ` +
              `dropped ${row.dropped}, errors ${row.errors}, server ${row.serverCores.toFixed(2)} cores, clients ${row.clientCores.toFixed(2)}${row.ok ? '' : ` -> stop: ${row.why}`}`,
          );
          if (!row.ok) {
            stoppedBecause = row.why;
            break;
          }
        }
      } else stoppedBecause = 'no watcher could be opened';
    } finally {
      closed = (await this.pool.all<WatchClosed | null>((w) => (active[w.index] ? { t: 'watch-close' } : null))).reduce<WatchClosed>(
        (a, c) =>
          c === null
            ? a
            : { dropped: a.dropped + c.dropped, errors: a.errors + c.errors, samples: [...a.samples, ...c.samples].slice(0, 4), bytes: a.bytes + c.bytes, events: a.events + c.events },
        { dropped: 0, errors: 0, samples: [], bytes: 0, events: 0 },
      );
    }
    // Let the server close the sockets before the next scenario.
    await sleep(1000);
    return { proto, encoding, watchers: openOk, requested, capNote, opened: openOk, openFailed, openMs, openSamples, rssIdle, rssOpen, steps, closed, stoppedBecause };
  }

  async #step(
    prefix: string,
    base: number,
    n: number,
    rate: number,
    watchers: number,
    warmup: boolean,
    active: boolean[],
    droppedBefore: number,
    errorsBefore: number,
  ): Promise<StepRow> {
    const s = this.s;
    const pool = this.pool;
    const only =
      (msg: Request) =>
      (w: Worker): Request | null =>
        active[w.index] ? msg : null;
    await pool.all(only({ t: 'level-start', base, count: n }));
    let rssPeak = processRss(this.server.pid) ?? 0;
    const rssTimer = setInterval(() => {
      rssPeak = Math.max(rssPeak, processRss(this.server.pid) ?? 0);
    }, 100);
    const cpu0 = cpuNow(this.server.pid, pool);
    const load0 = this.quiet.snapshot();
    let w: Awaited<ReturnType<Writer['step']>>;
    let progress: Progress = { received: 0, alive: watchers, dropped: 0, errors: 0 };
    try {
      const hard = nowMs() + Math.max(30_000, (n / rate) * 1000 * 3);
      w = await this.#writer.step(prefix, base, n, rate, Math.min(hard, this.deadline));
      // Drain: until every open watcher has every acknowledged write, or the drain time is up.
      const acked = w.acks.filter((a) => a !== null).length;
      const drainEnd = nowMs() + s.drainMs;
      for (;;) {
        const ps = (await pool.all<Progress | null>(only({ t: 'progress' }))).filter((p): p is Progress => p !== null);
        progress = ps.reduce((a, p) => ({ received: a.received + p.received, alive: a.alive + p.alive, dropped: a.dropped + p.dropped, errors: a.errors + p.errors }), {
          received: 0,
          alive: 0,
          dropped: 0,
          errors: 0,
        });
        if (progress.received >= acked * progress.alive || nowMs() > drainEnd) break;
        await sleep(50);
      }
    } finally {
      clearInterval(rssTimer);
    }
    const cpu1 = cpuNow(this.server.pid, pool);
    const load1 = this.quiet.snapshot();
    const acks = w.acks;
    const results = (await pool.all<LevelResult | null>(only({ t: 'level-end', acks, sends: w.sends }))).filter((r): r is LevelResult => r !== null);
    const hist = new Histogram();
    const histSend = new Histogram();
    let received = 0;
    let missing = 0;
    let firstRecv = Number.POSITIVE_INFINITY;
    let lastRecv = Number.NEGATIVE_INFINITY;
    let dropped = 0;
    let errors = 0;
    const samples: string[] = [];
    for (const r of results) {
      hist.merge(r.hist);
      histSend.merge(r.histSend);
      received += r.received;
      missing += r.missingAlive + r.missingDropped;
      firstRecv = Math.min(firstRecv, r.firstRecv);
      lastRecv = Math.max(lastRecv, r.lastRecv);
      dropped += r.dropped;
      errors += r.errors;
      samples.push(...r.samples);
    }
    dropped -= droppedBefore;
    errors -= errorsBefore;
    const ackTimes = acks.filter((a): a is number => a !== null);
    const writesAcked = ackTimes.length;
    const lastAck = ackTimes.length > 0 ? Math.max(...ackTimes) : Number.NaN;
    const sendSpanS = n > 1 ? ((w.lastSend - w.firstSend) / 1000) * (n / (n - 1)) : 1 / rate;
    const writesPerSec = w.sent / Math.max(sendSpanS, 1e-9);
    const eventsDelivered = received / Math.max((lastRecv - w.firstSend) / 1000, 1e-9);
    const wall = (cpu1.at - cpu0.at) / 1000;
    const p99 = hist.percentile(99);
    let why = '';
    if (dropped > 0) why = `${dropped} watcher(s) dropped`;
    else if (missing > 0) why = `${missing} events missing ${s.drainMs / 1000} s after the last write`;
    else if (w.errors.total > 0) why = `write errors: ${w.errors.describe()}`;
    else if (errors > 0) why = `${errors} error events`;
    else if (p99 > s.stopP99Ms) why = `p99 delay ${p99.toFixed(0)} ms > ${s.stopP99Ms} ms`;
    else if (writesPerSec < 0.9 * rate) why = `the writer reached ${writesPerSec.toFixed(0)} of ${rate.toFixed(0)} writes/s`;
    return {
      warmup,
      writesOffered: rate,
      writes: n,
      writesAcked,
      writesPerSec,
      eventsOffered: rate * watchers,
      eventsDelivered,
      received,
      expected: writesAcked * watchers,
      p50: hist.percentile(50),
      p99,
      max: hist.max,
      p50Send: histSend.percentile(50),
      p99Send: histSend.percentile(99),
      nonPositive: hist.count > 0 ? hist.nonPositive / hist.count : 0,
      missing,
      dropped,
      errors,
      writeErrors: w.errors,
      createP99: w.createP99,
      tailMs: lastRecv - lastAck,
      serverCores: (cpu1.server - cpu0.server) / wall,
      clientCores: (cpu1.clients - cpu0.clients) / wall,
      benchCores: (cpu1.bench - cpu0.bench) / wall,
      serverRssPeak: rssPeak,
      otherCores: OutsideLoad.otherCores(load0, load1),
      redone: false,
      samples: [...samples, ...w.errors.samples].slice(0, 4),
      ok: why === '',
      why,
    };
  }

  close(): void {
    this.#writer.close();
  }
}
