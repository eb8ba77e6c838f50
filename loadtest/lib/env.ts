/** Benchmark knobs read from the environment. */
import { execFileSync } from 'node:child_process';

/** A positive number from `name`, else `fallback`. */
export function envNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw.replace(/_/g, ''));
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name}=${raw} is not a positive number`);
  return n;
}

/** True when `name` is set to 1, true or yes. */
export function envFlag(name: string): boolean {
  const raw = (process.env[name] ?? '').toLowerCase();
  return raw === '1' || raw === 'true' || raw === 'yes';
}

/** The value of `--name=value` on the command line, or undefined. */
export function argValue(name: string, argv: readonly string[] = process.argv.slice(2)): string | undefined {
  const prefix = `--${name}=`;
  for (const a of argv) if (a.startsWith(prefix)) return a.slice(prefix.length);
  return undefined;
}

/** Whether `cmd` is on the PATH (h2load, curl, taskset: the benchmarks install nothing). */
export function haveCommand(cmd: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
