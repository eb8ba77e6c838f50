/**
 * A CPU profile, heap snapshot or allocation profile of the calling thread, through
 * node:inspector (in a worker thread, `Session.connect()` reaches that
 * thread's own isolate). Used by the serving thread for itself
 * (profiling.ts) and by each shard thread when asked over its channel
 * (shards/shard-runtime.ts). One at a time per thread: the inspector has one
 * profiler, and two heap snapshots at once would double the memory spike.
 */
import { Session } from 'node:inspector/promises';

/**
 * cpu: V8's sampling CPU profile; heap: a heap snapshot; allocs: V8's sampling
 * heap profile over the seconds, counting what the collectors have already
 * freed too (as Go's `allocs` profile: where garbage comes from, which a
 * snapshot of what is live cannot show).
 */
export type ProfileKind = 'cpu' | 'heap' | 'allocs';

/**
 * Bytes allocated between samples of the allocation profile, by default. V8
 * keeps every sample of the window (the freed objects' too), so the interval
 * bounds the profile's memory: at this one a thread allocating 1 GB/s yields
 * ~4,000 samples a second. Finer intervals are allowed for proportionally
 * shorter windows (maxAllocationSeconds), which keeps the count as bounded.
 */
export const DEFAULT_ALLOCATION_INTERVAL_BYTES = 256 * 1024;
export const MIN_ALLOCATION_INTERVAL_BYTES = 4 * 1024;
export const MAX_ALLOCATION_INTERVAL_BYTES = 64 * 1024 * 1024;
/** The longest profile window, in seconds, of any kind. */
export const MAX_PROFILE_SECONDS = 60;

/** The longest allocation profile at `intervalBytes` between samples: 60 s at the default, at least 1 s. */
export function maxAllocationSeconds(intervalBytes: number): number {
  return Math.max(1, Math.min(MAX_PROFILE_SECONDS, Math.floor((MAX_PROFILE_SECONDS * intervalBytes) / DEFAULT_ALLOCATION_INTERVAL_BYTES)));
}

/** What to take: a CPU or allocation profile lasts `seconds`; `intervalBytes` is the allocation profile's sampling. */
export interface ProfileSpec {
  readonly kind: ProfileKind;
  readonly seconds: number;
  readonly intervalBytes?: number | undefined;
}

/** Per module instance, so per thread: each thread loads its own copy of this module. */
let busy = false;

/**
 * Takes the profile; null when one is already being taken on this thread.
 * A CPU profile lasts `seconds`, or less if `stopEarly` calls back first.
 * The result is a buffer of its own (transferable to another thread).
 */
export async function takeProfile(spec: ProfileSpec, stopEarly?: (stop: () => void) => void): Promise<Uint8Array | null> {
  const { kind, seconds } = spec;
  if (busy) return null;
  busy = true;
  const session = new Session();
  try {
    session.connect();
    if (kind === 'cpu') return await cpuProfile(session, seconds, stopEarly);
    if (kind === 'allocs') return await allocationProfile(session, seconds, spec.intervalBytes ?? DEFAULT_ALLOCATION_INTERVAL_BYTES, stopEarly);
    return await heapSnapshot(session);
  } finally {
    session.disconnect();
    busy = false;
  }
}

/** A copy that owns its whole ArrayBuffer (small Buffers share Node's pool: never transfer those). */
function owned(buf: Buffer): Uint8Array {
  if (buf.byteOffset === 0 && buf.byteLength === buf.buffer.byteLength) return buf;
  const out = new Uint8Array(buf.byteLength);
  out.set(buf);
  return out;
}

/** Resolves after `seconds`, or when `stopEarly` calls back. */
function profileWindow(seconds: number, stopEarly?: (stop: () => void) => void): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, seconds * 1000);
    stopEarly?.(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

async function cpuProfile(session: Session, seconds: number, stopEarly?: (stop: () => void) => void): Promise<Uint8Array> {
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  await profileWindow(seconds, stopEarly);
  const { profile } = await session.post('Profiler.stop');
  await session.post('Profiler.disable');
  return owned(Buffer.from(JSON.stringify(profile)));
}

async function allocationProfile(session: Session, seconds: number, intervalBytes: number, stopEarly?: (stop: () => void) => void): Promise<Uint8Array> {
  await session.post('HeapProfiler.enable');
  // The two include flags are in V8's protocol since 10.x; node's typings of the parameters predate them.
  const params = { samplingInterval: intervalBytes, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true };
  await session.post('HeapProfiler.startSampling', params);
  await profileWindow(seconds, stopEarly);
  const { profile } = await session.post('HeapProfiler.stopSampling');
  await session.post('HeapProfiler.disable');
  return owned(Buffer.from(JSON.stringify(profile)));
}

async function heapSnapshot(session: Session): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  session.on('HeapProfiler.addHeapSnapshotChunk', (m) => chunks.push(Buffer.from(m.params.chunk)));
  await session.post('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
  return owned(Buffer.concat(chunks));
}
