/**
 * Young-generation collections (scavenges) on the collecting thread alone.
 *
 * Why: by default V8 splits every scavenge among the thread that collects
 * and up to three of the platform's helper threads. A serving thread under
 * creates scavenges every ~70 ms, the store host and each shard as often,
 * and most of what each scavenge finds is garbage: the work is a millisecond
 * or two, and waking the helpers for it (futex wake-ups, their caches cold,
 * on a machine whose cores are already shared with the request threads)
 * costs more than it saves. Measured with `npm run bench:ab` (interleaved
 * rounds, a fresh server per variant and round; loadtest/results/
 * cpu-breakdown.md, sessions 30 and 31): CPU per create lower at the median
 * in all four sets on the uWS listener (the last, six rounds: 196 µs against
 * 205) and in three on the secure port (276 against 290), creates per second
 * up; GETs, which make little garbage, the same either way.
 *
 * The flag is V8's and global to the process; V8 reads it at every
 * scavenge, so setting it at start holds for every thread, made before or
 * after. A choice given on node's command line or in NODE_OPTIONS
 * (--parallel-scavenge or --no-parallel-scavenge) is left alone.
 */
import { setFlagsFromString } from 'node:v8';

/** The V8 flag that keeps every scavenge on the thread that runs it. */
export const SINGLE_THREADED_SCAVENGE_FLAG = '--no-parallel-scavenge';

const SCAVENGE_CHOICE = /^--(no[-_])?parallel[-_]scavenge$/;

/** True when node's own options (its command line, or NODE_OPTIONS) already choose how scavenges run. */
export function scavengeChosenBy(execArgv: readonly string[], nodeOptions: string | undefined): boolean {
  const words = [...execArgv, ...(nodeOptions ?? '').split(/\s+/)];
  return words.some((w) => SCAVENGE_CHOICE.test(w));
}

/** Makes every scavenge of this process single-threaded unless node's options chose; returns whether it did. */
export function useSingleThreadedScavenges(execArgv: readonly string[] = process.execArgv, nodeOptions: string | undefined = process.env['NODE_OPTIONS']): boolean {
  if (scavengeChosenBy(execArgv, nodeOptions)) return false;
  setFlagsFromString(SINGLE_THREADED_SCAVENGE_FLAG);
  return true;
}
