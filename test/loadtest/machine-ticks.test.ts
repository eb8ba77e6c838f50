import { test } from 'node:test';
import assert from 'node:assert/strict';
import { idleShare, machineTicksFrom } from '../../loadtest/lib/machine.ts';

// /proc/stat's aggregate line: user nice system idle iowait irq softirq steal guest guest_nice.
const before = 'cpu  100 0 50 800 50 0 0 0 0 0\ncpu0 50 0 25 400 25 0 0 0 0 0\nintr 1\n';
const after = 'cpu  250 0 100 850 50 0 0 50 0 0\ncpu0 125 0 50 425 25 0 0 25 0 0\nintr 2\n';

test('machine ticks: idle is idle + iowait, steal counts as busy', () => {
  assert.deepEqual(machineTicksFrom(before), { idle: 850, total: 1000 });
  assert.deepEqual(machineTicksFrom(after), { idle: 900, total: 1300 });
  // 300 ticks passed, 50 of them idle (the 50 of steal count as busy).
  assert.equal(idleShare(machineTicksFrom(before), machineTicksFrom(after)), 50 / 300);
});

test('machine ticks: no time passed gives no idle share; a text without the cpu line is refused', () => {
  const t = machineTicksFrom(before);
  assert.equal(idleShare(t, t), 0);
  assert.throws(() => machineTicksFrom('intr 1\n'), /no aggregate cpu line/);
  assert.throws(() => machineTicksFrom('cpu  a b c d e\n'), /unexpected/);
});
