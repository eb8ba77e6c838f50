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

/** Bytes between samples of the allocation profile: V8's default is 32 KiB; finer, because requests allocate a few KiB each. */
const ALLOCATION_SAMPLING_BYTES = 4096;

/** Per module instance, so per thread: each thread loads its own copy of this module. */
let busy = false;

/**
 * Takes the profile; null when one is already being taken on this thread.
 * A CPU profile lasts `seconds`, or less if `stopEarly` calls back first.
 * The result is a buffer of its own (transferable to another thread).
 */
export async function takeProfile(kind: ProfileKind, seconds: number, stopEarly?: (stop: () => void) => void): Promise<Uint8Array | null> {
  if (busy) return null;
  busy = true;
  const session = new Session();
  try {
    session.connect();
    if (kind === 'cpu') return await cpuProfile(session, seconds, stopEarly);
    if (kind === 'allocs') return await allocationProfile(session, seconds, stopEarly);
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

async function allocationProfile(session: Session, seconds: number, stopEarly?: (stop: () => void) => void): Promise<Uint8Array> {
  await session.post('HeapProfiler.enable');
  // The two include flags are in V8's protocol since 10.x; node's typings of the parameters predate them.
  const params = { samplingInterval: ALLOCATION_SAMPLING_BYTES, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true };
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
