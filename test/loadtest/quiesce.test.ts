import assert from 'node:assert/strict';
import { test } from 'node:test';
import { quiesce } from '../../loadtest/lib/quiesce.ts';

/** A fake clock: sleeping advances it, and each reader's CPU follows a script per window. */
function fakeClock(): { now: () => number; sleep: (ms: number) => Promise<void> } {
  let t = 0;
  return { now: () => t, sleep: async (ms) => void (t += ms) };
}

test('quiesce returns after the first window in which the servers together stayed under the idle share', async () => {
  const clock = fakeClock();
  // CPU seconds read at each call: busy (+0.1 s per 200 ms window) for three windows, then idle (+0.001 s).
  const steps = [0, 0.1, 0.2, 0.3, 0.301];
  let i = 0;
  const a = (): number => steps[Math.min(i++, steps.length - 1)]!;
  const b = (): number => 5; // an idle second server
  const r = await quiesce([a, b], { ...clock });
  assert.equal(r.idle, true);
  assert.equal(r.waitedMs, 800);
});

test('quiesce gives up at its limit on a machine that stays busy', async () => {
  const clock = fakeClock();
  let cpu = 0;
  const busy = (): number => (cpu += 0.05); // 50 ms per read: a quarter of a core per window
  const r = await quiesce([busy], { ...clock, maxMs: 1000 });
  assert.equal(r.idle, false);
  assert.equal(r.waitedMs, 1000);
});

test('quiesce counts every reader: one idle server does not hide a busy one', async () => {
  const clock = fakeClock();
  let cpu = 0;
  const busy = (): number => (cpu += 0.02);
  const r = await quiesce([() => 1, busy], { ...clock, maxMs: 600 });
  assert.equal(r.idle, false);
});
