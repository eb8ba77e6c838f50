/**
 * What an fdatasync costs the embedded store's WAL on this disk (session 24): 36 KiB groups (about 27 creates
 * of 1 KiB ConfigMaps) appended to a growing file, against the same groups written over zeros preallocated
 * ahead of them (what src/storage/embedded/wal.ts does). Median and p90 of N syncs each, alternating rounds.
 *
 *   node --import tsx loadtest/storage/wal-fsync.ts [--dir=<dir on the disk to measure>] [--syncs=400] [--rounds=2]
 */
import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const arg = (name: string, fallback: string): string =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const dir = mkdtempSync(join(arg('dir', tmpdir()), 'orch-wal-fsync-'));
const syncs = Number(arg('syncs', '400'));
const rounds = Number(arg('rounds', '2'));
const group = Buffer.alloc(36 * 1024, 'x');

function run(preallocate: boolean): { median: number; p90: number } {
  const path = join(dir, preallocate ? 'preallocated' : 'appended');
  const fd = openSync(path, 'w', 0o600);
  try {
    if (preallocate) {
      const zeros = Buffer.alloc(1 << 20);
      for (let at = 0; at < syncs * group.length + zeros.length; at += zeros.length) writeSync(fd, zeros, 0, zeros.length, at);
      fdatasyncSync(fd);
    }
    const times: number[] = [];
    for (let i = 0; i < syncs; i++) {
      writeSync(fd, group, 0, group.length, i * group.length);
      const t0 = process.hrtime.bigint();
      fdatasyncSync(fd);
      times.push(Number(process.hrtime.bigint() - t0) / 1000);
    }
    times.sort((a, b) => a - b);
    return { median: times[Math.floor(syncs / 2)]!, p90: times[Math.floor(syncs * 0.9)]! };
  } finally {
    closeSync(fd);
    rmSync(path);
  }
}

try {
  console.log(`fdatasync after a 36 KiB write, ${syncs} each, in ${dir}`);
  for (let r = 0; r < rounds; r++) {
    for (const preallocate of [false, true]) {
      const { median, p90 } = run(preallocate);
      console.log(`${preallocate ? 'over preallocated zeros' : 'appended to the file  '}  median ${median.toFixed(0)} µs  p90 ${p90.toFixed(0)} µs`);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
