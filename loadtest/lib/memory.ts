/** Process memory and CPU probes. RSS covers every thread of the process (workers included). */
import { readFileSync, readdirSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gcFn: (() => void) | null | undefined;

/** Runs a full GC on this thread if possible (without --expose-gc on the command line). */
export function forceGc(): void {
  if (gcFn === undefined) {
    const existing = (globalThis as { gc?: () => void }).gc;
    if (typeof existing === 'function') gcFn = existing;
    else {
      try {
        setFlagsFromString('--expose-gc');
        gcFn = runInNewContext('gc') as () => void;
      } catch {
        gcFn = null;
      }
    }
  }
  gcFn?.();
}

export function rssBytes(): number {
  return process.memoryUsage.rss();
}

/**
 * RSS once things settled: GC on this thread, then the lowest of samples
 * taken over `windowMs` (other threads cannot be made to collect, but an idle
 * V8 heap shrinks on its own after a few seconds).
 */
export async function settledRss(windowMs = 3000, everyMs = 250): Promise<number> {
  forceGc();
  let low = rssBytes();
  for (let waited = 0; waited < windowMs; waited += everyMs) {
    await new Promise((resolve) => setTimeout(resolve, everyMs));
    if (waited % 1000 === 0) forceGc();
    low = Math.min(low, rssBytes());
  }
  return low;
}

/** VmRSS of another process, from /proc (Linux); null when unreadable. */
export function processRss(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** Pids of processes whose command line contains `needle` (Linux /proc scan). */
export function pidsWithArg(needle: string): number[] {
  const out: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return out;
  }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const cmd = readFileSync(`/proc/${e}/cmdline`, 'utf8');
      if (cmd.split('\0').some((a) => a.includes(needle))) out.push(Number(e));
    } catch {
      // process went away
    }
  }
  return out;
}

/** CPU seconds (user + system) another process has used so far, from /proc (Linux); null when unreadable. */
export function processCpuSeconds(pid: number, ticksPerSecond = 100): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at state, field 3.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    return Number.isFinite(utime) && Number.isFinite(stime) ? (utime + stime) / ticksPerSecond : null;
  } catch {
    return null;
  }
}
