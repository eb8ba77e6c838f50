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
