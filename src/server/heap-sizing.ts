/**
 * Where the heaps of the threads that keep the cluster's objects start their
 * first full collection.
 *
 * Why: left to itself, V8 lowers a new heap's first old-generation limit to
 * what has survived so far plus a few MiB (it guesses from the survival rate
 * of its first scavenges), and from then on a full collection comes every
 * few MiB the old generation grows. The store host and the shards keep the
 * cluster's objects, so their old generations grow with every write: under
 * creates each ran a full mark of everything it holds every 0.3-0.6 s, work
 * V8's helper threads did at 15-50 µs of CPU a create. Configuring the
 * initial old-generation size keeps V8 from lowering the limit, so such a
 * heap grows to this size before its first full collection and by V8's usual
 * factor after it; what V8 reserves is address space, committed only as the
 * heap fills. The serving threads are left to V8: sized the same they gained
 * nothing measurable and held 30-40 MB more (their old generations fill with
 * requests a scavenge caught in flight, garbage that also keeps younger
 * objects alive until a full collection clears it). Measured in
 * `loadtest/results/cpu-breakdown.md`, session 29.
 *
 * The flag is V8's and global to the process, read when an isolate is made:
 * it is set while the data threads start and put back after, before any
 * serving thread exists. A size given on node's command line is left alone
 * (it then holds for every thread). A shard thread restarted after a failure,
 * or a thread another server in the same process starts meanwhile (tests),
 * is sized as V8 sizes it or as the data threads are: a matter of speed only.
 */
import { setFlagsFromString } from 'node:v8';

/** The old generation's size before the first full collection, MiB. */
export const INITIAL_OLD_SPACE_MB = 64;

/** The flag that sizes the isolates made while it is set. */
export const INITIAL_OLD_SPACE_FLAG = `--initial-old-space-size=${INITIAL_OLD_SPACE_MB}`;

/** V8's own sizing again (0: not configured) for the isolates made after. */
const V8_DEFAULT_FLAG = '--initial-old-space-size=0';

/** True when node's own options already size the old generation (V8 spells flags with - or _). */
export function oldSpaceSizedBy(execArgv: readonly string[]): boolean {
  return execArgv.some((a) => /^--initial[-_]old[-_]space[-_]size(=|$)/.test(a) || /^--initial[-_]heap[-_]size(=|$)/.test(a));
}

/**
 * Runs `start`, which makes the threads that keep the cluster's objects (the
 * store host, the shards) and resolves once they run, with their heaps
 * sized; the isolates made after it get V8's own sizing again. Nothing else
 * may make a worker thread meanwhile (the server's start-up makes these
 * first).
 */
export async function withDataThreadHeaps<T>(start: () => Promise<T>, execArgv: readonly string[] = process.execArgv): Promise<T> {
  if (oldSpaceSizedBy(execArgv)) return start();
  setFlagsFromString(INITIAL_OLD_SPACE_FLAG);
  try {
    return await start();
  } finally {
    setFlagsFromString(V8_DEFAULT_FLAG);
  }
}
