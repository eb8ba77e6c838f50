/**
 * CPU pinning with taskset, when there is one: server on one core, load
 * generator on another, so neither steals the other's cycles. On a machine
 * with fewer than two cores, or without taskset, nothing is pinned and the
 * report says so.
 */
import { spawnSync } from 'node:child_process';
import os from 'node:os';

export function pin(pid: number, core: number): boolean {
  if (os.cpus().length < 2) return false;
  // -a: every thread of the process (libuv pool, V8 helpers), not just the main one.
  const result = spawnSync('taskset', ['-a', '-cp', String(core), String(pid)], { stdio: 'ignore' });
  return result.status === 0;
}
