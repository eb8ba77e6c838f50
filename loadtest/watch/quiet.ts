/**
 * The machine is shared: CPU used by processes other than the benchmark's
 * (server, etcd, worker processes, this process), from /proc/stat minus
 * /proc/<pid>/stat, so that each step can say how much outside load it had,
 * and a bounded wait for the machine to go quiet before a measurement.
 */
import { readFileSync } from 'node:fs';
import { processCpuSeconds } from '../lib/memory.ts';
import { sleep } from '../lib/timer.ts';
import { nowMs } from './http.ts';

const TICKS = 100;

/** CPU seconds (all CPUs) the machine spent busy since boot. */
function machineBusySeconds(): number {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
    const v = line.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal guest guest_nice (guest is already in user)
    const busy = v[0]! + v[1]! + v[2]! + v[5]! + v[6]! + v[7]!;
    return busy / TICKS;
  } catch {
    return Number.NaN;
  }
}

export interface CpuSnapshot {
  readonly at: number;
  readonly machine: number;
  readonly ours: number;
}

export class OutsideLoad {
  #budgetLeftMs: number;
  waitedMs = 0;

  /** Pids of the benchmark's processes (server, etcd, workers); this process is always counted. */
  pids: () => number[] = () => [];

  constructor(budgetMs: number) {
    this.#budgetLeftMs = budgetMs;
  }

  get hasBudget(): boolean {
    return this.#budgetLeftMs > 0;
  }

  snapshot(): CpuSnapshot {
    let ours = 0;
    for (const pid of this.pids()) ours += processCpuSeconds(pid) ?? 0;
    const u = process.cpuUsage();
    ours += (u.user + u.system) / 1e6;
    return { at: nowMs(), machine: machineBusySeconds(), ours };
  }

  /** Cores used by other processes between two snapshots. */
  static otherCores(a: CpuSnapshot, b: CpuSnapshot): number {
    const wall = (b.at - a.at) / 1000;
    return wall > 0 ? Math.max(0, (b.machine - a.machine - (b.ours - a.ours)) / wall) : Number.NaN;
  }

  /**
   * Waits (in 1 s samples, within what is left of the budget) until other
   * processes use at most `maxCores`. Returns the last sample's outside load.
   */
  async waitQuiet(maxCores = 0.25): Promise<number> {
    let other = Number.NaN;
    if (this.#budgetLeftMs <= 0) return other;
    for (;;) {
      const a = this.snapshot();
      await sleep(1000);
      const b = this.snapshot();
      this.#budgetLeftMs -= 1000;
      this.waitedMs += 1000;
      other = OutsideLoad.otherCores(a, b);
      if (!(other > maxCores) || this.#budgetLeftMs <= 0) return other;
    }
  }
}

/**
 * Waits (at most `maxMs`) until process `pid` is idle — under `maxCores`
 * over half a second — so that background work after a bulk load (the
 * store's snapshot, GC) is not counted against the next measurement.
 * Returns the ms waited.
 */
export async function waitIdle(pid: number, maxMs = 30_000, maxCores = 0.1): Promise<number> {
  const t0 = nowMs();
  let last = processCpuSeconds(pid) ?? 0;
  while (nowMs() - t0 < maxMs) {
    await sleep(500);
    const now = processCpuSeconds(pid) ?? 0;
    if ((now - last) / 0.5 <= maxCores) break;
    last = now;
  }
  return nowMs() - t0;
}
