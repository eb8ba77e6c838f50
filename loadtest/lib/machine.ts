/** A description of the machine a benchmark ran on. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';

export interface MachineInfo {
  readonly nproc: number;
  readonly cpuModel: string;
  readonly node: string;
  readonly kernel: string;
  readonly memoryGiB: number;
  /** ISO date and time of the run. */
  readonly date: string;
  /** 1-minute load average when the run started (other work on the box skews results). */
  readonly loadAverage: number;
}

function nproc(): number {
  try {
    return Number(execFileSync('nproc', { encoding: 'utf8' }).trim());
  } catch {
    return os.availableParallelism();
  }
}

function cpuModel(): string {
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (m) return m[1]!.trim();
  } catch {
    // not Linux
  }
  return os.cpus()[0]?.model ?? 'unknown';
}

export function machineInfo(): MachineInfo {
  return {
    nproc: nproc(),
    cpuModel: cpuModel(),
    node: process.version,
    kernel: `${os.type()} ${os.release()}`,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    date: new Date().toISOString(),
    loadAverage: os.loadavg()[0]!,
  };
}

export function describeMachine(m: MachineInfo): string {
  return `nproc ${m.nproc}, ${m.cpuModel}, ${m.memoryGiB} GiB RAM, ${m.kernel}, Node ${m.node}, ${m.date}, load average ${m.loadAverage.toFixed(2)} at start`;
}

/** The 1-minute load average now. */
export function loadAverage(): number {
  return os.loadavg()[0]!;
}

/** The machine's CPU time in clock ticks, from /proc/stat's first line: idle (idle + iowait) and all of it. */
export interface MachineTicks {
  readonly idle: number;
  readonly total: number;
}

/** MachineTicks from the text of /proc/stat (its aggregate `cpu` line; steal and guest count as busy). */
export function machineTicksFrom(procStat: string): MachineTicks {
  const line = procStat.split('\n').find((l) => l.startsWith('cpu '));
  if (line === undefined) throw new Error('/proc/stat has no aggregate cpu line');
  const f = line.trim().split(/\s+/).slice(1, 9).map(Number);
  if (f.length < 5 || f.some((n) => !Number.isFinite(n))) throw new Error(`unexpected /proc/stat cpu line: ${line}`);
  return { idle: f[3]! + f[4]!, total: f.reduce((a, b) => a + b, 0) };
}

export function machineTicks(): MachineTicks {
  return machineTicksFrom(readFileSync('/proc/stat', 'utf8'));
}

/** Share of the machine idle between two readings (0-1). */
export function idleShare(before: MachineTicks, after: MachineTicks): number {
  const total = after.total - before.total;
  return total > 0 ? (after.idle - before.idle) / total : 0;
}
