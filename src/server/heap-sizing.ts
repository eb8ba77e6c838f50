/**
 * Where each thread's V8 heap starts its first full collection.
 *
 * Why: left to itself, V8 lowers a new heap's first old-generation limit to
 * what has survived so far plus a few MiB (it guesses from the survival rate
 * of its first scavenges), and from then on a full collection comes every
 * few MiB the old generation grows. The store host and the shards keep the
 * cluster's objects, so their old generations grow with every write: under
 * creates each ran a full mark of everything it holds every 0.3-0.6 s, and
 * the serving thread every 0.5-1 s. V8's helper threads did that marking:
 * ~45 µs of CPU a create, a sixth of all a create cost. Configuring the
 * initial old-generation size keeps V8 from lowering the limit, so a heap
 * grows to this size before its first full collection and by V8's usual
 * factor after it; what V8 reserves is address space, committed only as the
 * heap fills. Measured (`loadtest/results/cpu-breakdown.md`, session 29):
 * the GC helpers ~45 → ~22 µs a create, resident memory +~50 MB after
 * 30,000 creates.
 *
 * The flag is V8's, global to the process: given on node's command line
 * (`npm start` does) it sizes every isolate, the main thread's included; set
 * here at start-up, before any worker exists, it sizes the worker threads'
 * isolates (V8 reads it when it makes an isolate), whoever started node.
 */
import { setFlagsFromString } from 'node:v8';

/** The old generation's size before the first full collection, MiB. */
export const INITIAL_OLD_SPACE_MB = 64;

/** The node option that gives every isolate of the process that size (`npm start` passes it). */
export const INITIAL_OLD_SPACE_FLAG = `--initial-old-space-size=${INITIAL_OLD_SPACE_MB}`;

/** True when node's own options already size the old generation (V8 spells flags with - or _). */
export function oldSpaceSizedBy(execArgv: readonly string[]): boolean {
  return execArgv.some((a) => /^--initial[-_]old[-_]space[-_]size(=|$)/.test(a) || /^--initial[-_]heap[-_]size(=|$)/.test(a));
}

/**
 * Sizes the heaps of the worker threads made from now on, unless node was
 * started with its own size (which then holds for them as well). Call it
 * before the first worker starts. Returns whether it set the flag.
 */
export function sizeWorkerHeaps(execArgv: readonly string[] = process.execArgv): boolean {
  if (oldSpaceSizedBy(execArgv)) return false;
  setFlagsFromString(INITIAL_OLD_SPACE_FLAG);
  return true;
}
