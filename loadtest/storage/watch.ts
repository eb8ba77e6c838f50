/**
 * Section 3: watch events delivered per second to 1 and to many watchers of
 * one prefix (a namespace), through the real path: store watch -> shard's
 * watch cache -> frames over the shard's port -> ShardHandle -> sinks on the
 * main thread. Events are counted where they arrive (newline-delimited JSON
 * frames in each sink), not where they are sent.
 */
import type { ShardError } from '../../shards/protocol.ts';
import type { WatchSink } from '../../shards/shard-handle.ts';
import type { Revision } from '../../src/storage/interface.ts';
import { fmtBytes, fmtDuration, fmtNum, fmtPercent } from '../lib/format.ts';
import { medianRun } from '../lib/stats.ts';
import { drive, now, sleep, waitUntil } from '../lib/timer.ts';
import { CEIL } from './ceilings.ts';
import { PREFIX, RESOURCE, type BackendHarness } from './harness.ts';
import { ObjectFactory } from './objects.ts';
import type { Report } from './report.ts';
import type { Settings } from './settings.ts';

const SECTION = 'watch';
const TARGET = 500_000;
const NEWLINE = 0x0a;

/** Counts what a set of sinks received. Frames shared by many sinks are scanned once. */
class Tally {
  events = 0;
  bytes = 0;
  calls = 0;
  ended: ShardError | null = null;
  readonly #lines = new WeakMap<Uint8Array, number>();
  #target = Number.POSITIVE_INFINITY;
  #onDone: (() => void) | null = null;

  lines(frames: Uint8Array): number {
    let n = this.#lines.get(frames);
    if (n === undefined) {
      n = 0;
      const buf = Buffer.from(frames.buffer, frames.byteOffset, frames.byteLength);
      for (let at = buf.indexOf(NEWLINE); at !== -1; at = buf.indexOf(NEWLINE, at + 1)) n++;
      this.#lines.set(frames, n);
    }
    return n;
  }

  delivered(frames: Uint8Array): void {
    this.calls++;
    this.bytes += frames.byteLength;
    this.events += this.lines(frames);
    if (this.events >= this.#target) this.#fire();
  }

  end(error: ShardError): void {
    this.ended ??= error;
    this.#fire();
  }

  #fire(): void {
    const f = this.#onDone;
    this.#onDone = null;
    f?.();
  }

  /** Resolves once `target` events were delivered (or a watch ended). */
  until(target: number): Promise<void> {
    this.#target = target;
    if (this.events >= target || this.ended !== null) return Promise.resolve();
    return new Promise((resolve) => (this.#onDone = resolve));
  }
}

class CountingSink implements WatchSink {
  events = 0;
  constructor(readonly tally: Tally) {}
  onFrames(frames: Uint8Array, _revision: Revision): void {
    this.events += this.tally.lines(frames);
    this.tally.delivered(frames);
  }
  onEnd(error: ShardError): void {
    this.tally.end(error);
  }
}

interface WatchRun {
  rate: number;
  writeRate: number;
  delivered: number;
  bytes: number;
  calls: number;
  seconds: number;
  /** From the last write's acknowledgement to the last event's delivery. */
  lagMs: number;
  /** Main thread event-loop utilization over the run (writes and deliveries). */
  mainBusy: number;
}

let runSeq = 0;

async function watchRun(h: BackendHarness, watchers: number, events: number, timeoutMs: number): Promise<WatchRun> {
  const router = await h.router();
  const namespace = `w${watchers}-${++runSeq}`;
  const factory = new ObjectFactory(namespace);
  const tally = new Tally();
  const sinks = Array.from({ length: watchers }, () => new CountingSink(tally));
  const shard = router.shardOf(RESOURCE);
  const before = shard.watcherCount;
  const from = await h.revision();
  const handles = sinks.map((sink) =>
    router.watch(
      { resource: RESOURCE, start: { kind: 'from', revision: from }, filter: { namespace }, encoding: 'json', bookmarks: false, initialEventsEnd: false },
      sink,
    ),
  );
  try {
    // Wait until the shard has every watcher registered, so that all events go the live path.
    const expected = before + watchers;
    await waitUntil(
      async () => {
        const stats = await router.stats();
        const r = stats.flatMap((x) => x.resources).find((x) => x.groupResource === RESOURCE);
        return (r?.watchers ?? 0) >= expected;
      },
      `${watchers} watchers registered`,
      30_000,
      20,
    );
    const target = events * watchers;
    const elu0 = performance.eventLoopUtilization();
    const t0 = now();
    const done = tally.until(target);
    const writes = await drive({ concurrency: 64, count: events, latencies: false }, (i) =>
      router.create(RESOURCE, factory.key(PREFIX, i), factory.bytes(i)),
    );
    const writesDone = now();
    const timeout = sleep(timeoutMs).then(() => 'timeout' as const);
    const outcome = await Promise.race([done.then(() => 'done' as const), timeout]);
    const end = now();
    const seconds = (end - t0) / 1000;
    const busy = performance.eventLoopUtilization(elu0).utilization;
    if (tally.ended !== null) throw new Error(`a watch ended: ${tally.ended.code}: ${tally.ended.message}`);
    if (outcome === 'timeout' || tally.events < target) {
      throw new Error(`watchers got ${tally.events} of ${target} events within ${timeoutMs} ms after the writes`);
    }
    const short = sinks.filter((x) => x.events !== events).length;
    if (short > 0) throw new Error(`${short} watchers did not get exactly ${events} events`);
    return {
      rate: tally.events / seconds,
      writeRate: writes.rate,
      delivered: tally.events,
      bytes: tally.bytes,
      calls: tally.calls,
      seconds,
      lagMs: Math.max(0, end - writesDone),
      mainBusy: busy,
    };
  } finally {
    for (const w of handles) w.close();
  }
}

export async function watchSection(h: BackendHarness, report: Report, s: Settings): Promise<void> {
  for (const watchers of [1, s.watchers]) {
    const runs: WatchRun[] = [];
    for (let r = 0; r < s.runs; r++) runs.push(await watchRun(h, watchers, s.watchEvents, 60_000));
    const run = medianRun(runs, (x) => x.rate);
    // Many watchers of one prefix share each frame message, so the port carries
    // rate / watchers distinct events: that is what the stream ceiling bounds.
    const stream = report.ceiling(CEIL.stream64);
    const ceiling =
      stream === undefined ? undefined : watchers === 1 ? stream : { name: `stream-64 x ${watchers} watchers`, value: stream.value * watchers };
    report.add({
      section: SECTION,
      label: `watch events/s delivered to ${watchers.toLocaleString('en-US')} watcher${watchers === 1 ? '' : 's'} of one prefix`,
      backend: h.backend.name,
      kind: 'rate',
      value: run.rate,
      unit: 'events/s',
      ceiling,
      target: watchers >= 1000 ? { text: `>= ${fmtNum(TARGET)} events x watchers/s`, pass: run.rate >= TARGET } : undefined,
      note:
        `${fmtNum(s.watchEvents)} creates at c64 (${fmtNum(run.writeRate)}/s) -> ${fmtNum(run.delivered)} events in ${run.seconds.toFixed(2)} s (${fmtDuration(run.lagMs)} after the last write); ` +
        `${fmtNum(run.calls / Math.max(1, watchers))} frame batches per watcher; ${fmtBytes(run.bytes / run.seconds)}/s to sinks; main thread ${fmtPercent(run.mainBusy)} busy; median of ${s.runs}` +
        (watchers === 1 ? '; bounded by the write rate' : ''),
    });
  }
}
