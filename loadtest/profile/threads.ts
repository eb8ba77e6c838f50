/**
 * CPU time of each thread of another process, from /proc/<pid>/task (Linux):
 * the profiler sees only the JavaScript threads; this also counts V8's GC
 * helpers, libuv's pool and anything native that runs on threads of its own.
 */
import { readFileSync, readdirSync } from 'node:fs';

export interface ThreadCpu {
  readonly tid: number;
  /** The thread's name (comm), e.g. `node`, `V8 DefaultWorke`, `libuv-worker`. */
  readonly name: string;
  /** User + system seconds so far. */
  readonly seconds: number;
}

const TICKS_PER_SECOND = 100;

export function threadCpu(pid: number): ThreadCpu[] {
  const out: ThreadCpu[] = [];
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const t of tids) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${t}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.push({ tid: Number(t), name, seconds: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND });
    } catch {
      // thread ended
    }
  }
  return out;
}

/** Per-thread CPU seconds used between two readings (threads that started in between count from zero). */
export function threadDelta(before: readonly ThreadCpu[], after: readonly ThreadCpu[]): ThreadCpu[] {
  const base = new Map(before.map((t) => [t.tid, t.seconds]));
  return after.map((t) => ({ tid: t.tid, name: t.name, seconds: t.seconds - (base.get(t.tid) ?? 0) }));
}
